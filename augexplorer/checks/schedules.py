"""Checking a graph's schedules: that each points at a number the graph holds, that the run's
length is declared, and that every value a schedule reaches over the run is one its argument
takes (the graph is checked as it stands at each epoch where a schedule turns, and where two
scheduled values of one node come closest or furthest apart)."""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable

from ..errors import Problem
from ..spec import BOUNDS, GraphSpec, Node, Random, Ref, Schedule, ScheduleTarget
from ..spec.schema import MAX_EPOCHS


def schedule_problems(spec: GraphSpec) -> list[Problem]:
    """What is wrong with the schedules themselves, before any value is checked."""
    problems: list[Problem] = []
    if not spec.schedules:
        return problems
    if spec.epochs is None:
        problems.append(
            Problem(
                "the graph has schedules but no run length",
                fix='declare how many epochs the run has: "epochs": 90 in the graph\'s JSON, '
                "spec.with_epochs(90) in Python",
            )
        )
    elif isinstance(spec.epochs, bool) or not 1 <= spec.epochs <= MAX_EPOCHS:
        problems.append(Problem(f"a run of {spec.epochs!r:.20} epochs", fix=f"use 1..{MAX_EPOCHS}"))
    operators = {node.id: node for node in spec.operators()}
    for target, schedule in spec.schedules.items():
        node = operators.get(target.node)
        if node is None and target.node in spec:
            problems.append(
                Problem(
                    f"the schedule {target} is for a data source, whose reading follows no "
                    "schedule",
                    target.node,
                    fix=f"schedule a number of an operator after it, and remove this one: "
                    f"spec.with_schedule({str(target)!r}, None)",
                )
            )
            continue
        if node is None:
            problems.append(
                Problem(
                    f"the schedule {target} is for a node the graph does not have",
                    target.node,
                    fix=f"remove it: spec.with_schedule({str(target)!r}, None)",
                )
            )
            continue
        problems += _target_problems(spec, node, target)
        problems += _curve_problems(target, schedule)
    return problems


def _target_problems(spec: GraphSpec, node: Node, target: ScheduleTarget) -> list[Problem]:
    if target.arg is None and node.when:
        return [
            Problem(
                f"the schedule {target} drives an apply probability, but the node runs only "
                f"{node.describe_condition()}, and a node has one or the other",
                node.id,
                fix=f"schedule a number of the node the condition reads ({node.when[0].ref.node}"
                f".probability for a coin flip) and remove this one: "
                f"spec.with_schedule({str(target)!r}, None)",
            )
        ]
    if target.arg is None:
        return []
    held = node.args.get(target.arg)
    where = (node.id, target.arg)
    if target.bound is None:
        if isinstance(held, Random):
            return [
                Problem(
                    f"the schedule {target} drives a constant, but the argument is drawn at "
                    f"random ({held.describe()})",
                    *where,
                    fix=f"schedule one of the draw's parameters: {target}.high, for instance",
                )
            ]
        if held is not None and (isinstance(held, bool) or not isinstance(held, (int, float))):
            return [
                Problem(
                    f"the schedule {target} drives a number, but the argument holds {held!r:.40}",
                    *where,
                    fix="schedule a numeric argument, or give this one a number first",
                )
            ]
        return []
    if isinstance(held, Ref) and held.node in spec:
        drawer = spec.node(held.node)
        op = getattr(drawer, "op", "a source")
        # a draw node the argument cannot take as its own (with_schedule takes the plain ones)
        return [
            Problem(
                f"the schedule {target} drives a parameter of a random draw, but the argument "
                f"reads node {held.node!r} ({op}), which is not a plain draw that only this "
                "argument reads",
                *where,
                fix=(
                    f"give {node.id}.{target.arg} a draw of its own (the node's panel: random; "
                    f"its values are then drawn apart from {held.node!r}'s), then schedule "
                    f"{target}"
                ),
            )
        ]
    if not isinstance(held, Random):
        return [
            Problem(
                f"the schedule {target} drives a parameter of a random draw, but the argument "
                "is not drawn at random",
                *where,
                fix=f"draw it at random first, or schedule the constant: {node.id}.{target.arg}",
            )
        ]
    if target.bound not in held.params() or target.bound not in BOUNDS:
        return [
            Problem(
                f"a {held.dist} draw has no parameter {target.bound!r} to schedule",
                *where,
                fix=f"schedule one of: {', '.join(p for p in held.params() if p in BOUNDS)}",
            )
        ]
    return []


