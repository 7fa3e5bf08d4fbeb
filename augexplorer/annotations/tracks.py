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
The shared node may be some steps away: a ``coord_transform`` whose matrix is made from the
image's angle, or from ``random_bbox_crop``'s anchor, moves with that image node; and a track may
pass several such nodes for one image node (``segmentation.select_masks`` then
``coord_transform``). A ``cast`` of the masks (DALI resizes and rotates no int32) carries them
unchanged. A companion runs under the image node's own condition (none, or the same clauses):
one that runs where the image node does not (a flip given an apply probability after its
``bb_flip`` was wired) moves the annotations of images that did not move, and is none. An image
node that moves pixels with no companion for some track is named in :attr:`Tracks.mismatched`:
its annotations no longer match from there on. A companion also moves them by the image node's
own geometry (:func:`follows`): a flip made vertical, or a rotate given an angle of its own,
after its companions were wired leaves them behind, where they flip or turn as before.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import NamedTuple

from ..spec import ArgValue, GraphSpec, Node, Random, Ref, Source
from .geometry import CROPS, PLACED_KINDS, SCALES_ONLY, cmn_crops, kinds_said, moves_pixels

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
# (companion op, input position of the track) -> the output the track moves to; otherwise a
# track read as the first input moves to the first output
_OUTPUT_AT = {
    # random_bbox_crop: anchor, shape, boxes, labels (and box indices)
    ("random_bbox_crop", 0): 2,
    ("random_bbox_crop", 1): 3,
    ("bbox_rotate", 1): 1,  # boxes, labels
    ("segmentation.select_masks", 1): 0,  # polygons, vertices
    ("segmentation.select_masks", 2): 1,
}
MAX_STEPS = 4  # annotation nodes one track may pass for one image node
# operators that read annotations (boxes, labels, polygons, vertices)
ANNOTATION_OPS = frozenset().union(*COMPANION_OPS.values()) | {
    "segmentation.select_masks",
    "bbox_rotate",
    "bbox_paste",
}


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
    # image nodes that move pixels while some annotations stay behind -> which, and the fix
    mismatched: dict[str, str] = field(default_factory=dict)
    # the same, as kinds: image node -> the placed kinds it left behind (chain order)
    left: dict[str, tuple[str, ...]] = field(default_factory=dict)

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


def chain_reads(spec: GraphSpec, chain: list[str]) -> str:
    """Which output of its source `chain` (:func:`image_chain`) carries: the name of the one
    its first step reads ("images", "masks", ...), "images" for the source alone, "" where the
    chain starts from no source."""
    if len(chain) < 2:
        return "images" if chain else ""
    source, first = spec.node(chain[0]), spec.node(chain[1])
    if not isinstance(source, Source) or not isinstance(first, Node) or not first.inputs:
        return ""
    return source.output_name(first.inputs[0].output)


def on_images(spec: GraphSpec, chain: list[str]) -> bool:
    """Whether `chain` carries the source's images. A chain that starts from another output
    (the masks, through the segmentation preset's ``mask_resize`` and ``mask_crop``; the boxes,
    through ``bb_flip``) moves annotations beside the images: a companion chain, whose nodes
    are no image nodes."""
    return chain_reads(spec, chain) == "images"


def tracks_at(spec: GraphSpec, node_id: str, *, agreeing: bool = True) -> Tracks | None:
    """The annotation outputs that belong with `node_id`'s images; None when its images come
    from no annotated source, or when `node_id` is on a companion chain (:func:`on_images`: a
    mask's own resize or crop gives masks, not images that annotations are drawn on, moved
    with, or left behind by). Without `agreeing`, a companion that no longer follows its image
    node's geometry (:func:`follows`) is taken as one, as it was wired."""
    chain = image_chain(spec, node_id)
    if not chain:
        return None
    source = spec.node(chain[0])
    if not isinstance(source, Source) or not source.reads_coco or not on_images(spec, chain):
        return None
    names = source.output_names()
    refs = {name: Ref(source.id, i) for i, name in enumerate(names) if name in TRACK_KINDS}
    form = AnnotationFormat(
        ltrb=bool(source.reader_args.get("ltrb")), ratio=bool(source.reader_args.get("ratio"))
    )
    if "masks" in refs:
        refs["masks"] = _past_casts(spec, refs["masks"])
    order = {node.id: index for index, node in enumerate(spec.nodes)}
    derived = _annotation_nodes(spec)
    companions: dict[str, tuple[str, ...]] = {}
    mismatched: dict[str, str] = {}
    left: dict[str, tuple[str, ...]] = {}
    for image_id in chain[1:]:
        image = spec.node(image_id)
        assert isinstance(image, Node)
        moved: list[str] = []
        stayed: list[str] = []
        for kind, ref in list(refs.items()):
            found = _companion(spec, image, ref, kind, order, chain, derived, agreeing)
            steps = 0
            while found is not None and found != refs[kind] and steps < MAX_STEPS:
                refs[kind] = found
                if found.node not in moved:
                    moved.append(found.node)
                steps += 1
                found = _companion(
                    spec, image, found, kind, order, chain, derived, agreeing, loose=False
                )
            if steps == 0:
                stayed.append(kind)
            elif kind == "masks":  # a companion's masks cast for the next one (a flip's)
                refs[kind] = _past_casts(spec, refs[kind])
        if moved:
            companions[image_id] = tuple(moved)
        whole = image.op == "crop_mirror_normalize" and crops_whole(spec, image)
        if image.op == "crop_mirror_normalize" and cmn_crop_moves(spec, image):
            stayed = list(refs)  # bb_flip / coord_flip follow its mirror, nothing its crop
        behind = _left_behind(image, stayed, form, crop_moves=not whole)
        if behind:
            left[image_id] = behind
            mismatched[image_id] = (
                f"{kinds_said(behind)} no longer match the images after {image.id} ({image.op})"
            )
    return Tracks(source.id, refs, form, companions, mismatched, left)


