"""Boxes given to a box operator in another layout than the one it reads, said at import.

The graph runs what the code runs, so the import keeps the call as written and says which call
reads which layout, with the line and the fix. What each operator reads, and the words, are
:mod:`augexplorer.box_layouts`' (the graph check says the same of a graph built in the explorer).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from ..box_layouts import (
    BOX_OPS,
    NEEDS_RATIO,
    BoxFormatMismatch,
    misread_layout,
    misread_said,
    pixels_said,
)
from .coco_upstream import coco_output_of, made_by
from .protobuf import OpRecord, Port
from .written_name import written_name

__all__ = ["BoxFormatMismatch", "box_format_mismatches"]

# Operators whose output holds their first input's data unchanged for this purpose (a branch
# of a conditional).
_PASSES_THROUGH = frozenset({"_conditional.split", "_conditional.merge"})


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
        if name not in BOX_OPS:
            continue
        data = [port for port in op.inputs if not port.is_argument]
        box_input = BOX_OPS[name][0]
        if len(data) <= box_input:
            continue
        reader = _reader_of(data[box_input].name, made, name_of)
        if reader is None:
            continue
        reader_args = _constants(reader)
        given_ltrb = bool(reader_args.get("ltrb", False))
        # its file is the box operator's, said before; each named as the code wrote it
        line = re.match(r" at line \d+", where(reader))
        reader_written = written_name(reader, "readers.coco")
        reader_name = f"{reader_written}{line.group(0) if line else ''}"
        read = misread_layout(name, _constants(op), given_ltrb)
        messages = []
        if read is not None:
            fix = f"ltrb={read.ltrb} on {reader_written}"
            fix += f", or {read.other} on {written_name(op, name)}" if read.other else ""
            messages.append(f"{misread_said(read, reader_name, given_ltrb)} (fix: {fix})")
        # both mistakes at once are both said: fixing one must not uncover the other later
        if name in NEEDS_RATIO and not reader_args.get("ratio", False):
            messages.append(f"{pixels_said(reader_name)} (fix: ratio=True on {reader_written})")
        said += [f"{written_name(op, name)}{where(op)}: {message}" for message in messages]
    return said


def _constants(op: OpRecord) -> dict[str, object]:
    return {name: argument.value() for name, argument in op.args.items()}


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
    box_op = BOX_OPS.get(name)
    if box_op is None or box_op[1] != index or len(data) <= box_op[0]:
        return None
    return data[box_op[0]].name
