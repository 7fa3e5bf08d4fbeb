"""Small builders for the nodes the albumentations mappings make (no DALI import)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...expressions.nodes import constant, expression
from ...spec import Node, Random, Ref
from .registry import IMAGE


def step(node_id: str, op: str, args: dict[str, Any], reads: str = IMAGE) -> Node:
    """A node reading the image (or node `reads`)."""
    return Node(node_id, op, inputs=(Ref(reads),), args=args)


def draw(low: float, high: float) -> float | Random:
    """A constant where the range is one value, else a uniform draw per sample."""
    return float(low) if low == high else Random.uniform(low, high)


def uniform_node(node_id: str, low: float, high: float, shape: int | None = None) -> Node:
    """A ``random.uniform`` node: one draw per sample (`shape` values when given), for
    arguments several nodes or an expression share; where the range is one value, a constant
    of the same shape (DALI's uniform refuses an empty range)."""
    if low == high:
        size = 1 if shape is None else shape
        return constant(
            node_id, [float(low)] * size, "FLOAT", shape=[] if shape is None else [shape]
        )
    args: dict[str, Any] = {"range": [float(low), float(high)]}
    if shape is not None:
        args["shape"] = [shape]
    return Node(node_id, "random.uniform", args=args)


def values_node(node_id: str, values: Sequence[float], dtype: str | None = None) -> Node:
    """A ``random.uniform`` node drawing one of `values` with equal chances."""
    args: dict[str, Any] = {"values": [float(v) for v in values]}
    if dtype is not None:
        args["dtype"] = dtype
    return Node(node_id, "random.uniform", args=args)


def expr(node_id: str, text: str, inputs: Sequence[str]) -> Node:
    """An expression node; its text names `inputs` (node ids, :data:`IMAGE` included)."""
    return expression(node_id, text, [Ref(name) for name in inputs])


def const(node_id: str, values: Sequence[float], dtype: str = "FLOAT") -> Node:
    return constant(node_id, list(values), dtype)


def to_uint8(node_id: str, reads: str) -> Node:
    """Back to 8-bit pixels after float arithmetic (DALI's cast rounds and saturates)."""
    return Node(node_id, "cast", inputs=(Ref(reads),), args={"dtype": "UINT8"})


def lookup(node_id: str, table: Sequence[int]) -> Node:
    """A per-pixel 8-bit table (``table[v]`` for each value v), exact for any point function."""
    return step(
        node_id,
        "lookup_table",
        {"keys": list(range(256)), "values": [float(v) for v in table], "dtype": "UINT8"},
    )
