"""What an exported module needs to know about a COCO source: the data it reads by default, and
which outputs hold one row per object (their length differs from sample to sample, so the
loader pads them for PyTorch)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

from ..annotations import tracks_at
from ..spec import GraphSpec, Ref, Source

# Kinds of annotation with one row per object (or per polygon, or per vertex).
PER_OBJECT_KINDS = frozenset({"boxes", "labels", "polygons", "vertices"})

# Annotation operators and the outputs of theirs that hold one row per object, for outputs that
# no image node's tracks name (an output read by nothing but the graph's outputs, say).
_PER_OBJECT_OUTPUTS: dict[str, frozenset[int]] = {
    "bb_flip": frozenset({0}),
    "bbox_rotate": frozenset({0, 1}),
    "bbox_paste": frozenset({0}),
    "coord_flip": frozenset({0}),
    "coord_transform": frozenset({0}),
    "random_bbox_crop": frozenset({2, 3, 4}),
}


@dataclass(frozen=True)
class GraphForm:
    """What form the graph gives its images and per-object outputs, which the exported loader
    converts from for torchvision (``target_format="torchvision"``)."""

    images: str  # the images output's name
    layout: str  # its layout ("HWC", "CHW"; "" when not known)
    boxes: str | None  # the per-object boxes' output (None: none, e.g. box_encoder's)
    labels: str | None  # their labels' output
    ltrb: bool  # boxes as left, top, right, bottom (else x, y, width, height)
    ratio: bool  # in fractions of the image's size (else pixels)


def graph_form(spec: GraphSpec, outputs: dict[str, Ref], per_object: list[str]) -> GraphForm:
    """The form of `outputs` (the first holds the images): the boxes and labels are the outputs
    that hold the images' box and label tracks, else the per-object outputs so named."""
    from ..catalog import load_catalog
    from ..catalog.flow import flow

    images, ref = next(iter(outputs.items()))
    found = flow(spec, load_catalog()).get(ref.node)
    tracks = tracks_at(spec, ref.node)
    source = spec.sources()[0]
    form = tracks.format if tracks is not None else None

    def named(kind: str) -> str | None:
        wanted = tracks.refs.get(kind) if tracks is not None else None
        for name in per_object:
            if outputs[name] == wanted:
                return name
        return kind if kind in per_object else None

    return GraphForm(
        images=images,
        layout=found.layout if found is not None and ref.output == 0 else "",
        boxes=named("boxes"),
        labels=named("labels"),
        ltrb=form.ltrb if form is not None else bool(source.reader_args.get("ltrb")),
        ratio=form.ratio if form is not None else bool(source.reader_args.get("ratio")),
    )


@dataclass(frozen=True)
class CocoData:
    """The data an exported module reads by default, as augexplorer reads it."""

    annotations_file: str | None  # None: file_root is a YOLO folder, converted when built
    file_root: str
    # the images read (relative to file_root): None for every image the file lists, or the
    # ones augexplorer kept when skip_bad left some out
    images: list[str] | None


def coco_data(source: Source, annotations_file: str | None = None) -> CocoData:
    """The annotations file (`annotations_file`, else the source's, else the bundled one), its
    images folder and, where the source skips bad images, the images it keeps."""
    from ..data import open_source, sample_annotations, samples_dir

    if source.kind == "yolo":  # the folder is converted when the module's pipeline is built
        folder = str(annotations_file or source.path)
        kept = None
        if source.skip_bad:
            opened = open_source(dataclasses.replace(source, path=folder), skip_bad=True)
            kept = list(opened.coco_images) if opened.skipped else None
        return CocoData(None, folder, kept)
    path = Path(annotations_file or source.path or sample_annotations())
    if source.file_root:
        root = Path(source.file_root)
    else:  # as augexplorer.data reads a COCO source: beside the file, or the bundled photos
        root = path.parent if (annotations_file or source.path) else samples_dir()
    images = None
    if source.skip_bad:
        opened = open_source(
            dataclasses.replace(source, path=str(path), file_root=str(root)), skip_bad=True
        )
        images = list(opened.coco_images) if opened.skipped else None
    return CocoData(str(path), str(root), images)


def per_object_outputs(spec: GraphSpec, outputs: dict[str, Ref]) -> list[str]:
    """The names of `outputs` that hold one row per object: boxes, labels, polygons, vertices
    from the COCO source itself, or moved on with the images by companion operators."""
    tracked: set[Ref] = set()
    for ref in outputs.values():
        tracks = tracks_at(spec, ref.node)
        if tracks is not None:
            tracked |= {r for kind, r in tracks.refs.items() if kind in PER_OBJECT_KINDS}
    found = []
    for name, ref in outputs.items():
        node = spec.node(ref.node)
        if isinstance(node, Source):
            per_object = node.reads_coco and node.output_names()[ref.output] in PER_OBJECT_KINDS
        else:
            per_object = ref in tracked or ref.output in _PER_OBJECT_OUTPUTS.get(
                node.op, frozenset()
            )
        if per_object:
            found.append(name)
    return found
