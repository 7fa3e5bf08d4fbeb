"""Which image operators move pixels, and what that means for the annotations beside them.

An operator that moves pixels (a flip, a crop, a rotation) leaves boxes, polygons and masks
behind unless a companion moves them the same way (:mod:`.wiring` adds them). Operators that only
change values (colour, noise, blur, normalize) need nothing. A resize moves nothing that is in
ratio coordinates, but pixel coordinates and masks need it too. Some operators have no
annotation-safe form in DALI at all: :func:`no_safe_form` says what to use instead.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
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

# Image operators with no DALI operator that moves annotations with them: what to use instead,
# worded for the kinds left behind ({kinds}: "boxes", "keypoints"; {mover}: "box operator",
# "point operator"; {follow} and {follow_slice}: what moves them with random_bbox_crop's window;
# {turned} and {pasted}: what follows a rotate or a paste). :func:`no_safe_form` fills them in.
_NO_SAFE_FORM: dict[str, str] = {
    "water": "no DALI operator moves {kinds} like water's waves; leave it out of detection graphs",
    "sphere": "no DALI operator moves {kinds} like sphere's distortion; leave it out of "
    "detection graphs",
    "jitter": "jitter moves pixels at random, one by one: no annotation can follow it",
    "experimental.warp_perspective": "DALI has no {mover} for a perspective warp; use "
    "warp_affine (a coord_transform moves the {kinds} with it)",
    "experimental.remap": "a remap is any per-pixel mapping: no annotation operator follows it",
    "transpose": "no {mover} swaps x and y here; use rotate by 90 ({turned} follows it)",
    "random_resized_crop": "its crop window is not an output; use random_bbox_crop with slice "
    "(and resize after it)",
    "decoders.image_random_crop": "its crop window is not an output; use random_bbox_crop with "
    "decoders.image_slice or slice",
    "resize_crop_mirror": "use random_bbox_crop with slice, resize and flip (each has a companion)",
    "crop": "no {mover} follows crop's window (fixed or drawn with crop_pos_x/y); use "
    "random_bbox_crop with slice: {follow} its crop window",
    "slice": "a slice reading fixed numbers has no {mover}; use random_bbox_crop, whose anchor "
    "and shape the slice reads ({follow_slice})",
    "decoders.image_crop": "use random_bbox_crop with decoders.image_slice",
    "decoders.image_slice": "read the anchor and shape of a random_bbox_crop",
    "pad": "padding grows the canvas, so coordinates in ratio to it shrink; use paste "
    "({pasted} follows it)",
    "multi_paste": "no {mover} follows multi_paste",
}
# How a note names each placed kind, and the DALI operators that move it.
_WORDS: dict[str, dict[str, str]] = {
    "boxes": {
        "kinds": "boxes",
        "mover": "box operator",
        "follow": "the boxes follow",
        "follow_slice": "its boxes are the cropped ones",
        "turned": "bbox_rotate",
        "pasted": "bbox_paste",
    },
    "vertices": {
        "kinds": "polygons",
        "mover": "point operator",
        "follow": "a coord_transform moves the polygons by",
        "follow_slice": "a coord_transform moves the polygons by them",
        "turned": "a coord_transform",
        "pasted": "a coord_transform",
    },
    "keypoints": {
        "kinds": "keypoints",
        "mover": "point operator",
        "follow": "a coord_transform moves the keypoints by",
        "follow_slice": "a coord_transform moves the keypoints by them",
        "turned": "a coord_transform",
        "pasted": "a coord_transform",
    },
    "masks": {
        "kinds": "masks",
        "mover": "mask operator",
        "follow": "the same slice of the masks follows",
        "follow_slice": "the same slice of the masks follows them",
        "turned": "the same rotate of the masks",
        "pasted": "the same paste of the masks",
    },
}
# Masks are images: the same operator on them follows these (the segmentation preset's crop).
_SAME_ON_MASKS = frozenset({"crop", "pad", "transpose"})
_MIXED = {
    "mover": "annotation operator",
    "follow": "their companions follow",
    "follow_slice": "their companions follow them",
    "turned": "bbox_rotate or a coord_transform",
    "pasted": "bbox_paste or a coord_transform",
}


def no_safe_form(op: str, kinds: Iterable[str] = ("boxes",)) -> str | None:
    """Why `op` has no annotation-safe form and what to use instead, worded for `kinds` (the
    placed kinds it leaves behind: a note on keypoints speaks of keypoints, not boxes); None
    where `op` has a companion."""
    text = _NO_SAFE_FORM.get(op)
    if text is None:
        return None
    known = [kind for kind in dict.fromkeys(kinds) if kind in _WORDS] or ["boxes"]
    if known == ["masks"] and op in _SAME_ON_MASKS:
        return (
            f"the overlay cannot add the masks' own {op}; run the masks through the same {op} "
            "(the same arguments and draws), as the images"
        )
    words = {
        key: value if all(_WORDS[k][key] == value for k in known) else _MIXED.get(key, value)
        for key, value in _WORDS[known[0]].items()
    }
    words["kinds"] = _join([_WORDS[kind]["kinds"] for kind in known])
    return text.format(**words)


def mover(kinds: Iterable[str]) -> str:
    """The DALI operator that moves `kinds`, in words ("box operator", "point operator")."""
    known = {_WORDS[kind]["mover"] for kind in kinds if kind in _WORDS} or {"box operator"}
    return known.pop() if len(known) == 1 else _MIXED["mover"]


# How a sentence names each placed kind as its subject ("the boxes and polygon outlines no
# longer match ...").
_SUBJECTS = {
    "boxes": "boxes",
    "vertices": "polygon outlines",
    "polygons": "polygon outlines",
    "masks": "masks",
    "keypoints": "keypoints",
}


def kinds_said(kinds: Iterable[str]) -> str:
    """`kinds` (track names: "boxes", "vertices") as a person reads them: "the boxes and
    polygon outlines"."""
    words = list(dict.fromkeys(_SUBJECTS.get(kind, kind) for kind in kinds))
    return "the " + _join(words) if words else "the annotations"


def _join(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


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


# crop_mirror_normalize's arguments that make it crop
CROPS = ("crop", "crop_h", "crop_w", "crop_d")


def cmn_crops(args: Mapping[str, Any]) -> bool:
    """Whether a crop_mirror_normalize with `args` crops (no DALI operator follows its crop on
    boxes or points: its companions follow the mirror only)."""
    return any(name in args for name in CROPS)


def _not_zero(value: Any) -> bool:
    """A constant 0 is no move; anything else (a draw, a node's output) may be one."""
    return not (isinstance(value, (int, float, bool)) and not value)
