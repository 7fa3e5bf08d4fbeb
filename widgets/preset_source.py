"""The data a preset picked in the panel reads.

The bundled photos come two ways: as class folders (the bundled samples: an image, its label)
and with their COCO annotations (boxes, polygons, keypoints). A preset picked on either reads
them the way it is written to: a detection or segmentation preset picked on the bundled samples
reads their annotations (it would otherwise stop at an error asking for them), and a
classification preset picked on the bundled annotations reads the samples again (it would
otherwise take a COCO reader's boxes for its labels). The user's own data is never swapped: a
folder of theirs under an annotated preset says it needs annotations, with the fix as a button.
"""

from __future__ import annotations

from augexplorer.checks.annotated import ANNOTATED_KIND
from augexplorer.presets import preset
from augexplorer.spec import Source

from .source_switch import switched

BUNDLED_SAMPLES = "samples"
# How the undo history names the bundled photos that a preset picked on them switched to.
BUNDLED_READINGS = {
    ANNOTATED_KIND: "the bundled COCO annotations",
    BUNDLED_SAMPLES: "the bundled samples",
}


def is_bundled(source: Source) -> bool:
    """Whether `source` reads the bundled photos, as class folders or with their annotations."""
    return source.kind == BUNDLED_SAMPLES or (source.kind == ANNOTATED_KIND and source.path is None)


def source_for_preset(current: Source, name: str) -> Source:
    """The source preset `name` reads when picked on `current`: `current` itself, unless it is
    the bundled photos read otherwise than the preset reads them; then the bundled photos read
    as the preset does (shuffling, seed and bad-file handling kept, as a switch of data keeps
    them). Raises KeyError naming the presets for an unknown name."""
    own = preset(name).sources()
    if not own or not is_bundled(current) or own[0].reads_coco == current.reads_coco:
        return current
    kind = ANNOTATED_KIND if own[0].reads_coco else BUNDLED_SAMPLES
    return switched(current, kind, None)
