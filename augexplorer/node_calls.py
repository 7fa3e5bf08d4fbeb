"""A node's own DALI call as a :class:`~augexplorer.plan.Step`, without what lowering adds.

Shared by checking and lowering: later checks read the calls of the nodes checked before them
(how many outputs a node has, where it runs, whether a predicate gives booleans), and lowering
completes the same calls with their random draws, apply gate and seed. So the two cannot
disagree about a node's device or outputs, and nothing is resolved twice.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .catalog import OpInfo
from .plan import Step
from .spec import Clause, Node, Ref, Source


def source_call(source: Source, seed: int | None = None) -> Step:
    """The reader call of `source` (sources always read on the CPU)."""
    return Step(
        id=source.id,
        op=source.op,
        device="cpu",
        role="source",
        origin=source.id,
        seed=seed,
        source=source,
    )


def operator_call(
    node: Node,
    info: OpInfo,
    device: str,
    args: Mapping[str, Any],
    *,
    arg_inputs: Mapping[str, Ref] | None = None,
    apply: Ref | None = None,
    when: tuple[Clause, ...] = (),
    seed: int | None = None,
) -> Step:
    """The call of operator `node` on `device` with its constant arguments `args`; lowering
    gives the rest (arg_inputs, apply, when, seed) here too: copying a step to add them would
    cost as much again, on every full validation."""
    return Step(
        id=node.id,
        op=info.name,
        device=device,
        role="node",
        origin=node.id,
        inputs=tuple(node.inputs),
        args=args,
        arg_inputs=arg_inputs if arg_inputs is not None else {},
        apply=apply,
        when=when,
        seed=seed,
        info=info,
    )