def _left_behind(
    image: Node, stayed: list[str], form: AnnotationFormat, *, crop_moves: bool = True
) -> tuple[str, ...]:
    """The placed kinds that no longer match after `image`, when it moves pixels (its crop
    does not where `crop_moves` is false: :func:`crops_whole`)."""
    args = image.args if crop_moves else {k: v for k, v in image.args.items() if k not in CROPS}
    if not moves_pixels(image.op, args):
        return ()
    kinds = [kind for kind in stayed if kind in PLACED_KINDS]
    if image.op in SCALES_ONLY and form.ratio:
        kinds = [kind for kind in kinds if kind == "masks"]
    return tuple(kinds)


# Operators that keep an image's height and width: a crop after them crops what came before.
KEEPS_SIZE = frozenset(
    {
        "hsv",
        "hue",
        "saturation",
        "brightness",
        "contrast",
        "brightness_contrast",
        "color_twist",
        "cast",
        "copy",
        "gaussian_blur",
    }
)


def cmn_crop_moves(spec: GraphSpec, image: Node) -> bool:
    """Whether crop_mirror_normalize `image` crops part of its input (a crop of the whole image,
    :func:`crops_whole`, moves nothing: its boxes need only follow the mirror)."""
    return cmn_crops(image.args) and not crops_whole(spec, image)


def crops_whole(spec: GraphSpec, image: Node) -> bool:
    """Whether crop_mirror_normalize `image` crops its whole input: a crop of the exact size a
    resize to constant resize_x and resize_y (or size=[h, w]) gave, with only operators that
    keep the size between (DALI's SSD pipelines: resize to 300x300, colour, crop=(300, 300))."""
    crop = image.args.get("crop")
    if crop is None and "crop_h" in image.args and "crop_w" in image.args:
        crop = [image.args["crop_h"], image.args["crop_w"]]
    if not (isinstance(crop, (list, tuple)) and len(crop) == 2) or "crop_d" in image.args:
        return False
    node: Node | Source = image
    for _ in range(MAX_STEPS):
        if not isinstance(node, Node) or not node.inputs:
            return False
        node = spec.node(node.inputs[0].node)
        if isinstance(node, Node) and node.op in KEEPS_SIZE:
            continue
        if not (isinstance(node, Node) and node.op == "resize"):
            return False
        size = node.args.get("size")
        if size is None and {"resize_x", "resize_y"} <= node.args.keys():
            size = [node.args["resize_y"], node.args["resize_x"]]
        exact = set(node.args) <= {
            "size",
            "resize_x",
            "resize_y",
            "interp_type",
            "min_filter",
            "mag_filter",
            "antialias",
            "dtype",
        }
        return exact and isinstance(size, (list, tuple)) and list(size) == list(crop)
    return False


def _past_casts(spec: GraphSpec, ref: Ref) -> Ref:
    """The masks as a ``cast`` reading them gives them (same values, a type DALI's resize and
    rotate take)."""
    for _ in range(MAX_STEPS):
        cast = next(
            (n for n in spec.operators() if n.op == "cast" and n.inputs[:1] == (ref,)), None
        )
        if cast is None:
            break
        ref = Ref(cast.id)
    return ref


