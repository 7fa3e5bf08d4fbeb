"""Compare with the original: the same images through the user's own torchvision or
albumentations pipeline and through its port, side by side, with per-transform parity figures.

- Each transform alone, its probability set to 1, on both sides: where both sides give the
  same output under two seeds (its parameters are fixed), the pixel difference (mean and max
  abs, PSNR); the library's class with the user's values against the DALI nodes of its port.
- For random transforms, what each side draws over many samples (crop area and aspect, angles,
  colour factors): the DALI side counted by :func:`augexplorer.stats.collect_stats`, the
  original's from the library's ``get_params`` or replay.

Running the original runs the user's library code. A live object (``compare_object``) is the
caller's to run, in this process. A file (``compare_file``) is run only with ``run_file=True``
(the trust rule), in the Python `python` names (default this one): a subprocess of
:mod:`augexplorer.bench.original_outputs`, so torchvision can run where it imports.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import random
import re
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..bench.against import OriginalFailed, OriginalWouldRun
from ..bench.original_runner import RUN_NAME, TAKE_TENSORS
from ..spec import GraphSpec, Node, Probability, Random, Ref, Source
from .albumentations.picks_compared import (
    group_picks,
    runner_entries,
    weighed_children,
    without_own_rate,
)
from .albumentations.sized_before import sized_before
from .argument_names import explain_unknown
from .compare_draws import quantities
from .compare_figures import (
    DrawFigures,
    PixelFigures,
    histogram_figures,
    pixel_figures,
    rate_figures,
    sample_figures,
)
from .compare_loaded import loaded_compare
from .compare_own_pins import own_pin
from .compare_pins import FactorPin, Pin, WindowPin, pin_of
from .compare_random import coin_rate, port_draws_note
from .compare_samples import read_per_sample, sampled_draws
from .door import port_call, port_found, read_file_pipelines
from .live import read_live
from .model import PortedStep, PortResult, Symbol, TransformCall, Unknown
from .original_builder import builder_of
from .reading import choose, file_source
from .script_job import run_script_job

RUNNER = Path(__file__).resolve().parents[1] / "bench" / "original_outputs.py"
DRAWS = 240  # draws a side for a random transform's distribution
TIMEOUT_S = 600

# torchvision classes taking their probability as a positional argument: its index
TORCHVISION_P = {
    "RandomHorizontalFlip": 0,
    "RandomVerticalFlip": 0,
    "RandomGrayscale": 0,
    "RandomInvert": 0,
    "RandomAutocontrast": 0,
    "RandomEqualize": 0,
    "RandomErasing": 0,
    "RandomPosterize": 1,
    "RandomSolarize": 1,
    "RandomAdjustSharpness": 1,
    "RandomPerspective": 1,
}


@dataclass(frozen=True)
class StepComparison:
    """One transform's figures: `pixels` where its parameters could be fixed, `draws` for what
    it draws; `note` says why a figure is missing."""

    transform: str
    line: int | None
    grade: str
    nodes: tuple[str, ...]
    pixels: PixelFigures | None = None
    draws: tuple[DrawFigures, ...] = ()
    note: str = ""

    def describe(self) -> str:
        where = f" (line {self.line})" if self.line is not None else ""
        lines = [f"{self.transform}{where} [{self.grade}] -> {', '.join(self.nodes) or '-'}"]
        if self.pixels is not None:
            lines.append(f"    pixels, fixed parameters: {self.pixels.describe()}")
        lines += [f"    drawn {d.describe()}" for d in self.draws]
        if self.note:
            lines.append(f"    {self.note}")
        return "\n".join(lines)


@dataclass
class Comparison:
    """The images in (`inputs`), what the original and the port made of them (HWC arrays as
    each side put them out; :func:`display` turns them into pictures) and the figures."""

    library: str
    python: str
    inputs: list[np.ndarray]
    original: list[np.ndarray]
    ported: list[np.ndarray]
    steps: list[StepComparison]
    versions: dict[str, str] = field(default_factory=dict)
    original_error: str = ""

    def step(self, transform_name: str) -> StepComparison:
        """The first step whose transform is `transform_name` (``"Resize"``)."""
        return next(s for s in self.steps if s.transform.split("(", 1)[0] == transform_name)

    def table(self) -> str:
        versions = ", ".join(f"{k} {v}" for k, v in self.versions.items())
        head = [
            f"{len(self.inputs)} images through the original ({self.library}, {self.python}"
            + (f": {versions}" if versions else "")
            + ") and the port"
        ]
        if self.original_error:
            head.append(f"the original pipeline did not run: {self.original_error}")
        return "\n".join(head + [step.describe() for step in self.steps])


# ---- ways in ------------------------------------------------------------------------------------


def compare_object(
    obj: Any,
    images: Sequence[np.ndarray],
    *,
    graph: GraphSpec | None = None,
    draws: int = DRAWS,
    seed: int = 0,
) -> Comparison:
    """Compare a live Compose with its port, in this process (the caller runs its own
    object). `graph`: the ported graph as edited (default: the port as made)."""
    from ..bench import original_outputs
    from ..bench.original_runner import fed_as_written

    compose = read_live(obj)
    result = with_graph(port_call(compose), graph)
    # a pipeline written for tensors takes each image as a tensor, as the file runner gives it
    live = fed_as_written(obj) if compose.library == "torchvision" else obj

    def run(job: dict[str, Any]) -> dict[str, Any]:
        return original_outputs.run(job, live=live)

    return _compare(result, compose.library, images, run, sys.executable, draws, seed)


def compare_file(
    path: str | Path,
    images: Sequence[np.ndarray],
    *,
    run_file: bool = False,
    python: str | None = None,
    pipeline: str | None = None,
    params: Mapping[str, Any] | None = None,
    graph: GraphSpec | None = None,
    draws: int = DRAWS,
    seed: int = 0,
) -> Comparison:
    """Compare the pipeline of a Python file with its port. The original runs the file, so
    only with ``run_file=True``, in `python` (a Python where the library imports)."""
    path = Path(path)
    if not run_file:
        raise OriginalWouldRun(
            f"comparing with the original runs {path} and its transforms (fix: allow it with "
            "run_file=True, or tick 'run the file' in the panel, if you trust the file)"
        )
    source = file_source(path)
    read = read_file_pipelines(path, source, params)
    # no Compose written: the albumentations pipeline it loads (A.load), as its port takes it
    loaded = None if read else loaded_compare(path, source, pipeline, params)
    if loaded is not None:
        result, pipeline_job = with_graph(loaded[0], graph), loaded[1]
        library = "albumentations"
    else:
        found = choose(read, pipeline, where=str(path))
        result = with_graph(port_found(found), graph)
        library = found.compose.library
        pipeline_job = {
            "source": source,
            "where": str(path),
            "pipeline": found.name,
            "params": dict(params or {}),
            # the function or class building it, and its arguments as the port read them
            "builder": builder_of(source, found.compose.line),
        }
    python = python or sys.executable

    def run(job: dict[str, Any]) -> dict[str, Any]:
        return _subprocess(python, {**job, "pipeline": pipeline_job})

    return _compare(result, library, images, run, python, draws, seed)


def with_graph(result: PortResult, graph: GraphSpec | None) -> PortResult:
    """`result` with its graph as edited: each step's nodes as `graph` has them now (a node
    removed since is left out)."""
    if graph is None:
        return result

    def now(node: Node) -> Node | None:
        found = graph.node(node.id) if node.id in graph else None
        return found if isinstance(found, Node) else None

    steps = tuple(
        dataclasses.replace(step, nodes=tuple(n for n in map(now, step.nodes) if n is not None))
        for step in result.steps
    )
    return dataclasses.replace(result, spec=graph, steps=steps)


def _subprocess(python: str, job: dict[str, Any]) -> dict[str, Any]:
    answer: dict[str, Any] = run_script_job(
        python,
        RUNNER,
        job,
        Path(str(job["out"])),
        timeout_s=TIMEOUT_S,
        doing="run the original",
        failing="the original's runner",
    )
    return answer


# ---- the comparison -----------------------------------------------------------------------------


def _compare(
    result: PortResult,
    library: str,
    images: Sequence[np.ndarray],
    run: Any,
    python: str,
    draws: int,
    seed: int,
) -> Comparison:
    inputs = [_rgb(image, index) for index, image in enumerate(images)]
    if not inputs:
        raise ValueError("compare needs at least one image")
    leaves = [step for step in result.steps if not step.call.children]
    # a step whose argument is code (Lambda's lambda) cannot be rebuilt alone in the runner
    coded = [step for step in leaves if step.call.unknowns()]
    leaves = [step for step in leaves if not step.call.unknowns()]
    plans = [_StepPlan.of(step, leaves) for step in leaves]
    with tempfile.TemporaryDirectory(prefix="augexplorer-compare-") as tmp:
        folder = Path(tmp)
        files = []
        for index, image in enumerate(inputs):
            files.append(str(folder / f"input_{index}.npy"))
            np.save(files[-1], image)
        sent: list[dict[str, Any]] = []
        for plan in plans:
            plan.drawn_at = len(sent)
            sent.append(plan.entry(plan.call, draws))
            if plan.pin is not None:
                plan.pinned_at = len(sent)
                fixed = plan.pin.original() if isinstance(plan.pin, WindowPin) else {}
                sent.append({**plan.entry(plan.pinned, 0), **fixed})
            else:
                plan.pinned_at = plan.drawn_at
            if plan.user is not None and plan.rated() and not plan.before and draws:
                plan.rated_at = len(sent)
                # a class of the project's own is counted by what it returns (original_outputs)
                kept = {"kept": True} if _own_coin(plan.user) else {}
                sent.append({**encode_call(plan.user), "rate": draws, **kept})
        # a RandomApply's coin: the original side counts how often it runs what it holds
        coined = [s for s in result.steps if draws and not s.call.unknowns() and _coin_of(s)]
        coin_at = {}
        for step in coined:
            coin_at[id(step)] = len(sent)
            sent.append({**encode_call(step.call), "rate": draws, "coin": True})
        # a RandomChoice's pick: the original side counts which transform it ran, sample by sample
        chosen = runner_entries(result, draws)
        pick_at = {}
        for step, entry in chosen:
            pick_at[id(step)] = len(sent)
            sent.append(entry)
        job = {
            "library": library,
            "images": files,
            "out": str(folder / "out"),
            "calls": sent,
            "draws": draws,
            "seed": seed,
        }
        (folder / "out").mkdir()
        answer = run(job)
        if "error" in answer:
            raise OriginalFailed(str(answer["error"]))
        # albumentations' OneOf and SomeOf: how often each transform they hold applies;
        # torchvision's RandomChoice: how often it picks each
        counted = {key: answer["calls"][at] for key, at in pick_at.items()}
        picked = group_picks(result, python, files, inputs, draws, seed, counted)
        original = [np.load(p) for p in answer.get("pipeline", [])]
        theirs = [
            {**c, "arrays": [np.load(p) for p in c.get("outputs", [])]} for c in answer["calls"]
        ]
    ported = run_port(result.spec, inputs) or []
    steps = [
        _step(step, plan, theirs[plan.pinned_at], theirs[plan.drawn_at], inputs, draws, seed)
        for step, plan in zip(leaves, plans, strict=True)
    ]
    for index, (step, plan) in enumerate(zip(leaves, plans, strict=True)):
        rated = theirs[plan.rated_at] if plan.rated_at is not None else {}
        if rated.get("applied"):
            applied = _rate_figures(step, rated["applied"], inputs, draws, seed)
            if applied is not None:
                steps[index] = dataclasses.replace(
                    steps[index], draws=(applied, *steps[index].draws)
                )
    steps = _with_coins(result, leaves, steps, coined, coin_at, theirs, inputs, draws, seed, picked)
    steps += [
        StepComparison(
            s.call.text(),
            s.call.line,
            s.origin.fidelity if s.origin is not None else "",
            tuple(n.id for n in s.nodes),
            note="not run alone: its argument is code, which runs only in your file (the "
            "whole pipeline's tiles show it)",
        )
        for s in coded
    ]
    steps += [
        # a part left out (a detection pipeline's boxes) is said as that part, not its Compose
        StepComparison(
            f"the whole pipeline's {r.part}" if r.part else r.call.text(),
            r.call.line,
            "refused",
            (),
            note=r.reason,
        )
        for r in result.refusals
    ]
    return Comparison(
        library,
        python,
        inputs,
        original,
        ported,
        steps,
        {k: v for k, v in answer.get("versions", {}).items()},
        _whole_pipeline_error(str(answer.get("pipeline_error", "")), result, library),
    )


def _with_coins(
    result: PortResult,
    leaves: Sequence[PortedStep],
    compared: list[StepComparison],
    coined: Sequence[PortedStep],
    coin_at: Mapping[int, int],
    theirs: Sequence[Mapping[str, Any]],
    inputs: list[np.ndarray],
    draws: int,
    seed: int,
    picked: Mapping[int, tuple[tuple[DrawFigures, ...], str]],
) -> list[StepComparison]:
    """The leaves' comparisons with each RandomApply's own before the transforms it holds,
    in the pipeline's order: how often its coin ran them on both sides; and each OneOf's,
    SomeOf's or RandomChoice's (`picked`: its figures and note), how often it applied (picked)
    each of them."""
    if not coined and not picked:
        return compared
    by_step = {id(step): comparison for step, comparison in zip(leaves, compared, strict=True)}
    for step in coined:
        counted = theirs[coin_at[id(step)]]
        figures = None
        if counted.get("applied"):
            figures = _coin_figures(step, counted["applied"], inputs, draws, seed)
        why = counted.get("error", "") or ("" if figures else "its port's coin was not counted")
        by_step[id(step)] = StepComparison(
            step.call.text(),
            step.call.line,
            step.origin.fidelity,
            tuple(node.id for node in step.nodes),
            draws=(figures,) if figures else (),
            note="how often it runs what it holds, on both sides"
            + (f"; no rate: {why}" if why else ""),
        )
    for weighed in weighed_children(result, picked) & by_step.keys():
        by_step[weighed] = without_own_rate(by_step[weighed])
    for step in result.steps:
        if id(step) in picked:
            rates, note = picked[id(step)]
            by_step[id(step)] = StepComparison(
                step.call.text(),
                step.call.line,
                step.origin.fidelity,
                tuple(node.id for node in step.nodes),
                draws=rates,
                note=note,
            )
    return [by_step[id(step)] for step in result.steps if id(step) in by_step]


def _whole_pipeline_error(error: str, result: PortResult, library: str) -> str:
    """Why the original pipeline did not run as a whole, for a person: a detection pipeline
    (its boxes left out by the port) fails on images alone, which is what Compare gives it."""
    boxes = next((r for r in result.refusals if r.part == "boxes"), None)
    if not error or boxes is None or library != "torchvision":
        return error
    short = error if len(error) <= 120 else error[:117].rstrip() + "..."
    return (
        f"it is a detection pipeline, which {library} runs only with boxes beside each image, "
        f"and Compare gives it images alone ({short}); its transforms are compared one by one "
        "below (to see the whole pipeline with its boxes, open the graph on annotated data: "
        "docs/annotations.md)"
    )


@dataclass
class _StepPlan:
    """One transform's calls: `call` (always applied) for its draws, `pinned` (its parameters
    fixed where a pin is known) for its pixels, and their places in the job's calls. A
    transform folded into another's node (Normalize into ToTensor's) runs after that one's
    call (`before`) on both sides."""

    call: TransformCall
    pinned: TransformCall
    pin: Pin | FactorPin | WindowPin | None
    before: tuple[TransformCall, ...] = ()
    drawn_at: int = 0
    pinned_at: int = 0
    user: TransformCall | None = None  # the call as written, for how often it applies
    rated_at: int | None = None

    # the conversions that turn each image into what the transform meets in the pipeline (a
    # uint8 tensor after PILToTensor or ToImage), run before it, outside its draws and pins
    given: tuple[TransformCall, ...] = ()

    @classmethod
    def of(cls, step: PortedStep, steps: Sequence[PortedStep]) -> _StepPlan:
        applied = certain(step.call)
        before = tuple(
            certain(other.call)
            for other in steps
            if step.folded_into and any(n.id == step.folded_into for n in other.nodes)
        )
        made_tensor = _tensor_conversions_before(step, steps)
        given: tuple[TransformCall, ...] = ()
        if step.call.library == "torchvision" and not (
            made_tensor and made_tensor[0].name in PIL_CONVERSIONS
        ):
            # a pipeline written for tensors (read_image's), with no conversion of a PIL image
            # of its own: both sides take the image as a uint8 tensor, as its dataset gives it
            fed_tensors = _written_for_tensors(steps)
            made_tensor = (AS_TENSOR, *made_tensor)
        else:
            fed_tensors = bool(made_tensor)
        if made_tensor and (step.call.name in TAKES_TENSORS or (fed_tensors and before)):
            # it refuses the PIL image a transform alone is given (or runs after another's
            # call, on the tensor): both sides convert first, as the pipeline does (the others
            # keep their pins and draws, run alone)
            before = made_tensor + tuple(call for call in before if call not in made_tensor)
        elif fed_tensors:
            # the pipeline hands it a tensor: torchvision resizes (and more) a tensor otherwise
            # than a PIL image, so both sides give it the tensor
            given = made_tensor
        # a crop of a fixed size runs after the resizes and pads that size its images
        before = tuple(certain(call) for call in sized_before(step, steps)) + before
        # a class of the project's own: its radius and coin fixed by its own arguments
        pin = None if before else (pin_of(applied) or own_pin(applied))
        return cls(
            applied,
            pin.apply(applied) if pin else applied,
            pin,
            before,
            user=step.call,
            given=given,
        )

    def entry(self, call: TransformCall, draws: int) -> dict[str, Any]:
        given = {"given": [encode_call(c) for c in self.given]} if self.given else {}
        if not self.before:
            return {**encode_call(call), "draws": draws, **given}
        return {"transforms": [encode_call(c) for c in (*self.before, call)], "draws": 0}

    def calls(self, call: TransformCall) -> tuple[TransformCall, ...]:
        return (*self.given, *self.before, call)

    def rated(self) -> bool:
        """Whether the call as written applies with a probability: `certain` changed it, or
        it is a class of the project's own under its own coin (which `certain` cannot set:
        its pin finds the argument that does)."""
        return self.user is not None and (self.call != self.user or _own_coin(self.user))


def _own_coin(call: TransformCall) -> bool:
    """Whether `call` is a class of the project's own that applies with a probability of its
    own (DINO's ``GaussianBlur(p=0.1)``, ``Solarization(0.2)``); at 0 its port is no node."""
    return call.own is not None and 0 < call.own.p < 1


# torchvision's transforms that take only a tensor (a PIL image is refused)
TAKES_TENSORS = frozenset({"RandomErasing", "Normalize", "ConvertImageDtype", "ToDtype"})
# torchvision's transforms that turn a PIL image into a tensor
PIL_CONVERSIONS = frozenset({"ToTensor", "PILToTensor", "ToImage"})
# what a pipeline written for tensors is given first on both sides: the uint8 CHW tensor that
# torchvision.io.read_image gives (line 0: no line of the file)
AS_TENSOR = TransformCall("torchvision", "PILToTensor", line=0)
# torchvision's transforms that turn the PIL image into a tensor, or the tensor's type
TENSOR_CONVERSIONS = frozenset(
    {"ToTensor", "PILToTensor", "ToImage", "ToDtype", "ConvertImageDtype", "ToPureTensor"}
)


def _written_for_tensors(steps: Sequence[PortedStep]) -> bool:
    """Whether the original pipeline takes each image as a uint8 tensor (as the runner feeds
    one written for tensors): a transform taking only tensors comes before any conversion."""
    for step in steps:
        if step.call.library != "torchvision" or step.call.name in PIL_CONVERSIONS:
            return False
        if step.call.name in TAKE_TENSORS:  # the runner feeds the pipeline tensors
            return True
    return False


def _tensor_conversions_before(
    step: PortedStep, steps: Sequence[PortedStep]
) -> tuple[TransformCall, ...]:
    """The torchvision conversions to a tensor that come before `step` in the pipeline."""
    if step.call.library != "torchvision":
        return ()
    earlier = list(itertools.takewhile(lambda other: other is not step, steps))
    return tuple(certain(o.call) for o in earlier if o.call.name in TENSOR_CONVERSIONS)


def _rate_figures(
    step: PortedStep, theirs: Sequence[float], inputs: list[np.ndarray], draws: int, seed: int
) -> DrawFigures | None:
    """How often the transform applies, with the user's probability: the DALI side's rate as
    the statistics count it (its coin, or its node's apply-with-probability)."""
    from ..stats import collect_stats

    alone = _alone((step.call,), step)
    if alone is None:
        return None
    spec = _on_arrays(alone.spec, len(inputs), seed)
    coin = coin_rate(spec, alone.steps, inputs, draws)  # a transform's own coin, counted
    if coin is not None:
        return rate_figures("applied", coin[0], coin[1], theirs, coin[2])
    batches = max(1, math.ceil(draws / len(inputs)))
    stats = collect_stats(spec, (list(inputs), [0] * len(inputs)), batches=batches, device_id=None)
    node_ids = {node.id for s in alone.steps for node in s.nodes}
    rate = next((r for r in stats.rates if r.node in node_ids and not r.together_with), None)
    if rate is None or not rate.trials:
        return None
    return rate_figures("applied", rate.successes, rate.trials, theirs, rate.expected)


# containers whose own coin decides whether what they hold runs, and where their p is given
# (after the list of transforms, which the call's args leave out)
COINS = {("torchvision", "RandomApply"): (0, "p", 0.5)}


def _coin_of(step: PortedStep) -> tuple[float, str] | None:
    """A container's probability and the id of its coin node; None for any other step."""
    where = COINS.get((step.call.library, step.call.name))
    coins = [node.id for node in step.nodes if node.op == "random.coin_flip"]
    if where is None or len(coins) != 1:
        return None
    p = step.call.argument(*where)
    if isinstance(p, bool) or not isinstance(p, (int, float)):
        return None
    return float(p), coins[0]


def _coin_figures(
    step: PortedStep, theirs: Sequence[float], inputs: list[np.ndarray], draws: int, seed: int
) -> DrawFigures | None:
    """How often a container (RandomApply) ran what it holds on the DALI side: the rate of a
    node run under its coin alone, as the statistics count it, against the original's."""
    from ..stats import collect_stats

    alone = _alone((step.call,), step)
    # the coin's id in the port of the container alone (the pipeline's may be numbered)
    coins = [found for s in (alone.steps if alone else ()) if (found := _coin_of(s))]
    if alone is None or not coins:
        return None
    p, coin_id = coins[0]
    spec = _on_arrays(alone.spec, len(inputs), seed)
    batches = max(1, math.ceil(draws / len(inputs)))
    stats = collect_stats(spec, (list(inputs), [0] * len(inputs)), batches=batches, device_id=None)

    def under_coin_alone(node_id: str) -> bool:
        node = spec.node(node_id) if node_id in spec else None
        return (
            isinstance(node, Node)
            and len(node.when) == 1
            and node.when[0].ref.node == coin_id
            and node.when[0].holds
        )

    rate = next((r for r in stats.rates if not r.together_with and under_coin_alone(r.node)), None)
    if rate is None or not rate.trials:
        return None
    return rate_figures("applied", rate.successes, rate.trials, theirs, p)


def _step(
    step: PortedStep,
    plan: _StepPlan,
    pinned: dict[str, Any],
    drawn: dict[str, Any],
    inputs: list[np.ndarray],
    draws: int,
    seed: int,
) -> StepComparison:
    origin = step.origin
    base = StepComparison(
        origin.transform, origin.line, origin.fidelity, tuple(node.id for node in step.nodes)
    )
    notes: list[str] = []
    if plan.before:
        names = ", ".join(c.name for c in plan.before if c is not AS_TENSOR)
        if plan.before[0] is AS_TENSOR:
            notes.append(
                "the image given as a uint8 tensor on both sides (PILToTensor first), as the "
                "pipeline takes it: it converts no PIL image itself"
            )
        if names and step.folded_into:
            notes.append(f"folded into {step.folded_into}: compared together with {names}")
        elif names:
            notes.append(f"run after {names} on both sides, as the pipeline runs it")
    if plan.given:
        made = ", ".join(c.name for c in plan.given if c is not AS_TENSOR)
        made = f"after {made}" if made else "as its dataset gives it"
        notes.append(f"given the image as the pipeline hands it, a tensor ({made}), on both sides")
    pixels = None
    if "error" in pinned:
        notes.append(f"the original does not run this transform alone: {pinned['error']}")
    else:
        alone = _alone(plan.calls(plan.pinned), step)
        unpinned = ""
        if alone is not None and isinstance(plan.pin, WindowPin):
            # the window's draw is no argument of the call: pinned on the port's node
            node_ids = [node.id for s in alone.steps for node in s.nodes]
            pinned_spec = plan.pin.port(alone.spec, node_ids)
            if pinned_spec is None:
                unpinned = f"its port has no {plan.pin.node} node drawing where the window starts"
            alone = dataclasses.replace(alone, spec=pinned_spec) if pinned_spec else None
        ours = run_port(alone.spec, inputs, twice=True) if alone is not None else None
        if alone is None:
            notes.append(f"no pixel figure: {unpinned or 'its port alone makes no node'}")
        elif ours is None and pinned.get("deterministic"):
            # the original alone gives the same pixels: say which node of the port draws
            notes.append(port_draws_note(step, _on_arrays(alone.spec, len(inputs)), inputs))
        elif ours is None or not pinned.get("deterministic"):
            side = "the port" if ours is None else "the original"
            notes.append(f"no pixel figure: {side} draws its parameters at random")
        elif plan.pin is not None and _unchanged(pinned["arrays"], inputs):
            # pinned to values that do nothing: "identical" would say nothing of the transform
            notes.append(
                f"no pixel figure: with {plan.pin.describe(plan.call)} the original leaves the "
                "images as they are, so the pixels would compare the identity"
            )
        else:
            try:
                pixels = pixel_figures(ours, pinned["arrays"])
            except ValueError as error:
                notes.append(f"no pixel figure: {error}")
            if plan.pin is not None:
                notes.append(f"pixels with {plan.pin.describe(plan.call)} on both sides")
    figures: tuple[DrawFigures, ...] = ()
    if "error" not in drawn and drawn.get("draws"):
        alone = _alone(plan.calls(plan.call), step)
        if alone is not None:
            figures = _draw_figures(alone, plan.call, drawn["draws"], inputs, draws, seed)
    if drawn.get("draws_error"):
        notes.append(f"the original's draws could not be read: {drawn['draws_error']}")
    return dataclasses.replace(base, pixels=pixels, draws=figures, note="; ".join(notes))


def _unchanged(outputs: Sequence[np.ndarray], inputs: Sequence[np.ndarray]) -> bool:
    """Whether each output is its input, pixel for pixel (the same shape and values)."""
    return len(outputs) == len(inputs) and all(
        np.asarray(a).shape == b.shape and np.array_equal(a, b)
        for a, b in zip(outputs, inputs, strict=True)
    )


def _alone(calls: tuple[TransformCall, ...], step: PortedStep) -> PortResult | None:
    """The port of `calls` alone, with the arguments the graph compared gives the step's nodes
    where they differ from a fresh port of the user's call (an edit in the panel, a fix)
    carried over."""
    library = step.call.library
    if step.call.own is not None:  # a class of the project's own, ported by torchvision's
        library = "torchvision"  # mapping alone (own_blurs): compared as in its Compose
    alone = port_call(TransformCall(library, "Compose", children=calls))
    # a part left out (the masks a mask argument shows) leaves the images' port whole
    if alone.transforms_not_ported or not alone.steps:
        return None
    fresh_calls = (*calls[:-1], step.call)
    fresh = port_call(TransformCall(library, "Compose", children=fresh_calls))
    spec = alone.spec
    for node, alone_id in _alone_ids(step, fresh):
        if alone_id not in spec or alone_id not in fresh.spec:
            continue
        before = fresh.spec.node(alone_id).args
        if _p_of(node.probability) != _p_of(fresh.spec.node(alone_id).probability):
            # a node's own probability edited in the panel (a blur's p): its rate row reads it
            kept = spec.node(alone_id).probability  # its seed: the port alone's draws
            given = node.probability
            if given is not None and kept is not None:
                given = dataclasses.replace(given, seed=kept.seed)
            spec = spec.set_probability(alone_id, given)
        for name, value in node.args.items():
            if alone_id != node.id and _wiring(name, value):
                continue  # a numbered node's inputs are the pipeline's, not the port alone's
            if name not in before or _unseeded(before[name]) != _unseeded(value):
                spec = spec.set_arg(alone_id, name, value)
    return dataclasses.replace(alone, spec=spec)


def _wiring(name: str, value: Any) -> bool:
    """Whether an argument names other nodes (an expression's text, an argument input): in
    the pipeline they are the transforms before it and its own numbered nodes."""
    if name == "expression" or isinstance(value, Ref):
        return True
    return isinstance(value, list) and any(isinstance(v, Ref) for v in value)


def _alone_ids(step: PortedStep, fresh: PortResult) -> list[tuple[Node, str]]:
    """Each of the step's nodes in the pipeline, by the id the same node has in the port of
    its transform alone (`fresh`): the pipeline numbers a second transform of a kind's nodes
    (``hue_draw_2``, ``crop_2``), where alone they are ``hue_draw`` and ``crop``; an id the
    port alone has too is that node's."""
    own = [node.id for node in fresh.steps[-1].nodes] if fresh.steps else []
    found = []
    for node in step.nodes:
        numbered = re.fullmatch(r"(.+)_\d+", node.id)
        if node.id in fresh.spec:  # the same id alone (a node folded into another's too)
            found.append((node, node.id))
        elif numbered is not None and numbered.group(1) in own:
            found.append((node, numbered.group(1)))
    return found


def _p_of(probability: Probability | None) -> float | None:
    return None if probability is None else probability.p


def _unseeded(value: Any) -> Any:
    return dataclasses.replace(value, seed=None) if isinstance(value, Random) else value


def _draw_figures(
    alone: PortResult,
    call: TransformCall,
    theirs: Mapping[str, list[float]],
    inputs: list[np.ndarray],
    draws: int,
    seed: int,
) -> tuple[DrawFigures, ...]:
    wanted = [q for q in quantities(call.library, call.name) if q.name in theirs]
    if not wanted or draws < 1:
        return ()
    from ..stats import collect_stats

    spec = _on_arrays(alone.spec, len(inputs), seed)
    node_ids = [node.id for step in alone.steps for node in step.nodes]
    # drawing nodes and crop windows: read sample by sample, for a KS test on the values
    per_sample = [q for q in wanted if read_per_sample(q)]
    sampled = sampled_draws(spec, node_ids, per_sample, inputs, draws) if per_sample else {}
    stats = None
    if len(per_sample) < len(wanted):
        batches = max(1, math.ceil(draws / len(inputs)))
        data = (list(inputs), [0] * len(inputs))
        stats = collect_stats(spec, data, batches=batches, device_id=None)
    figures = []
    for quantity in wanted:
        values = [v * quantity.scale for v in theirs[quantity.name]]
        if read_per_sample(quantity):
            if quantity.name in sampled:
                figures.append(sample_figures(quantity.name, sampled[quantity.name], values))
            continue
        assert stats is not None  # collected for every quantity not read per sample
        drawn = next(
            (d for d in stats.draws if d.node in node_ids and d.argument == quantity.dali), None
        )
        if drawn is not None:
            figures.append(histogram_figures(quantity.name, drawn, values))
    return tuple(figures)


# ---- the DALI side ------------------------------------------------------------------------------


def _on_arrays(spec: GraphSpec, batch_size: int, seed: int = 0) -> GraphSpec:
    """The graph reading the given decoded images instead of files: both sides start from the
    same pixels (the decoder is not compared here). A `seed` other than 0 draws anew, as the
    original's side does with it."""
    if seed:
        seeds = random.Random(seed)
        spec = spec.reseeded(lambda: seeds.randrange(2**31))
    spec = spec.with_source(Source("reader", "arrays"))
    if "decode" in spec:
        spec = spec.remove("decode")
    return dataclasses.replace(spec, batch_size=batch_size)


def run_port(
    spec: GraphSpec, images: Sequence[np.ndarray], *, twice: bool = False
) -> list[np.ndarray] | None:
    """The port's final outputs for `images`, HWC; with `twice`, None where a second run with
    other draws gives other outputs (its parameters are random)."""
    from ..engine import Session

    session = Session(
        _on_arrays(spec, len(images)), (list(images), [0] * len(images)), device_id=None
    )
    result = session.run()
    final = result.final
    outputs = [_hwc(np.asarray(a), result.layout(final)) for a in result.arrays(final)]
    if twice:
        again = session.reroll()
        second = [_hwc(np.asarray(a), again.layout(final)) for a in again.arrays(final)]
        if any(
            a.shape != b.shape or not np.array_equal(a, b)
            for a, b in zip(outputs, second, strict=True)
        ):
            return None
    return outputs


def _hwc(array: np.ndarray, layout: str) -> np.ndarray:
    if array.ndim == 2:
        return array[:, :, None]
    if layout.startswith("C") and array.ndim == 3:
        return np.ascontiguousarray(array.transpose(1, 2, 0))
    return array


def _rgb(image: np.ndarray, index: int) -> np.ndarray:
    array = np.asarray(image)
    if array.dtype != np.uint8 or array.ndim != 3 or array.shape[2] != 3:
        raise ValueError(
            f"image {index}: expected RGB uint8 HxWx3, got {array.dtype} {array.shape} (fix: "
            "np.asarray(PIL.Image.open(path).convert('RGB')))"
        )
    return np.ascontiguousarray(array)


def display(array: np.ndarray) -> np.ndarray:
    """An output as a picture (uint8 HWC, 3 channels): 0-1 floats scaled by 255, normalised
    ones stretched over their own range."""
    image = np.asarray(array)
    if image.dtype != np.uint8:
        image = image.astype(np.float64)
        low, high = float(image.min(initial=0.0)), float(image.max(initial=0.0))
        if low >= 0.0 and high <= 1.0:
            image = image * 255.0
        else:
            image = (image - low) / max(high - low, 1e-12) * 255.0
        image = np.clip(np.rint(image), 0, 255).astype(np.uint8)
    if image.shape[2] == 1:
        image = np.repeat(image, 3, axis=2)
    return image[:, :, :3]


# ---- the calls sent to the original side --------------------------------------------------------


def certain(call: TransformCall) -> TransformCall:
    """`call` with its probability set to 1: it always runs, so both sides can be compared."""
    if call.library == "albumentations":
        return dataclasses.replace(call, kwargs={**call.kwargs, "p": 1.0})
    index = TORCHVISION_P.get(call.name)
    if index is None:
        return call
    if len(call.args) > index:
        args = (*call.args[:index], 1.0, *call.args[index + 1 :])
        return dataclasses.replace(call, args=args)
    return dataclasses.replace(call, kwargs={**call.kwargs, "p": 1.0})


def encode_call(call: TransformCall) -> dict[str, Any]:
    if call.unknowns():
        raise ValueError(explain_unknown(call, with_line=True))
    encoded = {
        "name": call.name,
        "args": [encode(v) for v in call.args],
        "kwargs": {k: encode(v) for k, v in call.kwargs.items()},
    }
    # the module the file named the class from: v2's Resize is not v1's (size=None)
    module = call.module
    if call.own is not None and not module and not call.defined_at:
        # a class the file defines itself (MoCo's GaussianBlur): the file's, as the original
        # side ran it, never the library's class of that name
        module = RUN_NAME
    return {**encoded, "module": module} if module else encoded


def encode(value: Any) -> Any:
    """A literal as JSON for the original side: constants by their dotted name."""
    if isinstance(value, Symbol):
        return {"__symbol__": value.text}
    if isinstance(value, Unknown):
        raise ValueError(value.explain("argument"))
    if isinstance(value, tuple):
        return {"__tuple__": [encode(v) for v in value]}
    if isinstance(value, list):
        return [encode(v) for v in value]
    if isinstance(value, dict):
        return {str(k): encode(v) for k, v in value.items()}
    return value