def _curve_problems(target: ScheduleTarget, schedule: Schedule) -> list[Problem]:
    node, arg = target.node, target.arg
    if schedule.curve in ("steps", "table") and not schedule.points:
        return [
            Problem(
                f"the {schedule.curve} schedule {target} has no (epoch, value) points",
                node,
                arg,
                fix="give at least one point, e.g. [[0, 0.1], [30, 0.5]]",
            )
        ]
    if schedule.curve == "warmup" and not schedule.finish:
        return [
            Problem(
                f"the warm-up schedule {target} has no length",
                node,
                arg,
                fix="say over how many epochs it warms up: Schedule.warmup(0, 30, epochs=5)",
            )
        ]
    linear = schedule.curve in ("linear", "cosine")
    if linear and schedule.finish is not None and schedule.finish < schedule.begin:
        return [
            Problem(
                f"the schedule {target} finishes (epoch {schedule.finish}) before it "
                f"begins (epoch {schedule.begin})",
                node,
                arg,
                fix="swap begin and finish, or swap start and end for a falling value",
            )
        ]
    return []


def turning_epochs(spec: GraphSpec) -> list[int]:
    """The epochs at which some schedule turns, first and last included: between two of them
    every scheduled value only rises or only falls, so the values checked at these epochs are
    the extremes of the whole run."""
    epochs = spec.epochs or 1
    found: set[int] = set()
    for schedule in spec.schedules.values():
        found |= schedule.turning_epochs(epochs)
    return sorted(found | _closest_epochs(spec, epochs))


def _closest_epochs(spec: GraphSpec, epochs: int) -> set[int]:
    """For two scheduled values of one node (a uniform's low and high, both ramped), the epochs
    where their difference is smallest and largest: two curves that only rise can still cross
    between turning epochs (a cosine low under a linear high), and checks such as low <= high
    read both at once."""
    by_node: dict[str, list[Schedule]] = {}
    for target, schedule in spec.schedules.items():
        by_node.setdefault(target.node, []).append(schedule)
    found: set[int] = set()
    for schedules in by_node.values():
        runs = [_over_run(schedule, epochs) for schedule in schedules]
        for first, second in itertools.combinations(runs, 2):
            gaps = [a - b for a, b in zip(first, second, strict=True)]
            found |= {gaps.index(min(gaps)), gaps.index(max(gaps))}
    return found


@functools.lru_cache(maxsize=64)
def _over_run(schedule: Schedule, epochs: int) -> tuple[float, ...]:
    """Each epoch's value (kept: a graph is validated at every edit, its schedules unchanged)."""
    return tuple(schedule.value_at(epoch, epochs) for epoch in range(epochs))


def problems_over_run(
    spec: GraphSpec,
    checked_epoch: int,
    check_at: Callable[[int], list[Problem]],
) -> list[Problem]:
    """Problems the graph has at some turning epoch other than `checked_epoch` (checked already),
    each saying the epoch; `check_at(epoch)` checks the graph as it stands at that epoch."""
    for epoch in turning_epochs(spec):
        if epoch == checked_epoch:
            continue
        found = check_at(epoch)
        if found:
            return [_at_epoch(spec, epoch, problem) for problem in found]
    return []


def problems_at_epoch(spec: GraphSpec, epoch: int, found: list[Problem]) -> list[Problem]:
    """`found`, the problems of `spec` read at `epoch`, each one a schedule causes said so:
    the value at fault is the schedule's, which the graph's own value does not show."""
    return [
        _at_epoch(spec, epoch, problem) if _driving(spec, problem) else problem for problem in found
    ]


def _at_epoch(spec: GraphSpec, epoch: int, problem: Problem) -> Problem:
    """`problem`, found with the graph read at `epoch`, naming the epoch and the schedules that
    drive the value at fault (their keys in the graph's ``schedules``)."""
    last = (spec.epochs or 1) - 1
    driving = _driving(spec, problem)
    by = f"the schedule {' and '.join(driving)}" if driving else "the schedules"
    return Problem(
        f"at epoch {epoch} of 0..{last}, as {by} set it: {problem.message}",
        problem.node,
        problem.argument,
        fix=(problem.fix + "; " if problem.fix else "")
        + "or change the schedule so it stays in range over the whole run",
    )


def _driving(spec: GraphSpec, problem: Problem) -> list[str]:
    """The schedules (as written) that drive the value `problem` is about."""
    return [
        str(target)
        for target in spec.schedules
        if target.node == problem.node
        and problem.argument is not None
        and (
            target.arg == problem.argument
            or (target.arg is None and problem.argument == "probability")
        )
    ]
