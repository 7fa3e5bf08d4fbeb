"""Compare's figures for albumentations' groups that pick (``OneOf``, ``SomeOf``): how often
each transform they hold is applied, on both sides, beside the rate the library's rules give
(OneOf: its p times the transform's share of the children's p; SomeOf: its p times n out of
the transforms times the transform's own p), and for a OneOf how often it applies at all
(its p). The original's counts come from albumentations itself (:mod:`.picks_original`); the
port's from the statistics run over the group ported alone."""

from __future__ import annotations

import dataclasses
import math
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ...bench.against import OriginalFailed
from ...spec import Node
from ..compare_figures import DrawFigures, rate_figures
from ..model import PortedStep, PortResult, TransformCall
from ..script_job import run_script_job
from . import picks_original
from .library import _child_p, _count, _probability

if TYPE_CHECKING:  # compare imports this module
    from ..compare import StepComparison

GROUPS = frozenset({"OneOf", "SomeOf"})
NOTE = "how often it applies each transform it holds, on both sides"
WEIGHED = (
    "inside the OneOf its p is its weight in the pick, and it applies whenever picked: how "
    "often is the OneOf's figure"
)


def picking_groups(result: PortResult) -> list[PortedStep]:
    """The OneOf and SomeOf steps whose every argument the file gives (they can be rebuilt)."""
    return [
        step
        for step in result.steps
        if step.call.library == "albumentations"
        and step.call.name in GROUPS
        and not any(call.unknowns() for call in step.call.walk())
    ]


def expected_rates(call: TransformCall) -> tuple[float | None, list[float]] | None:
    """How often, by albumentations 2.x's rules, the group applies (None where that is not
    one rate: a SomeOf's own p is not seen apart from its transforms') and each transform it
    holds is applied; None where a number is not given."""
    try:
        if call.name == "OneOf":
            p = _probability(call, 0.5)
            weights = [_child_p(child) for child in call.children]
            total = sum(weights)
            return p, [p * weight / total if total > 0 else 0.0 for weight in weights]
        p, n = _probability(call, 1.0), _count(call)
    except Exception:  # an argument the port refused: no rate to give
        return None
    share = min(1.0, n / len(call.children)) if call.children else 0.0
    return None, [p * share * _child_p(child) for child in call.children]


def encoded_group(call: TransformCall) -> dict[str, Any]:
    """The group as the original side builds it: its arguments and its transforms."""
    from ..compare import encode_call

    return {**encode_call(call), "children": [encoded_group(c) for c in call.children]}


def group_picks(
    result: PortResult,
    python: str,
    image_files: Sequence[str],
    inputs: list[np.ndarray],
    draws: int,
    seed: int,
) -> dict[int, tuple[tuple[DrawFigures, ...], str]]:
    """Per OneOf or SomeOf step of `result` (by ``id``): its figures and note."""
    groups = picking_groups(result)
    if not groups or draws < 1:
        return {}
    counted = _counted_by_library(
        python, [encoded_group(step.call) for step in groups], image_files, draws, seed
    )
    return {
        id(step): _figures(step, answer, inputs, draws, seed)
        for step, answer in zip(groups, counted, strict=True)
    }


def _figures(
    step: PortedStep, theirs: Mapping[str, Any], inputs: list[np.ndarray], draws: int, seed: int
) -> tuple[tuple[DrawFigures, ...], str]:
    if "error" in theirs:
        return (), f"{NOTE}; no rate: the original's picks were not counted: {theirs['error']}"
    ours = _port_counts(step, inputs, draws, seed)
    if ours is None:
        return (), f"{NOTE}; no rate: its port alone makes no node"
    expected = expected_rates(step.call)
    block_p, child_ps = expected if expected is not None else (None, [])
    figures: list[DrawFigures] = []
    notes: list[str] = []
    counts, trials = ours
    children = step.call.children
    if step.call.name == "OneOf" and all(c is not None for c in counts) and trials:
        # one transform per applied sample: the group applied where any of them was
        applied = sum(c or 0 for c in counts)
        figures.append(rate_figures("applied", applied, trials, theirs["applied"], block_p))
    for index, (child, successes) in enumerate(zip(children, counts, strict=True)):
        label = f"{child.name} applied (#{index + 1})"
        if successes is None:
            why = "it is a group of its own" if child.children else "its port is refused"
            notes.append(f"{child.name} (#{index + 1}) has no rate: {why}")
            continue
        p = child_ps[index] if index < len(child_ps) else None
        figures.append(rate_figures(label, successes, trials, theirs["children"][index], p))
    return tuple(figures), "; ".join([NOTE, *notes])


