"""Which kinds of annotation can be drawn over a node's images, and why the others cannot.

A kind is drawn at a node only where the graph carried it through every image operator that
moves pixels between the source and that node: a polygon left behind by a crop is in the
coordinates of an image the node no longer shows, and drawing it there would show the user
something their training will not get. The overlays of the panel, the large view and
``render_node`` all ask :func:`overlay_states`; where a companion operator can carry the kind,
the state names the fix (:func:`~.carry.carry`), and :func:`carry_all` applies every such fix
(the presets do, on a source that reads more than they wire).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from ..checks.box_layouts import box_layout_warnings, box_nodes_of
from ..spec import GraphSpec, Node, Ref
from .carry import carry, why_not_carried
from .tracks import Tracks, cmn_crop_moves, tracks_at

# Each kind the overlays draw -> the tracks it is drawn from (all must be read and carried).
OVERLAY_TRACKS: dict[str, tuple[str, ...]] = {
    "boxes": ("boxes",),
    "names": ("boxes", "labels"),
    "polygons": ("polygons", "vertices"),
    "masks": ("masks",),
    "keypoints": ("keypoints", "keypoint_visibility"),
}
# How a COCO source comes to read a kind it does not read.
_NOT_READ = {
    "boxes": "the source reads no boxes",
    "names": "the source reads no boxes",
    "polygons": "no polygons (readers.coco reads them with polygon_masks=True)",
    "masks": "no pixel masks (readers.coco reads them with pixelwise_masks=True)",
    "keypoints": "no keypoints (a COCO source gives them with keypoints=True)",
}
# What an image operator does to the pixels, for "polygons are not <verb> by 'crop'".
_VERBS = {
    "flip": "flipped",
    "rotate": "rotated",
    "warp_affine": "warped",
    "experimental.warp_perspective": "warped",
    "paste": "pasted",
    "multi_paste": "pasted",
    "resize": "resized",
    "experimental.resize": "resized",
    "slice": "cropped",
    "crop": "cropped",
    "random_resized_crop": "cropped",
    "resize_crop_mirror": "cropped",
    "decoders.image_slice": "cropped",
    "decoders.image_crop": "cropped",
    "decoders.image_random_crop": "cropped",
    "pad": "padded",
    "transpose": "transposed",
}


@dataclass(frozen=True)
class OverlayState:
    """Whether one kind can be drawn at a node: `reason` None where it can, else why not;
    `carry_kinds` the tracks :func:`~.carry.carry` moves to make it drawable (empty: no
    operator can), and `fix` the fix in a few words (a button's label)."""

    kind: str
    reason: str | None = None
    carry_kinds: tuple[str, ...] = ()
    fix: str = ""
    left_behind: bool = False  # read by the source, but not carried to these images
    # whether the graph reads this kind (a node moves it, or an output gives it): one left
    # behind is then a warning; one no node reads (a COCO reader's boxes, read whatever a
    # segmentation graph uses) only cannot be drawn
    used: bool = False

    @property
    def drawable(self) -> bool:
        return self.reason is None


def overlay_states(spec: GraphSpec, node_id: str) -> dict[str, OverlayState] | None:
    """Each overlay kind at `node_id` (:data:`OVERLAY_TRACKS`); None where its images come from
    no annotated source."""
    tracks = tracks_at(spec, node_id)
    if tracks is None:
        return None
    at_source = tracks_at(spec, tracks.source)
    refs = at_source.refs if at_source is not None else {}
    read = read_in(spec)
    return {
        kind: dataclasses.replace(
            _state(spec, tracks, kind), used=any(refs.get(track) in read for track in needed)
        )
        for kind, needed in OVERLAY_TRACKS.items()
    }


def read_in(spec: GraphSpec) -> set[Ref]:
    """Every node output that some node reads (an input, an argument, a condition) or that the
    graph gives as an output."""
    read = set(spec.outputs.values())
    for node in spec.operators():
        read.update(node.reads())
    return read


def carry_all(spec: GraphSpec) -> GraphSpec:
    """`spec` with every kind of annotation its source reads carried to the graph's image
    output (its first output) through every geometric step, where companions can carry it
    through all of them (a preset on a source that reads more than the preset wires). A kind
    that some step cannot carry is left as it is: not drawn, and said why."""
    outputs = list(spec.outputs.values())
    if not outputs:
        return spec
    target = outputs[0].node
    states = overlay_states(spec, target) or {}
    # every kind in one pass: the kinds carried through one crop share its window's nodes
    kinds = tuple(dict.fromkeys(k for state in states.values() for k in state.carry_kinds))
    return carry(spec, target, kinds) if kinds else spec


def _state(spec: GraphSpec, tracks: Tracks, kind: str) -> OverlayState:
    needed = OVERLAY_TRACKS[kind]
    if any(track not in tracks.refs for track in needed):
        return OverlayState(kind, _NOT_READ[kind])
    misread = misread_boxes(spec, tracks) if "boxes" in needed else None
    if misread is not None:
        # the boxes these images get are off their objects: said as boxes left behind are
        return OverlayState(kind, misread, left_behind=True)
    behind = [
        (image, [k for k in left if k in needed])
        for image, left in tracks.left.items()
        if any(k in needed for k in left)
    ]
    if not behind:
        return OverlayState(kind)
    first = behind[0][0]
    subject = "names are drawn on the boxes, which" if kind == "names" else kind
    said = f"{subject} are not {_verb(spec, first)} by {first!r}"
    blocked = next(
        ((image, why) for image, kinds in behind if (why := why_not_carried(spec, image, kinds))),
        None,
    )
    if blocked is not None:
        image, why = blocked
        if image == first:
            return OverlayState(kind, f"{said}: {why}", left_behind=True)
        why = f"{said}, and cannot be carried through {image!r}: {why}"
        return OverlayState(kind, why, left_behind=True)
    carried = tuple(dict.fromkeys(k for _, kinds in behind for k in kinds))
    through = _join([image for image, _ in behind])
    shown = "boxes" if kind == "names" else kind
    fix = f"Carry {shown} through {through}"
    return OverlayState(kind, f"{said}: add them", carried, fix, left_behind=True)


def misread_boxes(spec: GraphSpec, tracks: Tracks) -> str | None:
    """Why the boxes at these images are off their objects, where a box operator they went
    through read them in another layout than their source gives them
    (:func:`~augexplorer.checks.box_layouts.box_layout_warnings`); None where none did."""
    boxes = tracks.refs.get("boxes")
    passed = set(box_nodes_of(spec, boxes)) if boxes is not None else set()
    if not passed:
        return None
    for problem in box_layout_warnings(spec):
        if problem.node in passed:
            return f"boxes are off their objects: {problem}"
    return None


def _verb(spec: GraphSpec, image_id: str) -> str:
    image = spec.node(image_id)
    if not isinstance(image, Node):
        return "moved"
    if image.op == "crop_mirror_normalize":
        return "cropped" if cmn_crop_moves(spec, image) else "mirrored"
    return _VERBS.get(image.op, "moved")


def _join(names: list[str]) -> str:
    quoted = [f"'{name}'" for name in names]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]


__all__ = ["OVERLAY_TRACKS", "OverlayState", "carry_all", "misread_boxes", "overlay_states"]
