"""Expression and constant nodes in a graph spec: what they hold and how they read. No DALI import.

- An expression node (op ``"expression"``) holds its text in the argument ``expression``, in the
  user's notation (``0.7 * blend_a + 0.3 * blend_b``); its inputs are the nodes the names in the
  text stand for, in the order the names first appear. Its numbers are editable as the arguments
  ``c0``, ``c1``, ... (text order): a value set there replaces the number written in the text.
- A constant node (op ``"constant"``) holds a constant array: ``values`` (flat, row-major),
  ``dtype`` (a DALI type name such as ``"FLOAT"``), ``shape`` (default: one dimension) and an
  optional ``layout``; it is DALI's ``types.Constant``.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..spec import Node, Ref
from . import CONSTANT, EXPRESSION, GRAPH_OPS
from .syntax import Parsed, parse, render

__all__ = ["CONSTANT", "EXPRESSION", "GRAPH_OPS", "constant", "display_text", "expression"]

TEXT = "expression"  # the argument holding an expression's text
CONSTANT_ARGS = ("values", "dtype", "shape", "layout")
_CONSTANT_NAME = re.compile(r"c(0|[1-9][0-9]{0,2})")


def constant_arg(index: int) -> str:
    """The argument that edits number `index` of an expression: ``c0``, ``c1``, ..."""
    return f"c{index}"


def constant_index(name: str) -> int | None:
    """The number an argument such as ``c2`` edits, or None for any other name."""
    return int(name[1:]) if _CONSTANT_NAME.fullmatch(name) else None


@functools.lru_cache(maxsize=512)
def parsed(text: str) -> Parsed:
    """:func:`~.syntax.parse`, once per text (a slider drag re-reads the same text)."""
    return parse(text)


def expression(node_id: str, text: str, inputs: Iterable[Ref | str] | None = None) -> Node:
    """An expression node; its inputs default to the nodes its names name, in order."""
    names = parsed(text).names
    refs = tuple(
        Ref.parse(ref) if isinstance(ref, str) else ref
        for ref in (names if inputs is None else inputs)
    )
    return Node(node_id, EXPRESSION, inputs=refs, args={TEXT: text})


def constant(
    node_id: str,
    values: Any,
    dtype: str | None = None,
    shape: Sequence[int] | None = None,
    layout: str | None = None,
) -> Node:
    """A constant node from a list or a NumPy array (whose shape and dtype it takes)."""
    args: dict[str, Any] = {}
    if hasattr(values, "dtype") and hasattr(values, "shape"):
        shape = list(values.shape) if shape is None else shape
        dtype = dtype or _numpy_dtype(values.dtype)
        values = values.ravel().tolist()
    args["values"] = list(values)
    args["dtype"] = dtype or "FLOAT"
    if shape is not None:
        args["shape"] = [int(size) for size in shape]
    if layout:
        args["layout"] = layout
    return Node(node_id, CONSTANT, args=args)


def _numpy_dtype(dtype: Any) -> str:
    name = str(dtype)
    names = {"float32": "FLOAT", "float64": "FLOAT", "float16": "FLOAT16", "bool": "BOOL"}
    return names.get(name, name.upper())


def constants(parsed_text: Parsed, args: Mapping[str, Any]) -> list[int | float]:
    """The expression's numbers as they are now: the text's, where no ``cN`` replaces them."""
    return [
        args.get(constant_arg(index), value) for index, value in enumerate(parsed_text.constants)
    ]


def display_text(node: Node) -> str:
    """The expression as the graph shows it: its numbers as edited, and each name as the node
    its input reads now (a rename shows), where that input is a node's first output."""
    text = node.args.get(TEXT)
    try:
        checked = parsed(text)
    except (ValueError, TypeError):
        return str(text)
    names = {
        name: ref.node
        for name, ref in zip(checked.names, node.inputs, strict=False)
        if ref.output == 0
    }
    try:
        return render(checked, names, constants(checked, node.args))
    except (TypeError, ValueError):  # an edited number that is not one: validation names it
        return checked.text
