"""Graphs that read annotations (boxes, labels, polygons, masks, keypoints) from a source that
reads none: an annotated preset picked while the data is a folder of images, say. The outputs
such a graph reads past images and labels exist only on a COCO-read source (a COCO file, a YOLO
folder, or the bundled annotated photos), so the fix is that source, not another output index.
"""

from __future__ import annotations

from ..spec import GraphSpec, Node, Ref, Source
from ..spec.graph import COCO_KINDS

# What a plain source is, for "a folder gives images and labels only".
_SOURCE_WORDS = {
    "samples": "the bundled samples (a folder of images)",
    "folder": "a folder of images",
    "file_list": "a file list",
    "arrays": "in-memory arrays",
}
# The source that gives annotations with nothing to set up: the bundled annotated photos.
ANNOTATED_KIND = "coco"
ANNOTATED_FIX = (
    'read annotated data: pick "COCO annotations" as the data (the bundled photos with boxes, '
    "polygons and keypoints), or a COCO file or a YOLO folder of your own"
)
# Annotation operators: reading the source directly, they read its boxes, whatever the index.
_READS_BOXES = frozenset(
    {"random_bbox_crop", "bb_flip", "bbox_rotate", "bbox_paste", "box_encoder", "coord_flip"}
)


def reads_missing_annotations(spec: GraphSpec, ref: Ref, what: str = "it") -> str | None:
    """Why `ref` (`what` reads it: "input 1") reads annotations that its source does not give
    (None where it reads an output the source has, or no source): the problem's message."""
    source = spec.node(ref.node) if ref.node in spec else None
    if not isinstance(source, Source) or source.kind in COCO_KINDS:
        return None
    if ref.output < len(source.output_names()):
        return None
    data = _SOURCE_WORDS.get(source.kind, f"a {source.kind} source")
    return (
        f"{what} reads annotations (output {ref.output}: boxes, labels per box, ...) from "
        f"{ref.node!r}, which reads {data}: images and labels only. Annotations come from a "
        "COCO file, a YOLO folder or the bundled annotated photos"
    )


def needs_annotated_source(spec: GraphSpec) -> bool:
    """Whether the graph reads annotations from a source that reads none: an output past its
    images and labels, or its output read by an annotation operator (``random_bbox_crop``,
    ``bb_flip``, ...). The fix is :data:`ANNOTATED_KIND` data (:data:`ANNOTATED_FIX`)."""
    plain = {s.id for s in spec.sources() if s.kind not in COCO_KINDS}
    if not plain:
        return False
    for node in spec.operators():
        refs = [*node.inputs, *(v for v in node.args.values() if isinstance(v, Ref))]
        for ref in refs:
            if ref.node not in plain:
                continue
            if reads_missing_annotations(spec, ref) or _reads_boxes(node, ref):
                return True
    return any(reads_missing_annotations(spec, ref) for ref in spec.outputs.values())


def _reads_boxes(node: Node, ref: Ref) -> bool:
    return node.op in _READS_BOXES and ref.output > 0
