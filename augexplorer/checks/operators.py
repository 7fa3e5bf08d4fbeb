"""Operator nodes: a known operator available here, its inputs, device, seed and arguments
(constants, inputs from other nodes, draws), what it needs, and whether it runs per sample;
expression and constant nodes are checked by :mod:`augexplorer.expressions.checks`."""

from __future__ import annotations

from typing import Any

from ..auto_aug_checks import policy_problems
from ..catalog import PYTHON_FUNCTION, OpInfo
from ..catalog.auto_aug import is_auto_aug
from ..catalog.limits import NEEDS_ONE_OF
from ..expressions import GRAPH_OPS
from ..expressions.checks import check_graph_node
from ..node_calls import operator_call
from ..spec import Node, Random, Ref
from ..spec.draw_inlining import draw_of
from .context import CheckContext
from .crop_search import BOX_CROP, check_crop_search
from .devices import resolve_device
from .fed_types import check_fed_type
from .gating import check_condition, check_probability
from .naming import closest
from .random_draws import check_draw_range, check_random_binding
from .structure import check_ref
from .values import check_value, value_fix


def check_operator(ctx: CheckContext, node: Node) -> None:
    """Problems of `node`; records its call for the nodes that read it (unless it names no
    operator this DALI can run)."""
    if node.op in GRAPH_OPS:
        _check_graph_node(ctx, node)
        return
    info = ctx.catalog.get(node.op)
    if info is None:
        near = ctx.catalog.similar(node.op)
        ctx.problem(
            f"unknown operator {node.op!r}",
            node.id,
            fix=f"did you mean {' or '.join(map(repr, near))}?"
            if near
            else "pick one from `augexplorer catalog`",
        )
        return
    if not info.available:
        ctx.problem(
            f"{info.name} {info.unavailable_reason}",
            node.id,
            fix="remove it, or run on a machine with a GPU",
        )
        return
    input_calls = [check_ref(ctx, ref, f"input {i}", node.id) for i, ref in enumerate(node.inputs)]
    _check_input_count(ctx, node, info)
    device = resolve_device(ctx, node, info, input_calls)
    ctx.check_seed(node.seed, node.id, "seed")
    args: dict[str, Any] = {}  # the constants that passed, which later checks may read
    for name, value in node.args.items():
        arg = info.arg(name)
        if arg is None:
            near_arg = closest(name, [a.name for a in info.args])
            ctx.problem(
                f"{info.name} has no argument {name!r}",
                node.id,
                name,
                fix=f"did you mean {near_arg!r}?"
                if near_arg
                else f"see `augexplorer catalog {info.name}`",
            )
            continue
        found = len(ctx.problems)
        if isinstance(value, Ref):
            feeder = check_ref(ctx, value, "argument input", node.id, name)
            if not arg.per_sample:
                ctx.problem(
                    "this argument cannot be fed from another node",
                    node.id,
                    name,
                    fix="give it a constant",
                )
            elif feeder is not None and feeder.device != "cpu":
                ctx.problem(
                    f"argument inputs must be CPU data, but {value.node!r} runs on {feeder.device}",
                    node.id,
                    name,
                    fix=f"set {value.node!r} to run on cpu",
                )
            elif feeder is not None and value.output == 0:
                check_fed_type(ctx, node.id, arg, feeder)
            draw = draw_of(ctx.spec, node.id, name) if len(ctx.problems) == found else None
            if draw is not None:  # a plain draw node only this argument reads
                check_draw_range(ctx, node, info.name, arg, draw, drawer=value.node)
        elif isinstance(value, Random):
            check_random_binding(ctx, node, arg, value)
            if len(ctx.problems) == found:  # a draw DALI can make: are its values in range?
                check_draw_range(ctx, node, info.name, arg, value)
        else:
            message = check_value(info, arg, value, node.args)
            if message:
                ctx.problem(message, node.id, name, fix=value_fix(info, arg))
            else:
                args[name] = value
    _check_needs_one_of(ctx, node, info)
    if info.name == BOX_CROP:
        check_crop_search(ctx, node)
    for arg in info.args:
        if arg.required and arg.name not in node.args:
            ctx.problem(
                "this argument is required",
                node.id,
                arg.name,
                fix=value_fix(info, arg)
                if arg.kind == "PYTHON_OBJECT"
                else f"give {arg.name} a value ({arg.describe_type()})",
            )
    if node.probability is not None:
        check_probability(ctx, node, info, node.probability)
    outputs = node.args.get("num_outputs", 1) if info.name == PYTHON_FUNCTION else info.outputs
    if node.when:
        check_condition(ctx, node, outputs)
    ctx.calls[node.id] = operator_call(node, info, device, args)
    if is_auto_aug(info.name):
        ctx.problems += policy_problems(ctx.spec, ctx.catalog, node)


def _check_graph_node(ctx: CheckContext, node: Node) -> None:
    """An expression or a constant (:mod:`augexplorer.expressions`), whose checks give its call."""
    inputs = [check_ref(ctx, ref, f"input {i}", node.id) for i, ref in enumerate(node.inputs)]
    call, problems = check_graph_node(node, inputs, ctx.spec, ctx.catalog.gpu)
    ctx.problems += problems
    if call is None:
        return
    if node.when:
        check_condition(ctx, node, 1)
    ctx.calls[node.id] = call


def _check_needs_one_of(ctx: CheckContext, node: Node, info: OpInfo) -> None:
    needed = NEEDS_ONE_OF.get(info.name)
    if needed is None:
        return
    if any(name in node.args for name in needed.args):
        return
    if needed.input is not None and len(node.inputs) >= needed.input:
        return
    names = needed.args
    choices = " or ".join(names) if len(names) < 3 else f"one of {', '.join(names)}"
    instead = " (or connect it as a second input)" if needed.input is not None else ""
    ctx.problem(
        f"{info.name} needs {needed.what}: {choices}{instead}",
        node.id,
        names[0] if len(names) == 1 else None,
        fix=needed.fix,
    )


def _check_input_count(ctx: CheckContext, node: Node, info: OpInfo) -> None:
    count = len(node.inputs)
    if count < info.min_inputs:
        names = ", ".join(i.name for i in info.inputs) or "an input"
        ctx.problem(
            f"{info.name} needs at least {info.min_inputs} input(s) ({names}), it has {count}",
            node.id,
            fix="connect its input to the node before it",
        )
    elif count > info.max_inputs:
        ctx.problem(
            f"{info.name} takes at most {info.max_inputs} input(s), it has {count}",
            node.id,
            fix="remove the extra inputs",
        )
