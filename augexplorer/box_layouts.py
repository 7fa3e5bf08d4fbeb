"""Which layout DALI's box operators read boxes in, and what is wrong where ``readers.coco``
gives them in another: the facts that the graph check (:mod:`augexplorer.checks.box_layouts`)
and the import of DALI code (:mod:`augexplorer.export.box_formats`) both say a mismatch by.

``readers.coco`` gives boxes as x, y, width, height unless told ``ltrb=True``, and in pixels
unless told ``ratio=True``. DALI's box operators take whatever they are given and run without an
error (measured on DALI 2.4): a box [0, 0.07, 0.652, 0.93] read as x, y, width, height and
flipped by ``bb_flip(ltrb=True)`` comes out [0.348, 0.07, 1, 0.93]; a box in pixels
[0, 0, 398, 300] flipped comes out [-397, 0, 1, 300].
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

# Box operators: the input that holds the boxes, and the output that gives them on (in the
# layout they were read; None: none does).
BOX_OPS: dict[str, tuple[int, int | None]] = {
    "bb_flip": (0, 0),
    "bbox_paste": (0, 0),
    "random_bbox_crop": (0, 2),
    "bbox_rotate": (0, 0),
    "box_encoder": (0, None),
}
# Box operators that work in 0-1 units of the image (a flip is 1 - x); given pixels they run,
# and the boxes come out off the image.
NEEDS_RATIO = frozenset({"bb_flip", "bbox_paste"})
# DALI's name for each layout ``bbox_layout`` spells.
_LAYOUTS = {"xyXY": True, "xyWH": False}


class BoxFormatMismatch(UserWarning):
    """A box operator reads the reader's boxes in another layout than the reader gives them."""


@dataclass(frozen=True)
class LayoutRead:
    """How a box operator reads boxes, where that is not how the reader gives them."""

    ltrb: bool  # reads left, top, right, bottom (else x, y, width, height)
    written: str  # its setting as written: 'ltrb=True (its default)', "" where it has none
    argument: str | None  # the argument that sets it (None: the operator reads one layout)
    other: str  # the setting on the operator that reads the reader's layout ("" for none)


def layout_words(ltrb: bool) -> str:
    return "left, top, right, bottom" if ltrb else "x, y, width, height"


def misread_layout(op: str, args: Mapping[str, Any], given_ltrb: bool) -> LayoutRead | None:
    """How box operator `op`, called with the constants `args`, reads boxes that the reader
    gives as left, top, right, bottom (`given_ltrb`) or not, where that is another layout;
    None where it reads theirs (or its layout is not a constant)."""
    reads: bool | None
    if op in ("random_bbox_crop", "bbox_rotate"):
        layout = args.get("bbox_layout")
        text = layout if isinstance(layout, str) else ""
        if text:
            reads, written, argument = _LAYOUTS.get(text), f'bbox_layout="{text}"', "bbox_layout"
        elif op == "random_bbox_crop" and "ltrb" in args:
            reads, written, argument = _flag(args, "ltrb", True), f"ltrb={args['ltrb']}", "ltrb"
        elif op == "random_bbox_crop":
            reads, written, argument = True, "ltrb=True (its default)", "bbox_layout"
        else:
            reads, written, argument = True, 'bbox_layout="xyXY" (its default)', "bbox_layout"
        other = 'bbox_layout="xyXY"' if given_ltrb else 'bbox_layout="xyWH"'
    elif op == "box_encoder":  # its boxes and anchors are left, top, right, bottom
        reads, written, argument, other = True, "", None, ""
    elif op in BOX_OPS:
        reads = _flag(args, "ltrb", False)
        written = f"ltrb={reads}" + ("" if "ltrb" in args else " (its default)")
        argument, other = "ltrb", f"ltrb={given_ltrb}"
    else:
        return None
    if reads is None or reads == given_ltrb:
        return None
    return LayoutRead(reads, written, argument, other)


def misread_said(read: LayoutRead, reader: str, given_ltrb: bool) -> str:
    """What is wrong with an operator reading boxes as `read` says, from `reader` (its name in
    the user's terms) that gives them as left, top, right, bottom (`given_ltrb`) or not."""
    how = f"with {read.written} " if read.written else ""
    return (
        f"it reads the boxes {how}as {layout_words(read.ltrb)}, but {reader} gives them as "
        f"{layout_words(given_ltrb)}, so the boxes it gives are off their objects; DALI runs it "
        "without an error, and so does the graph"
    )


def pixels_said(reader: str) -> str:
    """What is wrong with a :data:`NEEDS_RATIO` operator reading boxes `reader` gives in
    pixels."""
    return (
        f"it reads boxes in 0-1 units of the image, but {reader} gives them in pixels (no "
        "ratio=True), so the boxes it gives are off their objects (a box [0, 0, 398, 300] "
        "flipped comes out [-397, 0, 1, 300]); DALI runs it without an error, and so does the "
        "graph"
    )


def _flag(args: Mapping[str, Any], name: str, default: bool) -> bool | None:
    """A boolean argument's constant value (`default` where it is not set); None where it is
    not a constant (a draw or another node's output: not known before the run)."""
    value = args.get(name, default)
    return bool(value) if isinstance(value, (bool, int)) else None