def _companion(
    spec: GraphSpec,
    image: Node,
    track: Ref,
    kind: str,
    order: dict[str, int],
    chain: list[str],
    derived: set[str],
    agreeing: bool = True,
    *,
    loose: bool = True,
) -> Ref | None:
    """The output that `track` moves on to with `image`, or None where it stays. `loose` also
    takes the first annotation form of the image operator placed after it (no shared node)."""
    readers = [node for node in spec.operators() if track in node.inputs and node.id != image.id]
    image_reads = {ref.node for ref in _all_refs(image)}
    shared = {ref for ref in _all_refs(image) if ref.node != track.node and ref != image.inputs[0]}
    stop = set(chain) | {track.node}
    image_draws = _upstream(spec, image, stop, derived)
    upstreams = {node.id: _upstream(spec, node, stop, derived) for node in readers}
    readers = [
        node
        for node in readers
        if same_condition(image, node)
        and (not agreeing or follows(image, node, upstreams[node.id]))
    ]
    for node in readers:
        position = node.inputs.index(track)
        out = _OUTPUT_AT.get((node.op, position), 0 if position == 0 else None)
        if node.id in image_reads:  # the image reads it: random_bbox_crop before a slice
            return Ref(node.id, out) if out is not None else None
        if node.id in image_draws and node.op not in ANNOTATION_OPS:
            # read to place the image (a pixel or object drawn from the masks, their shape):
            # a value the image reads, not the track moved on
            continue
        others = {ref for ref in _all_refs(node) if ref != track}
        upstream = upstreams[node.id]
        if out is not None and (shared & others or image_draws & upstream):
            return Ref(node.id, out)  # one coin, one angle, one matrix (maybe made from them)
    if not loose:
        return None
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


# An image operator's arguments that place its pixels, with their defaults; a companion that
# holds one under its own name holds the same value (coord_flip's flip_x is flip's horizontal).
GEOMETRY: dict[str, dict[str, ArgValue]] = {
    "flip": {"horizontal": 1, "vertical": 0},
    "crop_mirror_normalize": {"mirror": 0},
    "rotate": {"angle": None, "keep_size": False, "size": None},
    "warp_affine": {"matrix": None, "size": None, "inverse_map": True},
    "paste": {"ratio": None, "paste_x": 0.5, "paste_y": 0.5},
    # a mask's own crop and resize (no box or point operator follows these) cut and size it
    # as the image's do only with the same window and sizes
    # (crop=[h, w] and size=[h, w] compared as their two halves: _spelled_apart)
    "crop": {"crop_h": None, "crop_w": None, "crop_pos_x": 0.5, "crop_pos_y": 0.5},
    "resize": {
        "resize_x": None,
        "resize_y": None,
        "resize_shorter": None,
        "resize_longer": None,
        "max_size": None,
        "mode": "default",
        "roi_start": None,
        "roi_end": None,
        "roi_relative": False,
    },
}
# A companion's own such arguments: a mask's flip, rotate, warp or paste holds the image's;
# the box and point operators theirs, named as DALI names them
_COMPANION_ARGS: dict[str, dict[str, ArgValue]] = {
    **GEOMETRY,
    "bb_flip": GEOMETRY["flip"],
    "coord_flip": {"flip_x": 1, "flip_y": 0},
    "bbox_rotate": GEOMETRY["rotate"],
    "bbox_paste": GEOMETRY["paste"],
}
_NAMED = {
    ("coord_flip", "horizontal"): "flip_x",
    ("coord_flip", "vertical"): "flip_y",
    ("coord_flip", "mirror"): "flip_x",
    ("bb_flip", "mirror"): "horizontal",
    ("flip", "mirror"): "horizontal",
}


def follows(image: Node, node: Node, upstream: set[str]) -> bool:
    """Whether companion `node` moves annotations by `image`'s own geometry: each argument of
    :data:`GEOMETRY` that is an output (a coin, an angle, a matrix) is read by `node`, directly
    or through what it reads (`upstream`); one that is a number is the number `node` holds under
    its name; a draw of the image's own (not a node) is one nothing else reads. A
    ``coord_transform`` follows a ``warp_affine`` only whose matrix maps points forward."""
    return not_followed(image, node, upstream) is None


# One window or size spelled two ways: crop=[h, w] is crop_h and crop_w, resize's size=[h, w]
# is resize_y and resize_x
_PAIRED: dict[str, tuple[str, tuple[str, str]]] = {
    "crop": ("crop", ("crop_h", "crop_w")),
    "resize": ("size", ("resize_y", "resize_x")),
}


# resize's arguments that size its output
_SIZES = frozenset({"resize_x", "resize_y", "resize_shorter", "resize_longer", "max_size", "mode"})


def _spelled_apart(op: str, args: Mapping[str, ArgValue]) -> dict[str, ArgValue]:
    """`args` with a pair (``crop=[224, 224]``) given as its two halves (``crop_h``,
    ``crop_w``), so that either spelling compares equal to the other."""
    if op not in _PAIRED:
        return dict(args)
    name, (first, second) = _PAIRED[op]
    value = args.get(name)
    if not (isinstance(value, (list, tuple)) and len(value) == 2):
        return dict(args)
    apart = {key: item for key, item in args.items() if key != name}
    apart.setdefault(first, value[0])
    apart.setdefault(second, value[1])
    return apart


