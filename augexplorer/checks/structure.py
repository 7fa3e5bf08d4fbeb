"""The graph's structure: node names, dependency order (with cycles reported), references to
nodes' outputs, and inputs each operator can read."""

from __future__ import annotations

import graphlib
import keyword

from ..plan import Step
from ..spec import Ref
from .annotated import ANNOTATED_FIX, reads_missing_annotations
from .context import CheckContext
from .naming import IDENTIFIER, RESERVED_IDS, closest, suggest_id

MAX_CYCLES_REPORTED = 10


def check_ids(ctx: CheckContext) -> None:
    """Every node name unique, an identifier, and not one the exported module uses."""
    seen: set[str] = set()
    for node in ctx.spec.nodes:
        if node.id in seen:
            ctx.problem("two nodes have this name", node.id, fix="rename one of them")
        seen.add(node.id)
        if not IDENTIFIER.fullmatch(node.id) or keyword.iskeyword(node.id):
            ctx.problem(
                "a node name must be a Python identifier (letters, digits, _; not starting with a digit)",
                node.id,
                fix=f"rename it, e.g. {suggest_id(node.id)!r}",
            )
        elif node.id in RESERVED_IDS:
            ctx.problem(
                "this name is reserved for the exported module",
                node.id,
                fix=f"rename it, e.g. '{node.id}_node'",
            )


def topological_order(ctx: CheckContext) -> list[str]:
    """Node ids in dependency order, each node after what it reads and otherwise in the
    user's order; reports cycles (found by graphlib), each broken at one edge so that the
    rest of the graph is still checked. No recursion: a long chain is not a deep stack."""
    deps: dict[str, list[str]] = {}
    for node in ctx.spec.nodes:
        refs = [*node.inputs, *(v for v in node.args.values() if isinstance(v, Ref))]
        refs += [clause.ref for clause in node.when]
        known = deps.setdefault(node.id, [])
        known += [r.node for r in refs if r.node in ctx.spec and r.node not in known]
    for _ in range(MAX_CYCLES_REPORTED):
        try:
            graphlib.TopologicalSorter(deps).prepare()
            break
        except graphlib.CycleError as error:
            cycle: list[str] = error.args[1]  # each feeds the next; first == last
            ctx.problem(
                f"the graph has a cycle: {' -> '.join(cycle)}",
                cycle[0],
                fix="rewire one of these inputs to an earlier node",
            )
            deps[cycle[1]].remove(cycle[0])
    order: list[str] = []
    placed: set[str] = set()
    for root in deps:
        if root in placed:
            continue
        stack = [(root, iter(deps[root]))]
        placed.add(root)
        while stack:
            node_id, pending = stack[-1]
            dep = next((d for d in pending if d not in placed), None)
            if dep is None:
                stack.pop()
                order.append(node_id)
            else:
                placed.add(dep)
                stack.append((dep, iter(deps[dep])))
    return order


def check_ref(
    ctx: CheckContext, ref: Ref, what: str, node: str | None, argument: str | None = None
) -> Step | None:
    """The call `ref` reads (None when there is none to read), after checking that the node and
    its output exist; `what` names the reference in the problem ("input 0", "output 'images'")."""
    if ref.node not in ctx.spec:
        near = closest(ref.node, ctx.spec.ids()) if len(ctx.spec.nodes) <= 500 else None
        ctx.problem(
            f"{what} reads {str(ref)!r}, which does not exist",
            node,
            argument,
            fix=f"did you mean {near!r}?" if near else "connect it to an existing node",
        )
        return None
    step = ctx.calls.get(ref.node)
    if step is None:
        return None  # a problem in that node (or a cycle) is reported there
    if ref.output >= step.output_count and (
        missing := reads_missing_annotations(ctx.spec, ref, what)
    ):
        # an annotated graph on a folder: the fix is annotated data, not another index
        ctx.problem(missing, node, argument, fix=ANNOTATED_FIX)
    elif ref.output >= step.output_count:
        ctx.problem(
            f"{what} reads output {ref.output} of {ref.node!r}, which has {step.output_count} output(s)",
            node,
            argument,
            fix=f"use an output index below {step.output_count}",
        )
    return step


def check_inputs_readable(ctx: CheckContext) -> None:
    """An operator given data it cannot read (an image operator on encoded bytes, a HWC-only
    operator on CHW floats) is refused: DALI runs some of them on the bytes without a word."""
    from ..catalog.flow import decoder_downstream, input_problems

    flagged = {problem.node for problem in ctx.problems}
    for node_id, reason in input_problems(ctx.spec, ctx.catalog, certain_only=True).items():
        if node_id in flagged:
            continue
        decoder = decoder_downstream(ctx.spec, ctx.catalog, node_id)
        fix = (
            f'move it after {decoder!r} (the panel\'s "Move after" button)'
            if decoder
            else "connect it to a node whose output it can read"
        )
        ctx.problem(reason, node_id, fix=fix)
