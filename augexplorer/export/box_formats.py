"""Boxes given to a box operator in another layout than the one it reads, said at import.

``readers.coco`` gives boxes as x, y, width, height unless told ``ltrb=True``. DALI's box
operators take whatever they are given: ``bb_flip(ltrb=True)`` or ``random_bbox_crop`` (whose
default is ``ltrb=True``) on x, y, width, height boxes runs and gives boxes off their objects,
with no error (measured on DALI 2.4: a box [0, 0, 0.88, 1] flipped as left, top, right, bottom
comes out [0.12, 0, 1, 1]). The graph runs what the code runs, so the import keeps the call as
written and says which call reads which layout, with the line and the fix.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from .coco_upstream import coco_output_of, made_by
from .protobuf import OpRecord, Port

# Box operators: the input that holds the boxes, and the output that gives them on (in the
# layout they were read).
_BOX_OPS: dict[str, tuple[int, int | None]] = {
    "bb_flip": (0, 0),
    "bbox_paste": (0, 0),
    "random_bbox_crop": (0, 2),
    "bbox_rotate": (0, 0),
    "box_encoder": (0, None),
}
# Box operators that work in 0-1 units of the image (a flip is 1 - x); given pixels they run,
# and the boxes come out off the image (measured on DALI 2.4).
_NEEDS_RATIO = frozenset({"bb_flip", "bbox_paste"})
# Operators whose output holds their first input's data unchanged for this purpose (a branch
# of a conditional).
_PASSES_THROUGH = frozenset({"_conditional.split", "_conditional.merge"})


class BoxFormatMismatch(UserWarning):
    """A box operator reads the reader's boxes in another layout than the reader gives them."""


def _words(ltrb: bool) -> str:
    return "left, top, right, bottom" if ltrb else "x, y, width, height"


def box_format_mismatches(
    ops: list[OpRecord], name_of: Callable[[OpRecord], str], where: Callable[[OpRecord], str]
) -> list[str]:
    """What to say of each box operator in `ops` that reads a ``readers.coco``'s boxes in a
    layout the reader does not give them; `name_of` gives an operator's fn name, `where` its
    place in the user's code."""
    made = made_by(ops)
    said: list[str] = []
    for op in ops:
        name = name_of(op)
        if name not in _BOX_OPS:
            continue
        data = [port for port in op.inputs if not port.is_argument]
        box_input = _BOX_OPS[name][0]
        if len(data) <= box_input:
            continue
        reader = _reader_of(data[box_input].name, made, name_of)
        if reader is None:
            continue
        message = _mismatch(op, name, _flag(reader, "ltrb"), where(reader))
        if message is None and name in _NEEDS_RATIO and not _flag(reader, "ratio"):
            message = _in_pixels(name, where(reader))
        if message is not None:
            said.append(f"fn.{name}{where(op)}: {message}")
    return said


def _in_pixels(name: str, reader_place: str) -> str:
    """What is wrong with `name` reading the reader's boxes in pixels."""
    line = re.match(r" at line \d+", reader_place)
    reader = f"fn.readers.coco{line.group(0) if line else ''}"
    return (
        f"it reads boxes in 0-1 units of the image, but {reader} gives them in pixels (no "
        "ratio=True), so the boxes it gives are off their objects (a box [0, 0, 398, 300] "
        "flipped comes out [-397, 0, 1, 300]); DALI runs it without an error, and so does the "
        "graph (fix: ratio=True on fn.readers.coco)"
    )


def _reader_of(
    output: str,
    made: dict[str, tuple[OpRecord, int]],
    name_of: Callable[[OpRecord], str],
) -> OpRecord | None:
    """The ``readers.coco`` whose boxes `output` holds, through box operators and conditionals;
    None where it holds something else (boxes padded, cast, computed)."""
    found = coco_output_of(output, made, name_of, _passes_boxes)
    return found[0] if found is not None and found[1] == 1 else None


def _passes_boxes(name: str, index: int, data: Sequence[Port]) -> str | None:
    """The input whose boxes `name`'s output `index` gives on (in the layout they were read)."""
    if name in _PASSES_THROUGH and data:
        return data[0].name
    box_op = _BOX_OPS.get(name)
    if box_op is None or box_op[1] != index or len(data) <= box_op[0]:
        return None
    return data[box_op[0]].name


def _flag(op: OpRecord, name: str, default: bool = False) -> bool:
    argument = op.args.get(name)
    return bool(argument.value()) if argument is not None else default


def _mismatch(op: OpRecord, name: str, given_ltrb: bool, reader_place: str) -> str | None:
    """What is wrong with `op` reading boxes the reader gives as left, top, right, bottom
    (`given_ltrb`) or not; None where nothing is."""
    reads_ltrb: bool | None
    if name in ("random_bbox_crop", "bbox_rotate"):
        layout = op.args.get("bbox_layout")
        text = str(layout.value()) if layout is not None else ""
        if text:
            reads_ltrb = {"xyXY": True, "xyWH": False}.get(text)
            written = f'bbox_layout="{text}"'
        elif name == "random_bbox_crop":
            reads_ltrb, written = _flag(op, "ltrb", True), "ltrb=True (its default)"
        else:
            reads_ltrb, written = True, 'bbox_layout="xyXY" (its default)'
        other = 'bbox_layout="xyXY"' if given_ltrb else 'bbox_layout="xyWH"'
    elif name == "box_encoder":  # its boxes and anchors are left, top, right, bottom
        reads_ltrb, written, other = True, "", ""
    else:
        reads_ltrb = _flag(op, "ltrb")
        written = f"ltrb={reads_ltrb}" + ("" if "ltrb" in op.args else " (its default)")
        other = f"ltrb={given_ltrb}"
    if reads_ltrb is None or reads_ltrb == given_ltrb:
        return None
    line = re.match(r" at line \d+", reader_place)  # its file is the box operator's, said before
    reader = f"fn.readers.coco{line.group(0) if line else ''}"
    fix = f"ltrb={reads_ltrb} on fn.readers.coco" + (f", or {other} on fn.{name}" if other else "")
    how = f"with {written} " if written else ""
    return (
        f"it reads the boxes {how}as {_words(reads_ltrb)}, but {reader} gives them as "
        f"{_words(given_ltrb)}, so the boxes it gives are off their objects; DALI runs it "
        f"without an error, and so does the graph (fix: {fix})"
    )
