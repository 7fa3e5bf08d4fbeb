"""What a crop of a fixed size is compared after: albumentations refuses a crop larger than
its image (``CropSizeError``), and a pipeline that crops 224 after ``SmallestMaxSize(256)`` or
``PadIfNeeded(224, 224)`` gives it images that size. Run alone on the photos Compare is given
(any size), such a crop had no figure at all; run after the resizes and pads before it in the
pipeline, on both sides, as the pipeline runs it, it has one."""

from __future__ import annotations

from collections.abc import Sequence

from ..model import PortedStep, TransformCall

# crops of a size the call fixes, which albumentations refuses on a smaller image
FIXED_CROPS = frozenset({"CenterCrop", "RandomCrop", "Crop"})
# transforms that give every image a size of the call's own, with nothing drawn
SIZING = frozenset({"Resize", "LongestMaxSize", "SmallestMaxSize", "PadIfNeeded"})


def sized_before(step: PortedStep, steps: Sequence[PortedStep]) -> tuple[TransformCall, ...]:
    """The calls of the resizes and pads before `step` in `steps` (the pipeline's transforms,
    in order), where `step` is an albumentations crop of a fixed size; else none."""
    if step.call.library != "albumentations" or step.call.name not in FIXED_CROPS:
        return ()
    earlier: list[TransformCall] = []
    for other in steps:
        if other is step:
            return tuple(earlier)
        if other.call.name in SIZING and other.nodes:
            earlier.append(other.call)
    return ()
