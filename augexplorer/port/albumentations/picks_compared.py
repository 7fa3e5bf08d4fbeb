"""Compare's figures for the groups that pick: albumentations' ``OneOf`` and ``SomeOf``, how
often each transform they hold is applied, and torchvision's ``RandomChoice``, how often it
picks each; on both sides, beside the rate the library's rules give (OneOf: its p times the
transform's share of the children's p; SomeOf: its p times n out of the transforms times the
transform's own p; RandomChoice: the transform's share of its p, equal shares without p), and
for a OneOf how often it applies at all (its p). The original's counts come from the library
itself: albumentations' from :mod:`.picks_original`, torchvision's from the compare runner's
job (its RandomChoice given stand-ins that say when they run). The port's come from the
statistics run over the group ported alone, a RandomChoice's from its pick node."""

from __future__ import annotations

import dataclasses
import math
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ...bench.against import OriginalFailed
from ...spec import GraphSpec, Node
from ..compare_figures import DrawFigures, rate_figures
from ..compare_random import node_values
from ..model import PortedStep, PortResult, TransformCall
from ..script_job import run_script_job
from . import picks_original
from .library import _child_p, _count, _probability

if TYPE_CHECKING:  # compare imports this module
    from ..compare import StepComparison

GROUPS = frozenset(
    {("albumentations", "OneOf"), ("albumentations", "SomeOf"), ("torchvision", "RandomChoice")}
)
# counted in the compare runner's own job, where torchvision runs: not by picks_original
RUNNER_COUNTED = frozenset({("torchvision", "RandomChoice")})
NOTE = "how often it applies each transform it holds, on both sides"
PICK_NOTE = (
    "how often it picks each transform it holds, on both sides (a transform's own p, where it "
    "has one, is compared on its own row)"
)
WEIGHED = (
    "inside the OneOf its p is its weight in the pick, and it applies whenever picked: how "
    "often is the OneOf's figure"
)


def picking_groups(result: PortResult) -> list[PortedStep]:
    """The OneOf, SomeOf and RandomChoice steps whose arguments the file gives (they can be
    rebuilt): every one for albumentations' groups, built with their transforms; a
    RandomChoice's own, as its transforms are stood in for."""
    return [
        step
        for step in result.steps
        if (step.call.library, step.call.name) in GROUPS
        and not any(call.unknowns() for call in _rebuilt(step.call))
    ]


def _rebuilt(call: TransformCall) -> list[TransformCall]:
    """The calls the original side builds of the group `call`."""
    if (call.library, call.name) in RUNNER_COUNTED:
        return [call]
    return list(call.walk())


def runner_entries(result: PortResult, draws: int) -> list[tuple[PortedStep, dict[str, Any]]]:
    """The groups whose picks the compare runner counts (a RandomChoice), with their entries
    for its job: run `draws` times, counting which transform each sample ran."""
    from ..compare import encode_call

    if draws < 1:
        return []
    return [
        (step, {**encode_call(step.call), "rate": draws, "picks": len(step.call.children)})
        for step in picking_groups(result)
        if (step.call.library, step.call.name) in RUNNER_COUNTED and step.call.children
    ]


def expected_rates(call: TransformCall) -> tuple[float | None, list[float]] | None:
    """How often, by albumentations 2.x's rules, the group applies (None where that is not
    one rate: a SomeOf's own p is not seen apart from its transforms'; a RandomChoice runs one
    on every sample) and each transform it holds is applied (picked); None where a number is
    not given."""
    try:
        if call.name == "RandomChoice":
            # torchvision normalizes p (v2 itself, v1 through random.choices); None: equal
            weights = [float(w) for w in call.argument(0, "p") or [1.0] * len(call.children)]
            return None, [weight / sum(weights) for weight in weights]
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
    runner_counted: Mapping[int, Mapping[str, Any]] | None = None,
) -> dict[int, tuple[tuple[DrawFigures, ...], str]]:
    """Per OneOf, SomeOf or RandomChoice step of `result` (by ``id``): its figures and note.
    `runner_counted`: the compare runner's answers for the entries :func:`runner_entries`
    gave it, by step ``id``."""
    groups = picking_groups(result)
    if not groups or draws < 1:
        return {}
    counted = dict(runner_counted or {})
    scripted = [s for s in groups if (s.call.library, s.call.name) not in RUNNER_COUNTED]
    answers = _counted_by_library(
        python, [encoded_group(step.call) for step in scripted], image_files, draws, seed
    )
    counted.update({id(step): answer for step, answer in zip(scripted, answers, strict=True)})
    return {
        id(step): _figures(step, counted[id(step)], inputs, draws, seed)
        for step in groups
        if id(step) in counted
    }


def _figures(
    step: PortedStep, theirs: Mapping[str, Any], inputs: list[np.ndarray], draws: int, seed: int
) -> tuple[tuple[DrawFigures, ...], str]:
    picks = step.call.name == "RandomChoice"  # runs the one it picks: no coin of its own
    note, done = (PICK_NOTE, "picked") if picks else (NOTE, "applied")
    if "error" in theirs:
        return (), f"{note}; no rate: the original's picks were not counted: {theirs['error']}"
    ours = _port_counts(step, inputs, draws, seed)
    if ours is None:
        return (), f"{note}; no rate: its port alone makes no node"
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
        label = f"{child.name} {done} (#{index + 1})"
        if successes is None:
            why = "it is a group of its own" if child.children else "its port is refused"
            notes.append(f"{child.name} (#{index + 1}) has no rate: {why}")
            continue
        p = child_ps[index] if index < len(child_ps) else None
        figures.append(rate_figures(label, successes, trials, theirs["children"][index], p))
    return tuple(figures), "; ".join([note, *notes])


def _port_counts(
    step: PortedStep, inputs: list[np.ndarray], draws: int, seed: int
) -> tuple[list[int | None], int] | None:
    """How often the port of the group alone ran each transform it holds (None for one with no
    node: refused, or a group of its own), over `draws` samples, and the samples. A
    RandomChoice's picks are read from its pick node: a transform it picks may have no node,
    or nodes under a coin of their own."""
    from ...stats import collect_stats
    from ..compare import _alone, _on_arrays
    from ..door import port_call

    alone = _alone((step.call,), step) or port_call(
        TransformCall(step.call.library, "Compose", children=(step.call,))
    )
    own = next((s for s in alone.steps if s.call is step.call), None)
    if own is None:
        return None
    group_nodes = {node.id for node in own.nodes}
    spec = _on_arrays(alone.spec, len(inputs), seed)
    if step.call.name == "RandomChoice":
        return _picked(own, spec, inputs, draws)
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


def _picked(
    own: PortedStep, spec: GraphSpec, inputs: list[np.ndarray], draws: int
) -> tuple[list[int | None], int] | None:
    """How often the group's one pick node drew each transform's index, and the samples; None
    where the group has no such node (an edited graph)."""
    picks = [node.id for node in own.nodes if node.op == "random.choice"]
    if len(picks) != 1:
        return None
    drawn = [round(value) for value in node_values(spec, picks[0], inputs, draws)]
    counts: list[int | None] = [drawn.count(index) for index in range(len(own.call.children))]
    return counts, len(drawn)


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
