"""Where a graph's schedules reach the exported pipeline, and the text that reads them there.

Each scheduled number lowers to one argument of one step (:mod:`augexplorer.lowering`): a
constant to the node's own call, a draw's bound to its ``fn.random.*`` step (``range``,
``mean``, ``stddev``, ``probability``), an apply probability to the ``<node>_apply`` coin flip.
Where that argument is a per-sample (tensor) argument the live engine would feed
(:func:`augexplorer.engine.runners.feedable`), the module feeds it per iteration through
``fn.external_source`` (FED): a new epoch needs no rebuild. Anything else (an auto_aug policy's
``m``, an argument DALI reads when the pipeline is built) is written as a Python value the
pipeline reads when it is built (BUILT); the module's loader rebuilds the pipeline, where it
stood, when such a value changes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..builder import dali_value
from ..catalog.auto_aug import is_auto_aug
from ..catalog.fed_shapes import FED_SHAPES, INPUT_RANK
from ..engine.runners import FED_DTYPES, feedable
from ..plan import Plan, Step
from ..spec import GraphSpec, ScheduleTarget
from .literals import literal

# The parameter of the exported pipeline function that holds a loader's scheduled values.
STRENGTHS = "strengths"
# The DALI types a fed argument can have, and NumPy's name for each: as the live engine feeds.
NUMPY_TYPES = FED_DTYPES

# One value of an argument: a schedule's name, or the graph's constant where nothing drives it.
Part = str | float | int


@dataclass(frozen=True)
class ScheduledArgument:
    """One step argument that schedules drive: its values (a scalar's one part, or a vector's
    parts in order) and how it reaches the pipeline."""

    step: str
    argument: str
    parts: tuple[Part, ...]
    vector: bool
    kind: str  # the argument's DALI type name (FLOAT, INT32, ...)
    fed: bool

    @property
    def key(self) -> str:
        """Its name in the module's FED table: ``rotate_angle.range``."""
        return f"{self.step}.{self.argument}"

    def source(self) -> str:
        """The text the pipeline passes for it."""
        if self.fed:
            return f"{STRENGTHS}.feed({literal(self.key)})"
        texts = [
            f"{STRENGTHS}.value({literal(p)})" if isinstance(p, str) else literal(p)
            for p in self.parts
        ]
        return f"[{', '.join(texts)}]" if self.vector else texts[0]

    def fed_entry(self) -> tuple[str, Any]:
        """(DALI type, values) as the FED table holds them."""
        values: Any = list(self.parts) if self.vector else self.parts[0]
        return self.kind, values


@dataclass(frozen=True)
class ScheduledArguments:
    """Every step argument a graph's schedules drive, by (step id, argument)."""

    arguments: Mapping[tuple[str, str], ScheduledArgument] = field(default_factory=dict)
    rounded: tuple[str, ...] = ()  # schedules of values the graph keeps as integers

    def text(self, step: Step, name: str) -> str | None:
        found = self.arguments.get((step.id, name))
        return found.source() if found is not None else None

    @property
    def fed(self) -> dict[str, tuple[str, Any]]:
        return {a.key: a.fed_entry() for a in self.arguments.values() if a.fed}

    @property
    def built(self) -> list[str]:
        """The schedules read when the pipeline is built."""
        names = {p for a in self.arguments.values() if not a.fed for p in a.parts}
        return sorted(p for p in names if isinstance(p, str))

    @property
    def nodes(self) -> set[str]:
        return {
            ScheduleTarget.parse(str(p)).node
            for a in self.arguments.values()
            for p in a.parts
            if isinstance(p, str)
        }


def scheduled_arguments(spec: GraphSpec, plan: Plan) -> ScheduledArguments:
    """Where each of `spec`'s schedules lands in `plan` (the graph lowered at epoch 0)."""
    if not spec.schedules:
        return ScheduledArguments()
    parts: dict[tuple[str, str], dict[int, str]] = {}  # (step, argument) -> index -> schedule
    for target in spec.schedules:
        step, argument, index = _landing(plan, target)
        parts.setdefault((step.id, argument), {})[index] = str(target)
    steps = {step.id: step for step in plan.steps}
    arguments = {key: _argument(steps[key[0]], key[1], by_index) for key, by_index in parts.items()}
    return ScheduledArguments(arguments, _rounded(spec))


def _landing(plan: Plan, target: ScheduleTarget) -> tuple[Step, str, int]:
    """The step, argument and (for a vector) index a schedule's value is written to."""
    if target.arg is None:
        step = _step(plan, lambda s: s.role == "apply" and s.origin == target.node, target)
        return step, "probability", -1
    if target.bound is None:
        return plan.node_step(target.node), target.arg, -1
    step = _step(
        plan,
        lambda s: s.role == "random" and s.origin == target.node and s.bound_arg == target.arg,
        target,
    )
    if target.bound in ("low", "high"):  # a uniform draw's range: [low, high]
        return step, "range", 0 if target.bound == "low" else 1
    return step, target.bound, -1


def _step(plan: Plan, wanted: Any, target: ScheduleTarget) -> Step:
    for step in plan.steps:
        if wanted(step):
            return step
    raise AssertionError(f"the schedule {target} lowers to no step (validation passed it)")


def _argument(step: Step, name: str, by_index: Mapping[int, str]) -> ScheduledArgument:
    info = step.info.arg(name) if step.info is not None else None
    held = step.args[name]
    vector = isinstance(held, (list, tuple))
    typed = dali_value(info, held) if info is not None else held
    constants: Sequence[Any] = list(typed) if vector else [typed]
    parts = tuple(by_index.get(i if vector else -1, c) for i, c in enumerate(constants))
    kind = info.kind if info is not None else "FLOAT"
    return ScheduledArgument(
        step=step.id,
        argument=name,
        parts=parts,
        vector=vector,
        kind=kind,
        fed=_can_feed(step, name) and kind in NUMPY_TYPES,
    )


def _can_feed(step: Step, name: str) -> bool:
    """Fed as the live engine feeds it; not where its per-sample shape takes the input's rank
    (unknown when the module is written) nor into a policy of nvidia.dali.auto_aug, whose
    arguments are Python values."""
    if is_auto_aug(step.op) or step.role == "source":
        return False
    return feedable(step, name) and FED_SHAPES.get((step.op, name)) != INPUT_RANK


def _rounded(spec: GraphSpec) -> tuple[str, ...]:
    """Schedules of integer constants (held as integers, or an integer argument left out):
    augexplorer rounds their values (:func:`augexplorer.schedules.resolve.rounded_targets`),
    and so does the module."""
    from ..catalog import load_catalog
    from ..schedules.resolve import rounded_targets

    return tuple(sorted(str(target) for target in rounded_targets(spec, load_catalog())))
