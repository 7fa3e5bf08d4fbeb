"""Why a transform's port alone gives other pixels on a second run where the original, run
alone, gives the same ones: the node that draws, and the transform it was made for. A transform
with nothing to draw (``ToImage``) would otherwise read "the port draws its parameters at
random" in the comparison's table."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..spec import GraphSpec, Node
from .model import PortedStep

OWN_DRAWS = "no pixel figure: the port draws its parameters at random"


def drawing_node(spec: GraphSpec, images: Sequence[np.ndarray]) -> Node | None:
    """The first node of `spec` (reading `images`) whose output differs between two runs with
    other draws; None where none does."""
    from ..engine import Session

    session = Session(spec, (list(images), [0] * len(images)), device_id=None)
    first = session.run()
    again = session.reroll()
    for node_id in first.node_ids():
        before, after = first.arrays(node_id), again.arrays(node_id)
        if len(before) != len(after) or any(
            a.shape != b.shape or not np.array_equal(a, b)
            for a, b in zip(before, after, strict=True)
        ):
            found = spec.node(node_id)
            return found if isinstance(found, Node) else None
    return None


def port_draws_note(step: PortedStep, spec: GraphSpec, images: Sequence[np.ndarray]) -> str:
    """The note for `step`, whose original alone gave the same pixels under two seeds and whose
    port alone (`spec`) did not: which node draws, named with the transform it was made for."""
    node = drawing_node(spec, images)
    if node is None or node.id in {n.id for n in step.nodes}:
        return OWN_DRAWS
    made_for = node.origin.transform if node.origin is not None else ""
    whose = f", made for {made_for}," if made_for and made_for != step.call.text() else ""
    return (
        f"no pixel figure: {step.call.name} has nothing to draw, but its port alone runs "
        f"{node.id}{whose} which draws at random, so the two sides' pixels cannot be matched "
        "one to one"
    )


def coin_rate(
    spec: GraphSpec, steps: Sequence[PortedStep], images: Sequence[np.ndarray], draws: int
) -> tuple[int, int, float] | None:
    """How often the one coin of `steps` (a transform's ``random.coin_flip`` that its nodes
    run under) said yes over at least `draws` samples of `spec` (reading `images`), its
    successes, trials and probability; None where there is no such coin (a single node takes
    its probability itself, which the statistics count). Read from the coin itself: a
    transform whose nodes each run on a part of the images (CLAHE's clip-limit parts) has no
    node that runs wherever it applies."""
    nodes = [node for step in steps for node in step.nodes]
    gating = {clause.ref.node for node in nodes for clause in node.when}
    coins = [n for n in nodes if n.op == "random.coin_flip" and n.id in gating]
    if len(coins) != 1 or not images:
        return None
    probability = coins[0].args.get("probability", 0.5)
    if isinstance(probability, bool) or not isinstance(probability, (int, float)):
        return None
    flags = [bool(value) for value in node_values(spec, coins[0].id, images, draws)]
    return sum(flags), len(flags), float(probability)


def node_values(
    spec: GraphSpec, node_id: str, images: Sequence[np.ndarray], draws: int
) -> list[float]:
    """The first value of node `node_id`'s output, sample by sample, over at least `draws`
    samples of `spec` (reading `images`; further runs draw anew): a coin's flag, a pick's
    index. Read from the node itself, not from what runs under it."""
    from ..engine import Session

    session = Session(spec, (list(images), [0] * len(images)), device_id=None)
    result = session.run()
    values: list[float] = []
    while True:
        values += [float(np.asarray(a).reshape(-1)[0]) for a in result.arrays(node_id)]
        if len(values) >= draws:
            return values
        result = session.reroll()


__all__ = ["OWN_DRAWS", "coin_rate", "drawing_node", "node_values", "port_draws_note"]
