"""Random operators whose seeds DALI derives from the pipeline's seed.

``Pipeline.serialize()`` records the seeds written in the code, not the ones DALI derives for
operators given none (from the pipeline's ``seed=``, in the order operators are added to its
backend). The explorer gives such operators seeds of its own, so its draws and shuffles are of
the same distributions but not the same values: an import says so rather than letting the two
differ silently.
"""

from __future__ import annotations

from ..catalog import load_catalog
from ..spec import GraphSpec, Node, Source


class DrawsDiffer(UserWarning):
    """An imported graph draws other values than its pipeline did: DALI derived some seeds."""


def unseeded_random_nodes(spec: GraphSpec) -> list[str]:
    """Nodes that draw at random with no seed of their own: readers that shuffle, random
    operators (random.*, random crops, coin flips)."""
    catalog = load_catalog()
    found = []
    for node in spec.nodes:
        if isinstance(node, Source):
            if node.shuffle and node.seed is None and node.kind != "arrays":
                found.append(node.id)
        elif isinstance(node, Node) and node.seed is None:
            info = catalog.get(node.op)
            if info is not None and info.random:
                found.append(node.id)
    return found


def draws_differ_message(pipeline_seed: int, nodes: list[str]) -> str:
    names = ", ".join(repr(n) for n in nodes)
    return (
        f"the pipeline's seed={pipeline_seed} gave {names} seeds that DALI derives inside, which "
        "its serialized form does not record: the imported graph shuffles and draws with seeds "
        "of its own (same distributions, other values), so its batches will not equal the "
        "pipeline's (fix: give those operators seed=... in your code to import them bit for bit)"
    )
