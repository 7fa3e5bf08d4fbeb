"""An expression's text following its inputs when the graph is rewired (a rename, a removal, a
move): each name whose input now reads another node's first output becomes that node's name,
with the rest of the text exactly as the user wrote it. No DALI or spec import."""

from __future__ import annotations

import ast
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from .syntax import MATH, ExpressionError, parse


class _Edge(Protocol):
    @property
    def node(self) -> str: ...

    @property
    def output(self) -> int: ...


TEXT = "expression"


def follow_inputs(
    args: Mapping[str, Any], old: Sequence[_Edge], new: Sequence[_Edge]
) -> Mapping[str, Any]:
    """`args` with the expression text renamed for inputs that moved from `old` to `new`;
    `args` itself when nothing is renamed (an invalid text is left for validation)."""
    text = args.get(TEXT)
    if not isinstance(text, str):
        return args
    try:
        names = parse(text).names
    except ExpressionError:
        return args
    renames: dict[str, str] = {}
    for index, name in enumerate(names[: min(len(old), len(new))]):
        target = new[index]
        if target == old[index] or target.output != 0 or not target.node.isidentifier():
            continue
        if target.node == MATH:  # in the text, `math` is DALI's nvidia.dali.math
            continue
        if target.node in names or target.node in renames.values():
            continue  # two names for one node would no longer say which input is which
        renames[name] = target.node
    if not renames:
        return args
    return {**args, TEXT: renamed(text.strip(), renames)}


def renamed(text: str, renames: Mapping[str, str]) -> str:
    """`text` with the names in `renames` replaced where they stand, nothing else touched."""
    lines = text.split("\n")
    spots = [
        (node.lineno - 1, node.col_offset, node.end_col_offset or node.col_offset, node.id)
        for node in ast.walk(ast.parse(text, mode="eval"))
        if isinstance(node, ast.Name) and node.id in renames
    ]
    for line, start, end, name in sorted(spots, reverse=True):
        # offsets are in UTF-8 bytes; names are ASCII identifiers, the text around may not be
        encoded = lines[line].encode()
        lines[line] = (encoded[:start] + renames[name].encode() + encoded[end:]).decode()
    return "\n".join(lines)
