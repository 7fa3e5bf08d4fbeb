"""RandomOrder([...]): torchvision applies its transforms in an order shuffled per image (v1's
``random.shuffle``, v2's ``torch.randperm``: each of the n! orders alike often).

Up to :data:`MOST_ORDERED` transforms, one of the n! orders is drawn per sample (uniformly,
by a seeded ``random.choice``) and the transforms are ported once per order, each copy under
the clause of its order: a node whose clause does not hold passes its input on, so each sample
goes through its own order alone. Past it, the copies grow as n * n! (96 nodes' worth for
four transforms), so the transforms run once, in the order written, graded approximate.
"""

from __future__ import annotations

import dataclasses
from itertools import permutations

from ..build import Grade, PortContext
from ..model import PortedStep, Refusal, TransformCall
from .arguments import IMAGE_TYPE
from .grades import grade

# The most transforms whose orders are all ported: 3 -> 6 orders, 18 copies
MOST_ORDERED = 3

WRITTEN = (
    f"More than {MOST_ORDERED} transforms: they run in the order written, where torchvision "
    "shuffles it per image (the n! orders would put n * n! transforms in the graph: 96 for "
    f"4) (fix: split it into RandomOrder groups of at most {MOST_ORDERED}, where their "
    "orders need not mix)."
)
CHANGED = (
    "Its transforms change the image's kind (a tensor conversion, its channels) differently "
    "in different orders: they run in the order written, where torchvision shuffles it (fix: "
    "move the conversion out of the RandomOrder)."
)


def orders(count: int) -> list[tuple[int, ...]]:
    """The orders, by the index the draw gives: itertools' order (0 is the order written)."""
    return list(permutations(range(count)))


def random_order(call: TransformCall, context: PortContext) -> Grade:
    """RandomOrder(transforms): one copy of the transforms per order, picked per sample."""
    children = list(call.children)
    if len(children) < 2:
        context.port_children(children)
        return Grade("exact", ("One transform or none: one order.",))
    if len(children) > MOST_ORDERED:
        context.port_children(children)
        return Grade("approximate", (WRITTEN,))
    steps_from, refusals_from = len(context.steps), len(context.refusals)
    saved_nodes, saved_image, saved_state = list(context.nodes), context.image, context.state
    clauses = context.choice("random_order", [1.0] * len(orders(len(children))))
    ended: dict[str, object] | None = None
    for order, clause in zip(orders(len(children)), clauses, strict=True):
        context.state = dict(saved_state)
        context.port_children([children[i] for i in order], [clause])
        if ended is not None and _kind(context.state) != _kind(ended):
            # undo the copies: one order, as written
            context.nodes, context.image, context.state = saved_nodes, saved_image, saved_state
            del context.steps[steps_from:], context.refusals[refusals_from:]
            context.port_children(children)
            return Grade("approximate", (CHANGED,))
        ended = context.state
    _merge_copies(context, steps_from, refusals_from)
    return grade(call.name)


def _kind(state: dict[str, object]) -> dict[str, object]:
    """What a transform leaves the image as (its layout, type, channels, dtype); the ids of
    the nodes that made it differ from copy to copy."""
    kept = ("layout", IMAGE_TYPE, "channels", "dtype", "scale", "chw_pending")
    return {key: state.get(key) for key in kept}


def _merge_copies(context: PortContext, steps_from: int, refusals_from: int) -> None:
    """One step per transform (its copies' nodes together) and one refusal per refused one,
    in the order written (the first order's)."""
    merged: dict[int, PortedStep] = {}
    for step in context.steps[steps_from:]:
        first = merged.get(id(step.call))
        if first is None:
            merged[id(step.call)] = step
        else:
            merged[id(step.call)] = dataclasses.replace(first, nodes=(*first.nodes, *step.nodes))
    context.steps[steps_from:] = list(merged.values())
    refused: dict[int, Refusal] = {}
    for refusal in context.refusals[refusals_from:]:
        refused.setdefault(id(refusal.call), refusal)
    context.refusals[refusals_from:] = list(refused.values())


__all__ = ["MOST_ORDERED", "orders", "random_order"]
