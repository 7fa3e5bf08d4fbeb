"""Whether a node runs per sample: an apply probability, or a condition on other nodes'
outputs (the clauses themselves are checked by :mod:`augexplorer.conditions`)."""

from __future__ import annotations

from ..catalog import PYTHON_FUNCTION, OpInfo
from ..conditions import condition_problems
from ..spec import Node, Probability
from .context import CheckContext
from .probabilities import PROBABILITY_FIX, probability_refused


def check_probability(
    ctx: CheckContext, node: Node, info: OpInfo, probability: Probability
) -> None:
    """Problems of operator `node` applied with `probability`."""
    refused = probability_refused(probability.p)
    if refused:
        ctx.problem(refused, node.id, "probability", fix=PROBABILITY_FIX)
        return
    if not node.inputs:
        ctx.problem(
            "only a node with an input can be applied with a probability",
            node.id,
            "probability",
            fix="remove the probability",
        )
        return
    outputs = node.args.get("num_outputs", 1) if info.name == PYTHON_FUNCTION else info.outputs
    if outputs != 1:
        ctx.problem(
            "only a single-output node can be applied with a probability",
            node.id,
            "probability",
            fix="remove the probability",
        )
        return
    ctx.check_seed(probability.seed, node.id, "probability")


def check_condition(ctx: CheckContext, node: Node, outputs: int) -> None:
    """Problems of `node`'s condition; `outputs`: the node's output count."""
    ctx.problems += condition_problems(node, outputs, ctx.calls, ctx.node_ids)