def not_followed(image: Node, node: Node, upstream: set[str]) -> str | None:
    """The argument of `image` whose geometry companion `node` does not follow (see
    :func:`follows`), or None."""
    reads = upstream | {ref.node for ref in _all_refs(node)}
    own = _COMPANION_ARGS.get(node.op, {})
    image_args, node_args = _spelled_apart(image.op, image.args), _spelled_apart(node.op, node.args)
    sized_by_data = node.op == "resize" and isinstance(node.args.get("size"), Ref)
    for arg, default in GEOMETRY.get(image.op, {}).items():
        if sized_by_data and arg in _SIZES:
            continue  # sized from data: the image's own output shape, as the wiring sizes masks
        value = image_args.get(arg, default)
        if isinstance(value, Random):
            return arg
        if isinstance(value, Ref):
            if value.node not in reads:
                return arg
            continue
        if arg == "inverse_map" and node.op == "coord_transform" and value is not False:
            return arg
        name = _NAMED.get((node.op, arg), arg)
        if name in own and node_args.get(name, own[name]) != value:
            return arg
    return None


class MasksTwin(NamedTuple):
    """The masks' own operator of an image node's kind that cuts or sizes them otherwise."""

    node: str
    argument: str  # the first that differs, as `node` spells it (crop, or crop_h and crop_w)
    wanted: ArgValue | None  # the image node's value, in that spelling (None: left unset)


def masks_own_differs(spec: GraphSpec, image: Node, masks: Ref) -> MasksTwin | None:
    """Where the masks (`masks`, as they reach `image`) go through an operator of `image`'s own
    kind that does not follow it (the segmentation preset's ``mask_crop`` with another window):
    that node, the first argument it differs on and the value it should have."""
    twins = [
        node
        for node in spec.operators()
        if node.op == image.op and node.id != image.id and node.inputs[:1] == (masks,)
    ]
    stop = set(image_chain(spec, image.id)) | {masks.node}
    derived = _annotation_nodes(spec) if twins else set()
    for node in twins:
        differs = not_followed(image, node, _upstream(spec, node, stop, derived))
        if differs is not None:
            return _as_spelled(image, node, differs)
    return None


def _as_spelled(image: Node, node: Node, argument: str) -> MasksTwin:
    wanted = _spelled_apart(image.op, image.args)
    default = GEOMETRY.get(image.op, {}).get(argument)
    pair = _PAIRED.get(image.op)
    if pair is not None and argument in pair[1] and pair[0] in node.args:
        halves = [wanted.get(half) for half in pair[1]]  # crop=[h, w], as the node writes it
        return MasksTwin(node.id, pair[0], halves if None not in halves else None)
    return MasksTwin(node.id, argument, wanted.get(argument, default))


def same_condition(image: Node, node: Node) -> bool:
    """Whether `node` runs on exactly the samples `image` runs on: neither has an apply
    probability (each would flip a coin of its own) and their clauses are the same."""
    return (
        image.probability is None and node.probability is None and set(image.when) == set(node.when)
    )


def _upstream(spec: GraphSpec, node: Node, stop: set[str], derived: set[str]) -> set[str]:
    """The nodes `node` reads, directly or through others, outside the image chain and the
    tracks (`stop`, not entered): its draws, matrices and whatever they are made of. A node that
    reads annotations (`derived`: ``random_bbox_crop``) counts but is not entered, so the draws
    of the annotations' earlier companions (a flip's coin, read by ``bb_flip`` before the crop
    read its boxes) are not taken for this node's."""
    seen: set[str] = set()
    frontier = [ref.node for ref in _all_refs(node)]
    while frontier:
        current = frontier.pop()
        if current in seen or current in stop or current not in spec:
            continue
        seen.add(current)
        found = spec.node(current)
        if isinstance(found, Node) and current not in derived:
            frontier += [ref.node for ref in _all_refs(found)]
    return seen


def _annotation_nodes(spec: GraphSpec) -> set[str]:
    """The nodes that read annotations themselves (:data:`ANNOTATION_OPS`): what they give
    (``random_bbox_crop``'s anchor) is a draw, what they read is not."""
    return {node.id for node in spec.operators() if node.op in ANNOTATION_OPS}


def _all_refs(node: Node) -> list[Ref]:
    refs = list(node.inputs)
    refs += [value for value in node.args.values() if isinstance(value, Ref)]
    refs += [clause.ref for clause in node.when]
    return refs
