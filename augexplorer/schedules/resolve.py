"""Writing a graph's schedules into it for one epoch, and reading them over the whole run."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..spec import GraphSpec, Node, Probability, Random, Schedule, ScheduleTarget

if TYPE_CHECKING:
    from ..catalog import Catalog


@dataclass(frozen=True)
class ScheduledValue:
    """One scheduled number of a graph and its value at the epoch asked for."""

    target: ScheduleTarget
    schedule: Schedule
    value: float


def epoch_count(spec: GraphSpec) -> int:
    """The run's length in epochs (1 for a graph that declares none)."""
    return spec.epochs if spec.epochs is not None and spec.epochs >= 1 else 1


def check_epoch(spec: GraphSpec, epoch: object) -> int:
    """`epoch` as an epoch of `spec`'s run, or :class:`~augexplorer.errors.EpochError` saying
    the run's epochs and the fix."""
    from ..errors import EpochError

    last = epoch_count(spec) - 1
    if isinstance(epoch, bool) or not isinstance(epoch, int) or not 0 <= epoch <= last:
        raise EpochError(
            f"epoch {epoch!r:.20} is not in this run (epochs 0..{last})"
            + ("" if last else "; declare the run's length: spec.with_epochs(90)")
        )
    return epoch


def at_epoch(spec: GraphSpec, epoch: int, catalog: Catalog | None = None) -> GraphSpec:
    """`spec` with every schedule's value at `epoch` written where it points; the schedules
    stay, so the graph can be read at another epoch. A schedule whose target the graph lacks is
    left for validation to name (:mod:`augexplorer.checks.schedules`). Given the `catalog`, a
    constant its operator takes as an integer gets the value rounded even where the graph
    leaves the argument out (a float there is refused by the argument's check)."""
    if not spec.schedules:
        return spec
    epochs = epoch_count(spec)
    nodes = {node.id: node for node in spec.operators()}
    rounded = rounded_targets(spec, catalog)
    changed: dict[str, Node] = {}
    for target, schedule in spec.schedules.items():
        node = changed.get(target.node, nodes.get(target.node))
        if node is None:
            continue
        value = schedule.value_at(epoch, epochs)
        written = write(node, target, round(value) if target in rounded else value)
        if written is not None:
            changed[node.id] = written
    if not changed:
        return spec
    return dataclasses.replace(spec, nodes=tuple(changed.get(n.id, n) for n in spec.nodes))


def write(node: Node, target: ScheduleTarget, value: float) -> Node | None:
    """`node` with `value` where `target` points; None where it points at nothing a number can
    take (validation says why)."""
    if target.arg is None:
        seed = node.probability.seed if node.probability is not None else None
        return dataclasses.replace(node, probability=Probability(float(value), seed))
    held = node.args.get(target.arg)
    if target.bound is None:
        if isinstance(held, Random) or not _number_or_missing(held):
            return None
        return node.with_arg(target.arg, _like(held, value))
    if not isinstance(held, Random) or not hasattr(held, target.bound):
        return None
    bounds: dict[str, Any] = {target.bound: float(value)}
    return node.with_arg(target.arg, dataclasses.replace(held, **bounds))


def as_written(resolved: GraphSpec, written: GraphSpec) -> GraphSpec:
    """`resolved` (a graph read at one epoch, its seeds maybe new) with every number a schedule
    drives put back as `written` holds it: the schedule's value at the epoch is not the user's.
    Seeds stay `resolved`'s, so a reroll of a graph read at an epoch keeps its new draws. An
    apply probability the user left unset comes back as 1 (always) with its new coin's seed."""
    if not resolved.schedules:
        return resolved
    nodes = {node.id: node for node in resolved.operators()}
    for target in resolved.schedules:
        node, before = (
            nodes.get(target.node),
            written.node(target.node) if target.node in written else None,
        )
        if node is None or not isinstance(before, Node):
            continue
        nodes[node.id] = _put_back(node, before, target)
    return dataclasses.replace(resolved, nodes=tuple(nodes.get(n.id, n) for n in resolved.nodes))


def _put_back(node: Node, before: Node, target: ScheduleTarget) -> Node:
    if target.arg is None:
        p = before.probability.p if before.probability is not None else 1.0
        seed = node.probability.seed if node.probability is not None else None
        return dataclasses.replace(node, probability=Probability(p, seed))
    held, now = before.args.get(target.arg), node.args.get(target.arg)
    if target.bound is None:
        return node.without_arg(target.arg) if held is None else node.with_arg(target.arg, held)
    if isinstance(held, Random) and isinstance(now, Random) and hasattr(held, target.bound):
        bound: dict[str, Any] = {target.bound: getattr(held, target.bound)}
        return node.with_arg(target.arg, dataclasses.replace(now, **bound))
    return node


def rounded_targets(spec: GraphSpec, catalog: Catalog | None = None) -> set[ScheduleTarget]:
    """The scheduled constants whose values are rounded to whole numbers: those the graph holds
    as integers and, given the `catalog`, those of an integer argument (a count, RandAugment's
    magnitude `m`, a JPEG quality) left out of the graph. A draw's bounds stay as they are."""
    found: set[ScheduleTarget] = set()
    for target in spec.schedules:
        node = spec.node(target.node) if target.node in spec else None
        if target.arg is None or target.bound is not None or not isinstance(node, Node):
            continue
        held = node.args.get(target.arg)
        info = catalog.get(node.op) if catalog is not None else None
        arg = info.arg(target.arg) if info is not None else None
        integer = arg is not None and arg.is_integer and not arg.is_vector
        if (isinstance(held, int) and not isinstance(held, bool)) or (held is None and integer):
            found.add(target)
    return found


def _number_or_missing(value: Any) -> bool:
    return value is None or (isinstance(value, (int, float)) and not isinstance(value, bool))


def _like(held: Any, value: float) -> int | float:
    """An integer argument (RandAugment's magnitude `m`, a count) stays an integer: a value
    rounded already (:func:`rounded_targets`) or one held as an integer."""
    if isinstance(value, int) or (isinstance(held, int) and not isinstance(held, bool)):
        return round(value)
    return float(value)


def scheduled_values(spec: GraphSpec, epoch: int) -> list[ScheduledValue]:
    """Every schedule of `spec` with its value at `epoch`, in target order."""
    epochs = epoch_count(spec)
    return [
        ScheduledValue(target, schedule, schedule.value_at(epoch, epochs))
        for target, schedule in spec.schedules.items()
    ]


def values_over_run(spec: GraphSpec) -> dict[ScheduleTarget, list[float]]:
    """Each schedule's value at every epoch of the run: what the panel plots."""
    epochs = epoch_count(spec)
    return {
        target: [schedule.value_at(epoch, epochs) for epoch in range(epochs)]
        for target, schedule in spec.schedules.items()
    }
