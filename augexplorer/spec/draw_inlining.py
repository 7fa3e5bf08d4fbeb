"""A random node that feeds one argument, taken into that argument as its own draw.

DALI code draws an argument with a node of its own (``angle = fn.random.uniform(range=(-20,
20)); fn.rotate(images, angle=angle)``, or an ``ops.Uniform`` called in ``define_graph``), and
imported code keeps that node. A schedule drives the bounds of an argument's own draw
(``rotate.angle.high``), so such an argument had nothing to schedule. Where the node is a plain
uniform, normal or coin-flip draw with constant parameters, read by that one argument and
nothing else, in the type the argument's own draw takes, it is the same draw as the argument's
own `Random` with the node's seed (the one lowering derives where the code set none): DALI gives
the same values, and the pictures are the same bit for bit (tests/test_draw_inlining.py).
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from .graph import Node, Random, Ref, pinned_seeds

if TYPE_CHECKING:
    from .graph import GraphSpec

# each plain draw's operator, its arguments as the Random's parameters, their defaults, and the
# type DALI draws in when the node sets none
_DRAWS: dict[str, tuple[str, dict[str, float], str]] = {
    "random.uniform": ("uniform", {}, "FLOAT"),
    "random.normal": ("normal", {"mean": 0.0, "stddev": 1.0}, "FLOAT"),
    "random.coin_flip": ("coin_flip", {"probability": 0.5}, "INT32"),
}


def draw_of(spec: GraphSpec, node_id: str, arg: str) -> Random | None:
    """The draw argument `arg` of node `node_id` would hold as its own: where it reads a plain
    draw node that nothing else reads (nor schedules), drawing in the type the argument's own
    draw would; else None. A node left unseeded gets the seed lowering derives for it."""
    node = spec.node(node_id) if node_id in spec else None
    value = node.args.get(arg) if isinstance(node, Node) else None
    if not isinstance(value, Ref) or value.output != 0 or value.node not in spec:
        return None
    drawer = spec.node(value.node)
    if (
        not isinstance(drawer, Node)
        or drawer.op not in _DRAWS
        or drawer.inputs
        or drawer.when
        or drawer.probability is not None
        or drawer.device not in (None, "cpu")
        or _reads(spec, drawer.id) != 1
        or any(target.node == drawer.id for target in spec.schedules)
    ):
        return None
    dist, defaults, default_type = _DRAWS[drawer.op]
    args = dict(drawer.args)
    if dist == "uniform":
        bounds = args.pop("range", [-1.0, 1.0])
        if not isinstance(bounds, list | tuple) or len(bounds) != 2 or not _numbers(bounds):
            return None
        params = {"low": float(bounds[0]), "high": float(bounds[1])}
    else:
        values = [args.pop(name, default) for name, default in defaults.items()]
        if not _numbers(values):  # a parameter fed by another node: no plain draw
            return None
        params = {name: float(v) for name, v in zip(defaults, values, strict=True)}
    drawn_type = args.pop("dtype", default_type)
    assert isinstance(node, Node)  # it holds the Ref
    if args or drawn_type != _argument_type(node, arg):  # a shape, `values`, another type
        return None
    seed = pinned_seeds(drawer, spec.seed, random=True).seed
    return Random(dist, seed=seed, **params)  # type: ignore[arg-type]


def _numbers(values: list[object] | tuple[object, ...]) -> bool:
    return all(isinstance(v, int | float) and not isinstance(v, bool) for v in values)


def _argument_type(node: Node, arg: str) -> str | None:
    """The type an own draw of argument `arg` is drawn in (:func:`~augexplorer.lowering.
    random_call`), from the operator's schema; None for an argument the catalog lacks."""
    from ..catalog import load_catalog
    from ..lowering import random_call

    info = load_catalog().get(node.op)
    found = next((a for a in info.args if a.name == arg), None) if info is not None else None
    if found is None:
        return None
    return str(random_call(Random.uniform(0, 1), found.kind)[1]["dtype"])


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
    return count + sum(ref.node == node_id for node in spec.operators() for ref in node.reads())
