"""Conditional blocks: chains of steps under one condition that run as one DALI ``if`` block.

DALI user code such as ``if p: x = fn.cast(x, dtype=FLOAT); x = x * 0.5; x = fn.cast(x,
dtype=UINT8)`` splits the batch once at the ``if`` and merges once at its end, so the steps in
between may change the type, layout or number of dimensions: only the block's last output is
merged with the input that passes through. A :class:`Block` is such a chain in a plan: steps
under the same condition, each reading the previous one's output as its first input, whose
in-between outputs nothing outside the chain reads. The builder and the live engine run a block
as one group; its in-between outputs hold only the samples where the block ran
(:meth:`Block.samples`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .catalog.auto_aug import is_auto_aug
from .plan import Plan, Step
from .spec import Ref


@dataclass(frozen=True)
class Block:
    """Two or more steps under one condition, in order; each reads the one before it."""

    steps: tuple[Step, ...]

    @property
    def first(self) -> Step:
        return self.steps[0]

    @property
    def last(self) -> Step:
        return self.steps[-1]

    @property
    def predicate(self) -> Ref:
        """The per-sample boolean the block runs under: its first step's (the others' compute
        the same values from the same clauses)."""
        assert self.first.apply is not None
        return self.first.apply

    @property
    def passed(self) -> Ref:
        """What passes through where the block does not run: its first step's first input."""
        return self.first.inputs[0]

    def inner(self) -> tuple[Step, ...]:
        """The steps whose outputs stay inside the block (all but the last)."""
        return self.steps[:-1]

    def reads(self) -> list[Ref]:
        """What the block reads from outside it, once each: inputs, argument inputs and the
        predicate (the other steps' own predicates are not read)."""
        inside = {step.id for step in self.steps}
        refs: list[Ref] = []
        for step in self.steps:
            for ref in (*step.inputs, *step.arg_inputs.values()):
                if ref.node not in inside and ref not in refs:
                    refs.append(ref)
        if self.predicate not in refs:
            refs.append(self.predicate)
        return refs


def samples(predicate: Sequence[Any]) -> tuple[int, ...]:
    """The samples where a block runs: those whose predicate (one value per sample) is true."""
    import numpy as np

    return tuple(index for index, value in enumerate(predicate) if bool(np.asarray(value)))


def find_blocks(plan: Plan) -> tuple[Block, ...]:
    """The plan's blocks, in plan order of their last steps. A step may also read earlier steps
    of its own block (an unsharp mask reads the image and its blur again), as user code inside
    an ``if`` reads the names it set there; only the last step's output leaves the block."""
    readers = _readers(plan)
    steps = {step.id: step for step in plan.steps}

    def follower(step: Step) -> Step | None:
        """The step that continues `step`'s chain, if any: the one reader that takes `step`'s
        output as its first input under the same condition."""
        if not _can_branch(step) or step.output_count != 1:
            return None
        after = [
            steps[reader]
            for reader in readers.get(step.id, set())
            if reader in steps
            and _can_branch(steps[reader])
            and steps[reader].inputs[:1] == (Ref(step.id),)
            and _condition(steps[reader]) == _condition(step)
        ]
        return after[0] if len(after) == 1 else None

    followed = {after.id for step in plan.steps if (after := follower(step)) is not None}
    blocks: list[Block] = []
    for step in plan.steps:
        if step.id in followed or follower(step) is None:
            continue  # not the head of a chain
        chain = [step]
        while (after := follower(chain[-1])) is not None:
            chain.append(after)
        blocks += _closed(chain, readers)
    order = {step.id: index for index, step in enumerate(plan.steps)}
    return tuple(sorted(blocks, key=lambda block: order[block.last.id]))


def _closed(chain: list[Step], readers: Mapping[str, set[str]]) -> list[Block]:
    """`chain` as one block where every in-between output is read only by later steps of the
    chain; otherwise cut after each step read by anything but the next one (its output leaves
    the block, merged), keeping the pieces of two steps or more."""
    later = [{step.id for step in chain[index + 1 :]} for index in range(len(chain))]
    if all(readers.get(step.id, set()) <= later[i] for i, step in enumerate(chain[:-1])):
        return [Block(tuple(chain))]
    pieces: list[list[Step]] = [[]]
    for index, step in enumerate(chain):
        pieces[-1].append(step)
        if index < len(chain) - 1 and readers.get(step.id, set()) != {chain[index + 1].id}:
            pieces.append([])
    return [Block(tuple(piece)) for piece in pieces if len(piece) >= 2]


def block_index(blocks: Sequence[Block]) -> Mapping[str, Block]:
    """Each step of `blocks`, by id, to its block."""
    return {step.id: block for block in blocks for step in block.steps}


def _can_branch(step: Step) -> bool:
    # a policy of DALI's auto_aug makes its own branches (builder.call_step runs it apart)
    return step.role == "node" and step.apply is not None and not is_auto_aug(step.op)


def _condition(step: Step) -> tuple[Any, ...]:
    """What decides where `step` runs: its clauses, or its own coin flip (probability)."""
    return ("when", step.when) if step.when else ("apply", step.apply)


def _readers(plan: Plan) -> dict[str, set[str]]:
    """Who reads each step's outputs: step ids, and ``""`` for the plan's outputs."""
    readers: dict[str, set[str]] = {}
    for step in plan.steps:
        for node in step.upstream_nodes:
            readers.setdefault(node, set()).add(step.id)
    for ref in plan.outputs.values():
        readers.setdefault(ref.node, set()).add("")
    return readers
