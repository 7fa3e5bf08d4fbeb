"""A validated graph, lowered to an ordered list of steps: one step per DALI call.

Validation (:mod:`augexplorer.validate`) produces a :class:`Plan`. Each random argument binding
becomes a step of its own (``<node>_<argument>``, a ``fn.random.*`` call) and each
apply-with-probability becomes a coin-flip step (``<node>_apply``), so the live engine can cache
and record every draw, and the exporter writes exactly the calls the engine ran.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from .catalog import PYTHON_FUNCTION, OpInfo
from .catalog.auto_aug import is_auto_aug
from .errors import Problem
from .spec import Clause, GraphSpec, PythonCode, Ref, Source

if TYPE_CHECKING:
    from .blocks import Block

StepRole = Literal["source", "node", "random", "apply", "when"]


@dataclass(frozen=True)
class Step:
    id: str  # also the variable name in exported code
    op: str  # `fn` name, or "source.<kind>" for data sources
    device: str  # "cpu", "gpu" or "mixed", resolved
    role: StepRole
    origin: str  # the user's node this step belongs to
    inputs: tuple[Ref, ...] = ()
    args: Mapping[str, Any] = field(default_factory=dict)  # constants, JSON-typed
    arg_inputs: Mapping[str, Ref] = field(default_factory=dict)  # argument -> step output
    apply: Ref | None = None  # per-sample predicate: run only where it is 1
    when: tuple[Clause, ...] = ()  # the node's condition, which `apply` computes (for export)
    seed: int | None = None
    bound_arg: str | None = None  # for random steps: the argument of `origin` they feed
    info: OpInfo | None = field(default=None, compare=False)
    source: Source | None = None

    @property
    def uses_conditionals(self) -> bool:
        """Whether the step's call needs ``enable_conditionals=True``: applied with a
        probability or under a condition, or a policy of DALI's auto_aug (which branches per sample)."""
        return self.apply is not None or is_auto_aug(self.op)

    @property
    def output_count(self) -> int:
        if self.role == "source":
            return len(self.source.output_names()) if self.source is not None else 2
        if self.op == PYTHON_FUNCTION:
            return int(self.args.get("num_outputs", 1))
        if self.op == "random_bbox_crop":
            # anchor, shape, boxes; then labels when labels are an input, and box indices
            # with output_bbox_indices (the schema counts outputs for no inputs)
            return 3 + (len(self.inputs) > 1) + bool(self.args.get("output_bbox_indices"))
        if self.op == "bbox_rotate":
            return 1 + (len(self.inputs) > 1)  # boxes; then labels when labels are an input
        return self.info.outputs if self.info is not None else 1

    @functools.cached_property
    def digest(self) -> str:
        """:meth:`signature`, computed once (steps are immutable)."""
        return self.signature()

    def signature(self) -> str:
        """A digest of everything that determines this step's outputs, given its inputs."""
        payload = {
            "op": self.op,
            "device": self.device,
            "inputs": [str(r) for r in self.inputs],
            "args": _canonical(self.args),
            "arg_inputs": {k: str(v) for k, v in sorted(self.arg_inputs.items())},
            "apply": str(self.apply) if self.apply else None,
            "seed": self.seed,
            "source": _canonical(self.source.__dict__) if self.source else None,
        }
        return hashlib.sha1(json.dumps(payload, sort_keys=True).encode()).hexdigest()

    def upstream(self) -> list[Ref]:
        refs = list(self.inputs) + list(self.arg_inputs.values())
        if self.apply is not None:
            refs.append(self.apply)
        return refs

    @functools.cached_property
    def upstream_nodes(self) -> tuple[str, ...]:
        """The steps this one reads, once each time it reads them (computed once)."""
        return tuple(ref.node for ref in self.upstream())


def _canonical(value: Any) -> Any:
    if isinstance(value, PythonCode):
        return {"python": value.digest}
    if isinstance(value, Mapping):
        return {str(k): _canonical(v) for k, v in sorted(value.items())}
    if isinstance(value, (list, tuple)):
        return [_canonical(v) for v in value]
    if isinstance(value, float):
        return repr(value)
    return value


