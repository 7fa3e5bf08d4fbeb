"""Checking a graph: every problem in a :class:`~augexplorer.spec.GraphSpec` at once, each
naming the node, the argument and the fix. Checks only report; turning a checked graph into
a plan is :mod:`augexplorer.lowering`'s job.

One walk in dependency order: a node is checked after the nodes it reads, whose calls
(device, output count, constant arguments) its own checks need.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ..catalog import Catalog, load_catalog
from ..errors import Problem
from ..plan import Step
from ..spec import GraphSpec, Source
from ..spec.schema import MAX_BATCH, MAX_NAME
from .box_layouts import box_layout_warnings
from .context import CheckContext
from .numbers import unheld_numbers
from .operators import check_operator
from .sources import check_source
from .structure import check_ids, check_inputs_readable, check_ref, topological_order


@dataclass(frozen=True)
class CheckedGraph:
    """What checking found: the problems, and for a graph without any, what lowering needs."""

    problems: list[Problem]
    order: list[str]  # node ids, each after the nodes it reads
    calls: Mapping[str, Step]  # node id -> the node's own call (device, constant arguments)
    # what runs but gives what the user did not mean (boxes read in another layout): said
    # beside the run, which it does not stop
    warnings: tuple[Problem, ...] = ()


def check_graph(spec: GraphSpec, catalog: Catalog) -> CheckedGraph:
    """Every problem of `spec` against `catalog`, in the order a reader meets them: the graph's
    own settings, node names, then each node in dependency order, then the outputs."""
    unheld = unheld_numbers(spec)
    if unheld:  # no other check can read such a number: these problems come first, alone
        return CheckedGraph(unheld, [], {})
    ctx = CheckContext(spec, catalog)
    _check_settings(ctx)
    check_ids(ctx)
    if not spec.sources():
        ctx.problem(
            "the graph has no data source",
            fix="add a source (the bundled samples, a folder or a file list)",
        )
    order = topological_order(ctx)
    for node_id in order:
        node = spec.node(node_id)
        if isinstance(node, Source):
            check_source(ctx, node)
        else:
            check_operator(ctx, node)
    check_inputs_readable(ctx)
    for name, ref in dict(spec.outputs).items():
        check_ref(ctx, ref, f"output {name!r}", None)
    if not ctx.problems and not catalog.gpu and _written_for_gpu(spec):
        # Nodes set to gpu or mixed run on the CPU here (devices.resolve_device), so the graph
        # is also checked as a GPU machine, and its exported module there, place it.
        ctx.problems += check_graph(spec, load_catalog(gpu=True)).problems
    return CheckedGraph(ctx.problems, order, ctx.calls, tuple(box_layout_warnings(spec)))


def _written_for_gpu(spec: GraphSpec) -> bool:
    return any(node.device in ("gpu", "mixed") for node in spec.operators())


def _check_settings(ctx: CheckContext) -> None:
    """The graph's seed, batch size and names, and that it has nodes at all."""
    spec = ctx.spec
    ctx.check_seed(spec.seed, None, "seed")
    size = spec.batch_size
    if isinstance(size, bool) or not isinstance(size, int) or not 1 <= size <= MAX_BATCH:
        ctx.problem(f"batch size {size!r:.40} is out of range", fix=f"use 1..{MAX_BATCH}")
    if not spec.nodes:
        ctx.problem("the graph is empty", fix="add a data source and at least one operator")
    for what, text in [("graph name", spec.name)] + [("output name", o) for o in spec.outputs]:
        if not isinstance(text, str) or len(text) > MAX_NAME:
            ctx.problem(
                f"the {what} {text!r:.40} is not text of at most {MAX_NAME} characters",
                fix="shorten it",
            )
