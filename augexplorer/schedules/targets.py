"""Which numbers of a node a schedule can drive, and what they hold now."""

from __future__ import annotations

from ..spec import BOUNDS, GraphSpec, Node, Random, Ref, ScheduleTarget
from ..spec.draw_inlining import draw_of


def schedulable(spec: GraphSpec, node_id: str) -> list[ScheduleTarget]:
    """The targets node `node_id` offers a schedule: each numeric constant argument, each
    numeric parameter of a random draw (its own, or a plain draw node only it reads, which a
    schedule takes into it), and its apply probability where it can have one (it
    reads an input and runs under no condition). Then the node's schedules that point at
    nothing these days (a draw made a constant since), so they can be edited or removed.
    Empty for a source."""
    node = spec.node(node_id) if node_id in spec else None
    if not isinstance(node, Node):
        return []
    found: list[ScheduleTarget] = []
    for name, value in node.args.items():
        if isinstance(value, Ref):
            value = draw_of(spec, node_id, name)
        if isinstance(value, Random):
            found += [ScheduleTarget(node_id, name, b) for b in value.params() if b in BOUNDS]
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            found.append(ScheduleTarget(node_id, name))
    if node.inputs and not node.when:
        found.append(ScheduleTarget(node_id))
    return found + [t for t in spec.schedules if t.node == node_id and t not in found]


def held_value(spec: GraphSpec, target: ScheduleTarget) -> float | None:
    """The number `target` points at in the graph as written (before any schedule), or None
    where it points at nothing numeric (an apply probability not set holds 1: always)."""
    node = spec.node(target.node) if target.node in spec else None
    if not isinstance(node, Node):
        return None
    if target.arg is None:
        return node.probability.p if node.probability is not None else 1.0
    value = node.args.get(target.arg)
    if isinstance(value, Ref):
        value = draw_of(spec, target.node, target.arg)
    if target.bound is not None:
        found = getattr(value, target.bound, None) if isinstance(value, Random) else None
        return float(found) if isinstance(found, (int, float)) else None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    return None


class SetUnderSchedule(UserWarning):
    """A value set for an argument whose number a schedule drives: the schedule wins."""


def set_under_schedule(spec: GraphSpec, node_id: str, arg: str, value: object) -> str | None:
    """What to say where `value` is set for argument `arg` of `node_id` while a schedule drives
    it (or a bound of the draw `value` is); None where none does."""

    def drives(target: ScheduleTarget) -> bool:
        if target.node != node_id or target.arg != arg or isinstance(value, Ref):
            return False  # an argument fed by a node: the schedule points at nothing now
        if target.bound is None:
            return not isinstance(value, Random)
        return isinstance(value, Random) and target.bound in value.params()

    driving = [t for t in spec.schedules if drives(t)]
    if not driving:
        return None
    names = ", ".join(str(t) for t in driving)
    first = str(driving[0])
    return (
        f"{node_id}.{arg} follows the run ({names}): the value set is kept in the graph, but each "
        f"epoch draws with the schedule's value (fix: set the schedule, or make the value plain "
        f"again with set_schedule({first!r}, None))"
    )
