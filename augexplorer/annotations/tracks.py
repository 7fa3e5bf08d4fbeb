"""Which node outputs hold the annotations of an image node.

A COCO source gives images and, beside them, boxes, labels and polygons (or masks). Each
geometric operator on the images has a companion on the annotations, as DALI code writes it:
``bb_flip`` reading the same coin as ``flip``, ``random_bbox_crop`` whose anchor and shape the
image crop reads, ``bbox_rotate`` with the angle of ``rotate``, a mask through the same resize.
Following the image chain from the source, each annotation "track" moves on to the companion
of every image node it passes. A companion is recognised from the graph alone:
- the image node reads one of its outputs (``slice`` reading ``random_bbox_crop``'s anchor), or
- the two read the same node outside the tracks (one coin, one angle, one matrix), or
- it is the annotation form of the image operator (:data:`COMPANION_OPS`, or the same operator
  on a mask) and the first such node after the image node in the graph's order.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..spec import GraphSpec, Node, Ref, Source

TRACK_KINDS = (
    "boxes",
    "labels",
    "polygons",
    "vertices",
    "masks",
    "keypoints",
    "keypoint_visibility",
    "image_ids",
)

# image operator -> the operators that move annotations with it
COMPANION_OPS: dict[str, frozenset[str]] = {
    "flip": frozenset({"bb_flip", "coord_flip"}),
    "crop_mirror_normalize": frozenset({"bb_flip", "coord_flip"}),
    "rotate": frozenset({"bbox_rotate", "coord_transform"}),
    "paste": frozenset({"bbox_paste", "coord_transform"}),
    "warp_affine": frozenset({"coord_transform"}),
    "slice": frozenset({"random_bbox_crop"}),
    "decoders.image_slice": frozenset({"random_bbox_crop"}),
    "crop": frozenset({"random_bbox_crop"}),
}
# outputs of random_bbox_crop: anchor, shape, boxes, labels (and box indices)
_CROP_OUTPUTS = {0: 2, 1: 3}


@dataclass(frozen=True)
class AnnotationFormat:
    """How a COCO source writes coordinates (``readers.coco``'s ``ltrb`` and ``ratio``)."""

    ltrb: bool = False
    ratio: bool = False


@dataclass(frozen=True)
class Tracks:
    """The annotations of one image node: kind -> the output holding them."""

    source: str
    refs: dict[str, Ref] = field(default_factory=dict)
    format: AnnotationFormat = AnnotationFormat()
    # annotation nodes that moved with an image node on the way (image node -> companions)
    companions: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def get(self, kind: str) -> Ref | None:
        return self.refs.get(kind)


def image_chain(spec: GraphSpec, node_id: str) -> list[str]:
    """The nodes from the source to `node_id` along first inputs (source first)."""
    chain: list[str] = []
    current: str | None = node_id
    while current is not None and current in spec and current not in chain:
        chain.append(current)
        node = spec.node(current)
        current = node.inputs[0].node if isinstance(node, Node) and node.inputs else None
    return list(reversed(chain))


def tracks_at(spec: GraphSpec, node_id: str) -> Tracks | None:
    """The annotation outputs that belong with `node_id`'s images; None when its images come
    from no annotated source."""
    chain = image_chain(spec, node_id)
    if not chain:
        return None
    source = spec.node(chain[0])
    if not isinstance(source, Source) or source.kind != "coco":
        return None
    names = source.output_names()
    refs = {name: Ref(source.id, i) for i, name in enumerate(names) if name in TRACK_KINDS}
    form = AnnotationFormat(
        ltrb=bool(source.reader_args.get("ltrb")), ratio=bool(source.reader_args.get("ratio"))
    )
    order = {node.id: index for index, node in enumerate(spec.nodes)}
    companions: dict[str, tuple[str, ...]] = {}
    for image_id in chain[1:]:
        image = spec.node(image_id)
        assert isinstance(image, Node)
        moved: list[str] = []
        for kind, ref in list(refs.items()):
            found = _companion(spec, image, ref, kind, order)
            if found is not None:
                refs[kind] = found
                if found.node not in moved:
                    moved.append(found.node)
        if moved:
            companions[image_id] = tuple(moved)
    return Tracks(source.id, refs, form, companions)


def _companion(
    spec: GraphSpec, image: Node, track: Ref, kind: str, order: dict[str, int]
) -> Ref | None:
    """The output that `track` moves on to with `image`, or None where it stays."""
    readers = [node for node in spec.operators() if track in node.inputs and node.id != image.id]
    image_reads = {ref.node for ref in _all_refs(image)}
    shared = {ref for ref in _all_refs(image) if ref.node != track.node and ref != image.inputs[0]}
    for node in readers:
        position = node.inputs.index(track)
        if node.id in image_reads:  # the image reads it: random_bbox_crop before a slice
            if node.op == "random_bbox_crop":
                out = _CROP_OUTPUTS.get(position)
                return Ref(node.id, out) if out is not None else None
            return Ref(node.id)
        others = {ref for ref in _all_refs(node) if ref != track}
        if shared & others:  # one coin, one angle, one matrix
            return Ref(node.id)
    after = [
        node
        for node in readers
        if order.get(node.id, -1) > order.get(image.id, -1) and node.inputs[0] == track
    ]
    for node in sorted(after, key=lambda n: order[n.id]):
        if node.op in COMPANION_OPS.get(image.op, frozenset()) or (
            kind == "masks" and node.op == image.op
        ):
            return Ref(node.id)
    return None


def _all_refs(node: Node) -> list[Ref]:
    refs = list(node.inputs)
    refs += [value for value in node.args.values() if isinstance(value, Ref)]
    refs += [clause.ref for clause in node.when]
    return refs
