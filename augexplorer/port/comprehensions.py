"""Comprehensions over settled constants, read as the values they make:
``CROP = tuple(int(s * 0.875) for s in SIZE)`` is ``(196, 196)`` where SIZE is ``(224, 224)``.

Only one ``for`` over a known list or tuple, its target a plain name, is read; each item is
computed by putting the loop value in place of the name and reading the result as any value
is, so the same calls are allowed as elsewhere (int, float, round, min, max, tuple, list).
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Callable
from typing import Any

from .model import Unknown

_LONGEST = 4096  # a longer loop is no setting a pipeline takes: left to the file's run
SEQUENCE_CALLS = {"tuple": tuple, "list": list}


class _PutValues(ast.NodeTransformer):
    """Puts literals in place of the names read (the loop's variable, the constants)."""

    def __init__(self, values: dict[str, Any]) -> None:
        self.values = values

    def visit_Name(self, node: ast.Name) -> ast.expr:
        if node.id not in self.values:
            return node
        return ast.copy_location(ast.Constant(self.values[node.id]), node)


def comprehension_items(
    node: ast.ListComp | ast.GeneratorExp, read: Callable[[ast.expr], Any]
) -> list[Any] | None:
    """The items a comprehension makes where its loop runs over a settled list or tuple of
    literals and each item (and ``if``) reads to a known value; None otherwise."""
    if len(node.generators) != 1:
        return None
    loop = node.generators[0]
    if loop.is_async or not isinstance(loop.target, ast.Name):
        return None
    over = read(loop.iter)
    if not _literals(over) or len(over) > _LONGEST:
        return None
    parts = [node.elt, *loop.ifs]
    # the other names are read where the file has them (a parameter, a constant), once
    settled: dict[str, Any] = {}
    for name in _names_read(parts, called=_called(parts)):
        if name.id != loop.target.id and name.id not in settled:
            settled[name.id] = read(name)
            if not _literals([settled[name.id]]):
                return None
    items = []
    for item in over:
        put = _PutValues({**settled, loop.target.id: item})
        kept = [read(put.visit(copy.deepcopy(test))) for test in loop.ifs]
        if any(isinstance(k, Unknown) for k in kept):
            return None
        if not all(kept):
            continue
        found = read(put.visit(copy.deepcopy(node.elt)))
        if isinstance(found, Unknown):
            return None
        items.append(found)
    return items


def _literals(value: Any) -> bool:
    """Whether `value` is a list or tuple of plain literals (what ast.Constant holds)."""
    return isinstance(value, list | tuple) and all(
        isinstance(item, int | float | str | bool) for item in value
    )


def _called(parts: list[ast.expr]) -> set[ast.Name]:
    return {
        node.func
        for part in parts
        for node in ast.walk(part)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
    }


def _names_read(parts: list[ast.expr], called: set[ast.Name]) -> list[ast.Name]:
    return [
        node
        for part in parts
        for node in ast.walk(part)
        if isinstance(node, ast.Name) and node not in called
    ]
