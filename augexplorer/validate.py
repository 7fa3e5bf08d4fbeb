"""Validation at the edge: a spec becomes a :class:`~augexplorer.plan.Plan`, or every problem in it
is reported at once, each naming the node, the argument and the fix.

Two jobs in two places: :mod:`augexplorer.checks` finds the problems, :mod:`augexplorer.lowering`
turns a graph without any into a plan. This module is their public entry point.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from .catalog import Catalog, load_catalog
from .catalog.auto_aug import is_auto_aug
from .checks import check_graph
from .checks.context import CheckContext
from .checks.naming import RESERVED_IDS
from .checks.random_draws import CHOICE_WEIGHT_TOLERANCE, check_draw_range, check_random_binding
from .checks.schedules import problems_at_epoch, problems_over_run, schedule_problems
from .checks.structure import MAX_CYCLES_REPORTED
from .checks.values import MAX_PYTHON_SOURCE, check_value, value_fix
from .errors import GraphInvalid, Problem
from .evolve import evolve
from .lowering import lower, random_call
from .plan import Plan
from .schedules import at_epoch
from .spec import ArgValue, GraphSpec, Node, Probability, PythonCode, Random, Ref
from .spec.seeds import derive_seed

__all__ = [
    "CHOICE_WEIGHT_TOLERANCE",
    "MAX_CYCLES_REPORTED",
    "MAX_PYTHON_SOURCE",
    "RESERVED_IDS",
    "argument_problem",
    "check_value",
    "derive_seed",
    "probability_problem",
    "random_call",
    "validate",
    "validate_constant_edit",
]


def validate(spec: GraphSpec, catalog: Catalog | None = None, *, epoch: int = 0) -> Plan:
    """Check `spec` against the catalog and lower it to a plan, or raise :class:`GraphInvalid`.

    A graph with schedules is lowered as it stands at `epoch` (:func:`~augexplorer.schedules.
    at_epoch`), and checked at every epoch where a schedule turns, so a value that leaves its
    argument's range late in the run is named now."""
    catalog = catalog or load_catalog()
    problems = schedule_problems(spec)
    if problems:
        raise GraphInvalid(problems)
    resolved = at_epoch(spec, epoch, catalog)
    checked = check_graph(resolved, catalog)
    if checked.problems:
        raise GraphInvalid(problems_at_epoch(spec, epoch, checked.problems))
    if spec.schedules:
        problems = problems_over_run(
            spec, epoch, lambda other: check_graph(at_epoch(spec, other, catalog), catalog).problems
        )
        if problems:
            raise GraphInvalid(problems)
    return lower(resolved, catalog, checked)


def argument_problem(
    spec: GraphSpec, catalog: Catalog, node_id: str, name: str, value: ArgValue
) -> Problem | None:
    """The first problem of giving argument `name` of node `node_id` the value `value`, found
    by the graph's own checks of that one argument: a constant against its type, range and
    length (with the node's other arguments, which may lift a range), a draw against its
    parameters and the range its values must lie in. None where these find nothing (the whole
    graph is checked when the edit is applied). The panel refuses such a value before applying
    it, as it refuses text that is not a number."""
    node = spec.node(node_id) if node_id in spec else None
    info = catalog.get(node.op) if isinstance(node, Node) else None
    arg = info.arg(name) if info is not None else None
    if not isinstance(node, Node) or info is None or arg is None:
        return None
    edited = dataclasses.replace(node, args={**node.args, name: value})
    if isinstance(value, Random):
        ctx = CheckContext(spec, catalog)
        check_random_binding(ctx, edited, arg, value)
        if not ctx.problems:
            check_draw_range(ctx, edited, info.name, arg, value)
        return ctx.problems[0] if ctx.problems else None
    if isinstance(value, (Ref, PythonCode)):
        return None
    message = check_value(info, arg, value, edited.args)
    return Problem(message, node_id, name, value_fix(info, arg)) if message else None


def probability_problem(
    spec: GraphSpec, catalog: Catalog, node_id: str, p: float
) -> Problem | None:
    """The first problem of applying node `node_id` with probability `p`, found by the graph's
    own checks (an operator's and an expression's alike), so the panel refuses a probability
    with the words and fix the graph would give it (:func:`argument_problem` does so for an
    argument). None where they find nothing."""
    node = spec.node(node_id) if node_id in spec else None
    if not isinstance(node, Node):
        return None
    seed = node.probability.seed if node.probability is not None else None
    edited = spec.set_probability(node_id, Probability(p, seed))
    # the whole graph is checked (0.2-0.3 ms a preset, measured on a loaded machine): an
    # expression's probability has its own checks, which only the walk over the graph reaches
    problems = check_graph(edited, catalog).problems
    return next((q for q in problems if q.node == node_id and q.argument == "probability"), None)


def validate_constant_edit(plan: Plan, node_id: str, name: str, value: Any) -> Plan | None:
    """The plan after setting one constant argument, checking only that value; None when the
    edit needs a full validation (a new argument, a random binding or reference replaced, ...).

    This keeps a slider drag from re-validating the whole graph on every step.
    """
    if isinstance(value, (Ref, Random)):
        return None
    step = next((s for s in plan.steps if s.id == node_id and s.role == "node"), None)
    if step is None or step.info is None or name not in step.args:
        return None
    if is_auto_aug(step.op):  # its arguments are checked together (m against the bins, ...)
        return None
    if any(t.node == node_id and t.arg == name for t in plan.spec.schedules):
        return None  # a schedule overrides the value: the whole graph is read again
    arg = step.info.arg(name)
    # Other nodes' checks read some constants (a dtype, a layout, a predicate's shape, a count
    # of outputs); a number on a continuous scale is read by none of them.
    if arg is None or arg.kind != "FLOAT":
        return None
    message = check_value(step.info, arg, value, step.args)
    if message:
        raise GraphInvalid([Problem(message, node_id, name, value_fix(step.info, arg))])
    # A constant's value changes neither what a step reads nor which operators run.
    new_step = evolve(step, keep=("upstream_nodes",), args={**step.args, name: value})
    steps = tuple([new_step if s is step else s for s in plan.steps])
    spec = plan.spec.set_arg(node_id, name, value)
    # A number decides neither what needs trust nor which steps form a conditional block;
    # a block holds its steps, so one holding the edited step is worked out anew.
    keep: tuple[str, ...] = ("runs_python", "needs_trust")
    if node_id not in plan.blocks:
        keep += ("blocks",)
    return evolve(plan, keep=keep, spec=spec, steps=steps)
