"""Honest per-operator timings of a graph.

Each step runs in its own synchronous DALI pipeline (:mod:`.runner`, the same DALI call the fused
pipeline makes) on the outputs the steps before it produced in the same repeat, and is timed
alone, less the measured cost of feeding it; `Pipeline.run()` returns
host-synchronous outputs, so a GPU step's time includes the completion of its work. Beside it,
the same graph runs as one fused pipeline (`build_pipeline`) with the same batch size, threads
and synchronous execution, on the same batches: the two are interleaved repeat by repeat, so
machine noise hits both alike. Warm-up runs are excluded; each figure is the median of the
repeats.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from ..data import SourceData, open_source
from ..engine import Session
from ..plan import Plan
from ..spec import GraphSpec
from .placement import place_on
from .report import NodeTiming, Profile
from .staged import FusedGraph, StagedGraph

Progress = Callable[[int, int], None]


def profile(
    spec_or_session: GraphSpec | Session | str,
    data: Any = None,
    repeats: int = 5,
    warmup: int = 2,
    device: str | None = None,
    *,
    batch_size: int | None = None,
    num_threads: int | None = None,
    progress: Progress | None = None,
) -> Profile:
    """Time every node of a graph, and the graph fused into one pipeline.

    `spec_or_session` is a spec, a preset name or a :class:`~augexplorer.Session` (its graph,
    data, threads and device are used). `data` is a folder, file list or arrays, as for a
    session. `device` puts every operator on ``"cpu"`` or ``"gpu"`` (decoders on ``"mixed"``);
    ``None`` keeps the graph's own placement. `progress(done, total)` is called after each run.

    Raises the same errors as a run: :class:`~augexplorer.errors.GraphInvalid` for a graph that
    does not validate, :class:`~augexplorer.errors.DataError` for data that cannot be read,
    :class:`~augexplorer.errors.RunError` when DALI fails on a node.
    """
    if repeats < 1:
        raise ValueError("repeats must be at least 1")
    if warmup < 0:
        raise ValueError("warmup must be 0 or more")
    session = _session(spec_or_session, data, device, batch_size, num_threads)
    # One ordinary run first: it reports a failing node the way the engine does (RunError with
    # the node and file named) before any timing starts.
    session.run()
    plan = session.plan
    sources = _open_sources(plan, session.arrays)
    staged = StagedGraph(
        plan, sources, device_id=session.device_id, num_threads=session.num_threads
    )
    fused = FusedGraph(plan, sources, device_id=session.device_id, num_threads=session.num_threads)

    step_samples: dict[str, list[float]] = {step.id: [] for step in plan.steps}
    harness_samples: dict[str, list[float]] = {step.id: [] for step in plan.steps}
    fused_samples: list[float] = []
    total = warmup + repeats
    for index in range(total):
        step_times, harness_times = staged.run()
        fused_ms = fused.run()
        if index >= warmup:
            for step_id, ms in step_times.items():
                step_samples[step_id].append(ms)
                harness_samples[step_id].append(harness_times.get(step_id, 0.0))
            fused_samples.append(fused_ms)
        if progress is not None:
            progress(index + 1, total)

    return Profile(
        name=plan.spec.name or "graph",
        device=_placement(plan),
        batch_size=plan.spec.batch_size,
        num_threads=session.num_threads,
        repeats=repeats,
        warmup=warmup,
        rows=tuple(_node_rows(plan, step_samples, harness_samples, repeats)),
        fused_samples_ms=tuple(fused_samples),
    )


def _session(
    spec_or_session: GraphSpec | Session | str,
    data: Any,
    device: str | None,
    batch_size: int | None,
    num_threads: int | None,
) -> Session:
    if isinstance(spec_or_session, Session):
        given = spec_or_session
        spec = given.plan.spec
        if batch_size is not None:
            spec = dataclasses.replace(spec, batch_size=batch_size)
        return Session(
            place_on(spec, device, given.catalog),
            data if data is not None else given.arrays,
            device_id=given.device_id,
            num_threads=num_threads or given.num_threads,
            catalog=given.catalog,
        )
    from ..catalog import load_catalog
    from ..presets import preset

    catalog = load_catalog()
    spec = preset(spec_or_session) if isinstance(spec_or_session, str) else spec_or_session
    if batch_size is not None:
        spec = dataclasses.replace(spec, batch_size=batch_size)
    return Session(place_on(spec, device, catalog), data, num_threads=num_threads, catalog=catalog)


def _open_sources(plan: Plan, arrays: Any) -> dict[str, SourceData]:
    return {
        step.id: open_source(step.source, arrays)
        for step in plan.steps
        if step.role == "source" and step.source is not None
    }


def _node_rows(
    plan: Plan,
    step_samples: dict[str, list[float]],
    harness_samples: dict[str, list[float]],
    repeats: int,
) -> list[NodeTiming]:
    """One row per user node, in graph order; a node's steps (draws, coin flip) are summed per
    repeat, and its harness taken out per repeat, before the median is taken."""
    rows: list[NodeTiming] = []
    origins = list(dict.fromkeys(step.origin for step in plan.steps))
    for origin in origins:
        steps = plan.steps_of(origin)
        main = next((s for s in steps if s.role in ("node", "source")), steps[0])
        raw = [sum(step_samples[step.id][i] for step in steps) for i in range(repeats)]
        harness = [sum(harness_samples[step.id][i] for step in steps) for i in range(repeats)]
        rows.append(
            NodeTiming(
                node=origin,
                op=main.op if main.role != "source" else _source_op(main.op),
                device=main.device,
                samples_ms=tuple(max(0.0, r - h) for r, h in zip(raw, harness, strict=True)),
                steps=tuple(step.id for step in steps),
                harness_ms=tuple(harness),
            )
        )
    return rows


def _placement(plan: Plan) -> str:
    devices = {step.device for step in plan.steps if step.role == "node"}
    if devices <= {"cpu"}:
        return "cpu"
    return "gpu"


def _source_op(op: str) -> str:
    # sources are "source.<kind>" steps; name the DALI operator that reads them
    return "external_source" if op == "source.arrays" else "readers.file"
