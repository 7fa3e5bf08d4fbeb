"""Which image operators move pixels, and what that means for the annotations beside them.

An operator that moves pixels (a flip, a crop, a rotation) leaves boxes, polygons and masks
behind unless a companion moves them the same way (:mod:`.wiring` adds them). Operators that only
change values (colour, noise, blur, normalize) need nothing. A resize moves nothing that is in
ratio coordinates, but pixel coordinates and masks need it too. Some operators have no
annotation-safe form in DALI at all: :data:`NO_SAFE_FORM` says what to use instead.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# Operators that change where things are in the image.
MOVES_PIXELS = frozenset(
    {
        "flip",
        "rotate",
        "warp_affine",
        "paste",
        "slice",
        "crop",
        "resize",
        "experimental.resize",
        "random_resized_crop",
        "resize_crop_mirror",
        "crop_mirror_normalize",
        "water",
        "sphere",
        "jitter",
        "experimental.warp_perspective",
        "experimental.remap",
        "transpose",
        "pad",
        "decoders.image_slice",
        "decoders.image_crop",
        "decoders.image_random_crop",
        "multi_paste",
    }
)
# Scale the whole image: coordinates in ratio to the image size stay right.
SCALES_ONLY = frozenset({"resize", "experimental.resize"})

# Kinds of annotation that sit at a place in the image (labels and ids do not).
PLACED_KINDS = ("boxes", "vertices", "masks", "keypoints")

# Image operators with no DALI operator that moves annotations with them: what to use instead.
NO_SAFE_FORM: dict[str, str] = {
    "water": "no DALI operator moves boxes or polygons like water's waves; leave it out of "
    "detection graphs",
    "sphere": "no DALI operator moves boxes or polygons like sphere's distortion; leave it out "
    "of detection graphs",
    "jitter": "jitter moves pixels at random, one by one: no annotation can follow it",
    "experimental.warp_perspective": "DALI has no box or point operator for a perspective "
    "warp; use warp_affine (coord_transform moves the points with it)",
    "experimental.remap": "a remap is any per-pixel mapping: no annotation operator follows it",
    "transpose": "no box operator swaps x and y; use rotate by 90 (bbox_rotate follows it)",
    "random_resized_crop": "its crop window is not an output; use random_bbox_crop with slice "
    "(and resize after it)",
    "decoders.image_random_crop": "its crop window is not an output; use random_bbox_crop with "
    "decoders.image_slice or slice",
    "resize_crop_mirror": "use random_bbox_crop with slice, resize and flip (each has a companion)",
    "crop": "no box operator follows crop's window (fixed or drawn with crop_pos_x/y); use "
    "random_bbox_crop with slice, whose crop window the boxes follow",
    "slice": "a slice reading fixed numbers has no box operator; use random_bbox_crop, whose "
    "anchor and shape the slice reads",
    "decoders.image_crop": "use random_bbox_crop with decoders.image_slice",
    "decoders.image_slice": "read the anchor and shape of a random_bbox_crop",
    "pad": "padding grows the canvas, so ratio coordinates shrink; use paste (bbox_paste "
    "follows it)",
    "multi_paste": "no box operator follows multi_paste",
}


def moves_pixels(op: str, args: Mapping[str, Any]) -> bool:
    """Whether operator `op` with `args` moves image content (a flip by constant zeros, or a
    crop_mirror_normalize with no crop and no mirror, moves nothing)."""
    if op not in MOVES_PIXELS:
        return False
    if op == "flip":
        return _not_zero(args.get("horizontal", 1)) or _not_zero(args.get("vertical", 0))
    if op == "crop_mirror_normalize":
        return cmn_crops(args) or _not_zero(args.get("mirror", 0))
    return True


def cmn_crops(args: Mapping[str, Any]) -> bool:
    """Whether a crop_mirror_normalize with `args` crops (no DALI operator follows its crop on
    boxes or points: its companions follow the mirror only)."""
    return any(name in args for name in ("crop", "crop_h", "crop_w", "crop_d"))


def _not_zero(value: Any) -> bool:
    """A constant 0 is no move; anything else (a draw, a node's output) may be one."""
    return not (isinstance(value, (int, float, bool)) and not value)
