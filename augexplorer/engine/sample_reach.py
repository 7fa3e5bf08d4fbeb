"""Which steps made each sample of a node's output: the draws a tile's caption may name.

A node's output depends on every step upstream of it, but not on every step for every sample. A
node that did not run on a sample (its coin flip or its condition said no, as in a ported
``OneOf`` whose other branch was chosen) passed its input on unchanged there: on that sample its
own draws, and whatever fed only them, made nothing of the picture. A caption that named them
would read as values applied to the picture, which they were not.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..plan import Plan, Step
    from .result import RunResult

# node -> argument -> (the step that drew it, one value per sample of the batch)
DrawsByStep = Mapping[str, Mapping[str, tuple[str, list[Any]]]]


def samples_run(result: RunResult, step: Step) -> frozenset[int] | None:
    """The samples of the batch `step` ran on; None where it ran on every one."""
    held = result.steps[step.id].samples
    ran = None if held is None else frozenset(held)
    if step.apply is None:
        return ran
    flags = result.arrays(step.apply)
    decided = result.sample_indices(step.apply)
    applied = frozenset(
        sample for sample, flag in zip(decided, flags, strict=True) if bool(flag.reshape(-1)[0])
    )
    return applied if ran is None else ran & applied


def samples_run_by_step(result: RunResult) -> dict[str, frozenset[int]]:
    """The samples each step ran on, for the steps that did not run on every sample."""
    ran = {step.id: samples_run(result, step) for step in result.plan.steps}
    return {step: samples for step, samples in ran.items() if samples is not None}


def steps_behind_each_sample(
    plan: Plan, ran: Mapping[str, frozenset[int]], step_id: str
) -> list[frozenset[str]]:
    """Per sample of the batch, the steps whose outputs, draws or coin flips made that sample of
    step `step_id`'s output (`ran`: :func:`samples_run_by_step`). Where a step did not run on a
    sample, what it would have read is left out but for the input it passed on and the flip or
    condition that skipped it."""
    steps = {step.id: step for step in plan.steps}
    behind: list[frozenset[str]] = []
    for sample in range(plan.spec.batch_size):
        seen: set[str] = set()
        stack = [step_id]
        while stack:
            current = stack.pop()
            if current in seen or current not in steps:
                continue
            seen.add(current)
            step = steps[current]
            runs = ran.get(current)
            if runs is None or sample in runs:
                stack.extend(step.upstream_nodes)
                continue
            stack.extend(ref.node for ref in step.inputs[:1])
            if step.apply is not None:
                stack.append(step.apply.node)
        behind.append(frozenset(seen))
    return behind


def draws_that_made(
    draws: DrawsByStep, behind: list[frozenset[str]]
) -> dict[str, dict[str, list[Any]]]:
    """`draws` by node and argument, each value None on a sample whose picture its step did not
    make (`behind`: :func:`steps_behind_each_sample`)."""
    return {
        node: {
            arg: [
                value if sample < len(behind) and step in behind[sample] else None
                for sample, value in enumerate(values)
            ]
            for arg, (step, values) in args.items()
        }
        for node, args in draws.items()
    }
