"""Conditional blocks: chains of steps under one condition that run as one DALI ``if`` block.

DALI user code such as ``if p: x = fn.cast(x, dtype=FLOAT); x = x * 0.5; x = fn.cast(x,
dtype=UINT8)`` splits the batch once at the ``if`` and merges once at its end, so the steps in
between may change the type, layout or number of dimensions: only the block's last output is
merged with the input that passes through. A :class:`Block` is such a chain in a plan: steps
under the same condition, each reading the previous one's output as its first input, whose
in-between outputs nothing outside the chain reads.

``if p: x = A(x) else: x = B(x)`` is two such chains (either may be one step): the graph holds
B under the opposite condition reading A's output, and per step A's output would be merged with
the input that passed through before B saw it, so A and B could not change the type even where
they agree (both ending in a float ``crop_mirror_normalize``). Such a pair is one block with an
``else`` side (:attr:`Block.split`): split once, merged once, as the user wrote it.

The builder and the live engine run a block as one group; its in-between outputs hold only the
samples of their side (:meth:`Block.held`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .catalog.auto_aug import is_auto_aug
from .plan import Plan, Step
from .spec import Ref, exclusive


@dataclass(frozen=True)
class Block:
    """Two or more steps under one condition, in order; each reads the one before it. With a
    `split`, ``steps[:split]`` run where the predicate holds and ``steps[split:]`` (the ``else``,
    its first step reading the last of the others in the graph) where it does not."""

    steps: tuple[Step, ...]
    split: int | None = None

    @property
    def first(self) -> Step:
        return self.steps[0]

    @property
    def last(self) -> Step:
        return self.steps[-1]

    @property
    def predicate(self) -> Ref:
        """The per-sample boolean the block splits on: its first step's (the other steps of
        its side compute the same values from the same clauses, those of an ``else`` side
        the opposite ones)."""
        assert self.first.apply is not None
        return self.first.apply

    @property
    def passed(self) -> Ref:
        """What passes through where the block does not run: its first step's first input."""
        return self.first.inputs[0]

    def inner(self) -> tuple[Step, ...]:
        """The steps whose outputs stay inside the block (all but the last)."""
        return self.steps[:-1]

    @property
    def then(self) -> tuple[Step, ...]:
        """The steps run where the predicate holds."""
        return self.steps if self.split is None else self.steps[: self.split]

    @property
    def otherwise(self) -> tuple[Step, ...]:
        """The ``else`` side's steps, run where the predicate does not hold (none without one)."""
        return () if self.split is None else self.steps[self.split :]

    def held(self, step: Step, ran: Sequence[int], batch_size: int) -> tuple[int, ...] | None:
        """The samples `step`'s output holds, given the samples where the predicate held: an
        inner step of a side those of its side, in order; the last step every sample (None)."""
        if step is self.last:
            return None
        if any(step is other for other in self.then):
            return tuple(ran)
        taken = set(ran)
        return tuple(index for index in range(batch_size) if index not in taken)

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
    pieces: list[list[Step]] = []
    for step in plan.steps:
        if step.id in followed or not _can_branch(step):
            continue  # not the head of a chain
        chain = [step]
        while (after := follower(chain[-1])) is not None:
            chain.append(after)
        pieces += _closed(chain, readers)
    blocks = _paired(pieces, readers)
    order = {step.id: index for index, step in enumerate(plan.steps)}
    return tuple(sorted(blocks, key=lambda block: order[block.last.id]))


def _paired(pieces: list[list[Step]], readers: Mapping[str, set[str]]) -> list[Block]:
    """Blocks of the closed chains (`pieces`, single steps among them): a chain followed by one
    under the opposite condition that reads it, and nothing else does, is one ``if``/``else``
    block; any other chain of two steps or more a block of its own."""
    heads = {piece[0].id: piece for piece in pieces}
    blocks: list[Block] = []
    taken: set[str] = set()
    for piece in pieces:
        if piece[0].id in taken:
            continue
        last = piece[-1]
        after = [heads[node] for node in readers.get(last.id, set()) if node in heads]
        other = after[0] if len(after) == 1 else None
        if (
            other is not None
            and readers.get(last.id) == {other[0].id}
            and _opposite(last, other[0])
            and _reads_side_once(other, last, {step.id for step in piece})
        ):
            blocks.append(Block((*piece, *other), split=len(piece)))
            taken.add(other[0].id)
        elif len(piece) >= 2:
            blocks.append(Block(tuple(piece)))
    return blocks


def _opposite(first: Step, second: Step) -> bool:
    """Whether `second` runs exactly where `first` does not: one clause each, on one predicate,
    one holding where the other does not (what ``if``/``else`` on one value writes)."""
    if len(first.when) != 1 or len(second.when) != 1:
        return False
    (mine,), (theirs,) = first.when, second.when
    return theirs == mine.negated()


def _reads_side_once(otherwise: Sequence[Step], last: Step, side: set[str]) -> bool:
    """Whether the ``else`` steps read the ``if`` side only as their first step's first input,
    its last output (inside the ``else`` that is the input passed through; nothing else of the
    ``if`` side exists there)."""
    first, *rest = otherwise
    refs = [*first.inputs[1:], *first.arg_inputs.values()]
    refs += [ref for step in rest for ref in (*step.inputs, *step.arg_inputs.values())]
    return first.inputs[:1] == (Ref(last.id),) and not any(ref.node in side for ref in refs)


def _closed(chain: list[Step], readers: Mapping[str, set[str]]) -> list[list[Step]]:
    """`chain` whole where every in-between output is read only by later steps of the chain;
    otherwise cut after each step read by anything but the next one (its output leaves the
    block, merged)."""
    later = [{step.id for step in chain[index + 1 :]} for index in range(len(chain))]
    if all(readers.get(step.id, set()) <= later[i] for i, step in enumerate(chain[:-1])):
        return [chain]
    pieces: list[list[Step]] = [[]]
    for index, step in enumerate(chain):
        pieces[-1].append(step)
        if index < len(chain) - 1 and readers.get(step.id, set()) != {chain[index + 1].id}:
            pieces.append([])
    return pieces


def in_unpaired_branches(plan: Plan, step: Step) -> bool:
    """Whether `step` runs in a branch of an ``if``/``elif``/``else`` (or an if/else nested in
    another) that is not one block: a step reading it runs where it does not (a clause of its
    condition negated there), and the two are not the sides of one block. The live engine runs
    such branches node by node, so each must give back its input's type where it ends."""
    if not step.when or step.id in plan.blocks:
        return False
    return any(
        other.inputs[:1] == (Ref(step.id),) and exclusive(step.when, other.when)
        for other in plan.steps
    )


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