@dataclass(frozen=True)
class Plan:
    """A graph that passed validation: steps in dependency order, seeds all explicit."""

    spec: GraphSpec  # with every seed filled in
    steps: tuple[Step, ...]
    outputs: Mapping[str, Ref]
    # what the graph's checks found that runs but is not what the user meant (boxes read in
    # another layout than their source gives): the run goes ahead and says it
    warnings: tuple[Problem, ...] = ()

    def step(self, step_id: str) -> Step:
        for step in self.steps:
            if step.id == step_id:
                return step
        raise KeyError(step_id)

    def steps_of(self, node_id: str) -> list[Step]:
        return [step for step in self.steps if step.origin == node_id]

    def node_step(self, node_id: str) -> Step:
        return next(s for s in self.steps if s.origin == node_id and s.role in ("node", "source"))

    @functools.cached_property
    def runs_python(self) -> bool:
        """Whether a step calls Python code from the graph (python_function), computed once."""
        return any(step.op == "python_function" for step in self.steps)

    @functools.cached_property
    def needs_trust(self) -> bool:
        """Whether anything of the plan runs only once trusted (Python code, nodes that write
        files), computed once: most graphs have neither, and then nothing is looked up."""
        from .trust import has_side_effects

        return self.runs_python or has_side_effects(self.spec)

    @property
    def uses_conditionals(self) -> bool:
        return any(step.uses_conditionals for step in self.steps)

    @functools.cached_property
    def blocks(self) -> Mapping[str, Block]:
        """Each step of a conditional block, by id, to its block: steps under one condition that
        run as one DALI ``if`` block (:mod:`augexplorer.blocks`), computed once."""
        from .blocks import block_index, find_blocks

        return block_index(find_blocks(self))

    def first_input(self, step: Step) -> Ref | None:
        """What `step` transforms where it runs: its first input, but for the first step of a
        block's ``else`` side, which the graph has read the ``if`` side's output: where it runs
        that is the block's input, which it reads in DALI (:mod:`augexplorer.blocks`)."""
        if not step.inputs:
            return None
        block = self.blocks.get(step.id)
        if block is not None and block.otherwise[:1] == (step,):
            return block.passed
        return step.inputs[0]

    @property
    def devices(self) -> set[str]:
        return {step.device for step in self.steps}

    def with_inputs(self, wanted: Iterable[Step], *, whole_blocks: bool = True) -> tuple[Step, ...]:
        """`wanted` and every step they read, directly or not (arguments and coin flips
        included), in plan order; with `whole_blocks`, a conditional block whole, as DALI runs
        it (a pipeline of these steps), else only the block's steps they read."""
        by_id = {step.id: step for step in self.steps}
        seen: set[str] = set()
        stack = [step.id for step in wanted]
        while stack:
            node = stack.pop()
            if node in seen:
                continue
            seen.add(node)
            stack.extend(by_id[node].upstream_nodes)
            block = self.blocks.get(node) if whole_blocks else None
            if block is not None:
                stack.extend(step.id for step in block.steps)
        return tuple(step for step in self.steps if step.id in seen)

    def nodes_read_by(self, step_id: str) -> frozenset[str]:
        """The user's nodes whose outputs, draws or coin flips step `step_id`'s output depends
        on, its own included (empty for a step the plan does not have)."""
        try:
            step = self.step(step_id)
        except KeyError:
            return frozenset()
        read = self.with_inputs([step], whole_blocks=False)
        return frozenset(step.origin for step in read)

    def ancestors(self, step_id: str) -> list[str]:
        """Steps `step_id` depends on, nearest first (breadth-first over positional inputs)."""
        seen: list[str] = []
        frontier = [step_id]
        while frontier:
            current = self.step(frontier.pop(0))
            for ref in current.inputs:
                if ref.node not in seen:
                    seen.append(ref.node)
                    frontier.append(ref.node)
        return seen