def _port_counts(
    step: PortedStep, inputs: list[np.ndarray], draws: int, seed: int
) -> tuple[list[int | None], int] | None:
    """How often the port of the group alone ran each transform it holds (None for one with no
    node: refused, or a group of its own), over `draws` samples, and the samples."""
    from ...stats import collect_stats
    from ..compare import _alone, _on_arrays
    from ..door import port_call

    alone = _alone((step.call,), step) or port_call(
        TransformCall("albumentations", "Compose", children=(step.call,))
    )
    own = next((s for s in alone.steps if s.call is step.call), None)
    if own is None:
        return None
    group_nodes = {node.id for node in own.nodes}
    spec = _on_arrays(alone.spec, len(inputs), seed)
    batches = max(1, math.ceil(draws / len(inputs)))
    stats = collect_stats(spec, (list(inputs), [0] * len(inputs)), batches=batches, device_id=None)
    trials = batches * len(inputs)
    counts: list[int | None] = []
    for child in step.call.children:
        ported = next((s for s in alone.steps if s.call is child), None)
        if ported is None or not ported.nodes or ported.call.children:
            counts.append(None)
            continue
        node = _gated_node(ported.nodes, group_nodes)
        if node is None:  # under no clause: applied to every sample (SomeOf of them all, p=1)
            counts.append(trials)
            continue
        rate = next((r for r in stats.rates if r.node == node.id and not r.together_with), None)
        counts.append(rate.successes if rate and rate.trials == trials else None)
    return counts, trials


def _gated_node(nodes: Sequence[Node], group_nodes: set[str]) -> Node | None:
    """The node of a transform held by the group that runs only where the group picked it (and
    its own coin said yes): of those under a clause of the group's, else of those under any
    clause (its own coin), the one under the fewest (not a condition inside the transform);
    None where every node runs on every sample."""
    gated = [n for n in nodes if any(clause.ref.node in group_nodes for clause in n.when)]
    gated = gated or [n for n in nodes if n.when]
    return min(gated, key=lambda n: len(n.when), default=None)


def weighed_children(result: PortResult, picked: Mapping[int, Any]) -> set[int]:
    """The steps (by ``id``) of the transforms a compared OneOf holds: their p is a weight
    there, so their own rate, compared alone, says nothing of the pipeline."""
    held = {
        id(child)
        for step in result.steps
        if id(step) in picked and step.call.name == "OneOf"
        for child in step.call.children
    }
    return {id(step) for step in result.steps if id(step.call) in held}


def without_own_rate(comparison: StepComparison) -> StepComparison:
    """A OneOf's transform's comparison without its own "applied" rate, saying why."""
    draws = tuple(d for d in comparison.draws if d.quantity != "applied")
    note = "; ".join(part for part in (comparison.note, WEIGHED) if part)
    return dataclasses.replace(comparison, draws=draws, note=note)


def _counted_by_library(
    python: str, groups: Sequence[dict[str, Any]], images: Sequence[str], count: int, seed: int
) -> list[dict[str, Any]]:
    """:mod:`.picks_original` run in `python` (where albumentations imports) for `groups`,
    encoded; one answer per group, ``{"error": ...}`` where the script itself could not run."""
    if not groups:
        return []
    job = {"groups": list(groups), "images": list(images), "count": count, "seed": seed}
    with tempfile.TemporaryDirectory(prefix="augexplorer-picks-") as folder:
        try:
            answer: list[dict[str, Any]] = run_script_job(
                python,
                picks_original.SCRIPT,
                job,
                Path(folder),
                timeout_s=picks_original.TIMEOUT_S,
                doing="count the picks",
                failing="counting the picks",
                quiet=True,
            )["groups"]
        except OriginalFailed as error:
            return [{"error": str(error)}] * len(groups)
    return answer
