"""A random node that feeds one argument, taken into that argument as its own draw.

DALI code draws an argument with a node of its own (``angle = fn.random.uniform(range=(-20,
20)); fn.rotate(images, angle=angle)``, or an ``ops.Uniform`` called in ``define_graph``), and
imported code keeps that node. A schedule drives the bounds of an argument's own draw
(``rotate.angle.high``), so such an argument had nothing to schedule. Where the node is a plain
uniform, normal or coin-flip draw, seeded, read by that one argument and nothing else, it is the
same draw as the argument's own `Random` with the node's seed: DALI gives the same values, and
the pictures are the same bit for bit (tests/test_draw_inlining.py).
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from .graph import Node, Random, Ref

if TYPE_CHECKING:
    from .graph import GraphSpec

# each plain draw's operator, its arguments as the Random's parameters, and their defaults
_DRAWS: dict[str, tuple[str, dict[str, float]]] = {
    "random.uniform": ("uniform", {}),
    "random.normal": ("normal", {"mean": 0.0, "stddev": 1.0}),
    "random.coin_flip": ("coin_flip", {"probability": 0.5}),
}


def draw_of(spec: GraphSpec, node_id: str, arg: str) -> Random | None:
    """The draw argument `arg` of node `node_id` would hold as its own: where it reads a plain
    seeded draw node that nothing else reads; else None."""
    node = spec.node(node_id) if node_id in spec else None
    value = node.args.get(arg) if isinstance(node, Node) else None
    if not isinstance(value, Ref) or value.output != 0 or value.node not in spec:
        return None
    drawer = spec.node(value.node)
    if (
        not isinstance(drawer, Node)
        or drawer.op not in _DRAWS
        or drawer.seed is None
        or drawer.inputs
        or drawer.when
        or drawer.probability is not None
        or drawer.device not in (None, "cpu")
        or _reads(spec, drawer.id) != 1
    ):
        return None
    dist, defaults = _DRAWS[drawer.op]
    args = dict(drawer.args)
    if dist == "uniform":
        bounds = args.pop("range", [-1.0, 1.0])
        if not isinstance(bounds, list | tuple) or len(bounds) != 2:
            return None
        params = {"low": float(bounds[0]), "high": float(bounds[1])}
    else:
        params = {name: float(args.pop(name, default)) for name, default in defaults.items()}
    if dist == "coin_flip" and args.get("dtype") in ("INT32", None):
        args.pop("dtype", None)  # DALI's default type for a coin
    if dist != "coin_flip" and args.get("dtype") in ("FLOAT", None):
        args.pop("dtype", None)  # DALI's default type for a draw
    if args:  # a shape, a discrete `values`, another type: not a plain draw
        return None
    return Random(dist, seed=drawer.seed, **params)  # type: ignore[arg-type]


def inline_draw(spec: GraphSpec, node_id: str, arg: str) -> GraphSpec:
    """`spec` with the draw node that argument `arg` of `node_id` reads taken into the argument
    (:func:`draw_of`); `spec` itself where there is none."""
    draw = draw_of(spec, node_id, arg)
    if draw is None:
        return spec
    node = spec.node(node_id)
    assert isinstance(node, Node)
    drawer = node.args[arg]
    assert isinstance(drawer, Ref)
    taken = dataclasses.replace(node, args={**node.args, arg: draw})
    return spec.replace_node(taken).remove(drawer.node)


def _reads(spec: GraphSpec, node_id: str) -> int:
    """How many times the graph reads node `node_id`: inputs, argument inputs, conditions and
    named outputs, each once."""
    count = sum(ref.node == node_id for ref in spec.outputs.values())
    for node in spec.nodes:
        if not isinstance(node, Node):
            continue
        count += sum(ref.node == node_id for ref in node.inputs)
        count += sum(isinstance(v, Ref) and v.node == node_id for v in node.args.values())
        count += sum(clause.ref.node == node_id for clause in node.when)
    return count
