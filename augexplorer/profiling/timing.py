"""Honest per-operator timings of a graph.

Each user node (with its random draws and coin flip) runs in its own synchronous DALI pipeline
(:mod:`.staged`, the same DALI calls the fused pipeline makes, constants baked in) on the outputs
the nodes before it produced in the same repeat, and is timed alone, less the measured cost of
feeding it; `Pipeline.run()` returns host-synchronous outputs, so a GPU node's time includes the
completion of its work. Beside it, the same graph runs as one fused pipeline (`build_pipeline`)
with the same batch size, threads and synchronous execution, on the same batches: the two are
interleaved repeat by repeat (taking turns at going first), so machine noise hits both alike.
Python's garbage collector is paused while timing. Warm-up runs are excluded; each figure is the
median of the repeats.
"""

from __future__ import annotations

import dataclasses
import gc
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from ..data import SourceData, open_source
from ..engine import Session
from ..plan import Plan
from ..spec import GraphSpec
from .contention import CoreWaits, HostSteal
from .placement import place_on
from .report import NodeTiming, Profile
from .staged import Clocks, FusedGraph, StagedGraph, node_groups

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
    attempts: int = 1,
    progress: Progress | None = None,
) -> Profile:
    """Time every node of a graph, and the graph fused into one pipeline.

    `spec_or_session` is a spec, a preset name or a :class:`~augexplorer.Session` (its graph,
    data, threads and device are used; the session itself, unless `data`, `device`,
    `batch_size` or `num_threads` change them, which a new session does). `data` is a folder,
    file list or arrays, as for a session. `device` puts every operator on ``"cpu"`` or
    ``"gpu"`` (decoders on ``"mixed"``); ``None`` keeps the graph's own placement.
    `progress(done, total)` is called after each run.

    `attempts` > 1 runs every batch that many times on each side, through identical copies of
    the pipelines (same seeds, so the same images and the same random draws), and keeps each
    side's fastest whole run: other programs on the machine only ever add time, so the fastest
    of a few is the least disturbed.

    Raises the same errors as a run: :class:`~augexplorer.errors.GraphInvalid` for a graph that
    does not validate, :class:`~augexplorer.errors.DataError` for data that cannot be read,
    :class:`~augexplorer.errors.RunError` when DALI fails on a node.
    """
    if repeats < 1:
        raise ValueError("repeats must be at least 1")
    if warmup < 0:
        raise ValueError("warmup must be 0 or more")
    if attempts < 1:
        raise ValueError("attempts must be at least 1")
    session = _session(spec_or_session, data, device, batch_size, num_threads)
    # One ordinary run first: it reports a failing node the way the engine does (RunError with
    # the node and file named) before any timing starts.
    session.run()
    plan = session.plan
    sources = _open_sources(plan, session.arrays)
    device_id, num_threads = session.device_id, session.num_threads
    staged = [
        StagedGraph(plan, sources, device_id=device_id, num_threads=num_threads)
        for _ in range(attempts)
    ]
    fused = [
        FusedGraph(plan, sources, device_id=device_id, num_threads=num_threads)
        for _ in range(attempts)
    ]

    groups = node_groups(plan)
    node_samples: dict[str, list[Clocks]] = {origin: [] for origin in groups}
    harness_samples: dict[str, list[Clocks]] = {origin: [] for origin in groups}
    fused_samples: list[Clocks] = []
    total = warmup + repeats
    waits, steal = CoreWaits(), HostSteal()
    with _collector_paused():
        for index in range(total):
            if index == warmup:
                waits.start()
                steal.start()
            staged_runs: list[tuple[dict[str, Clocks], dict[str, Clocks]]] = []
            fused_runs: list[Clocks] = []
            for copy in range(attempts):
                # taking turns at going first: whichever runs second finds caches warmed (or
                # evicted) by the other, and alternating spreads that over both sides
                if (index + copy) % 2 == 0:
                    staged_runs.append(staged[copy].run())
                    fused_runs.append(fused[copy].run())
                else:
                    fused_runs.append(fused[copy].run())
                    staged_runs.append(staged[copy].run())
            if index >= warmup:
                node_times, harness_times = _fastest_staged(staged_runs)
                for origin in groups:
                    node_samples[origin].append(node_times[origin])
                    harness_samples[origin].append(harness_times[origin])
                fused_samples.append(
                    Clocks(min(r.wall_ms for r in fused_runs), min(r.cpu_ms for r in fused_runs))
                )
            if progress is not None:
                progress(index + 1, total)
        waits.stop()
        steal.stop()

    return Profile(
        name=plan.spec.name or "graph",
        device=_placement(plan),
        batch_size=plan.spec.batch_size,
        num_threads=session.num_threads,
        repeats=repeats,
        warmup=warmup,
        attempts=attempts,
        rows=tuple(_node_rows(plan, node_samples, harness_samples)),
        fused_samples_ms=tuple(times.wall_ms for times in fused_samples),
        fused_cpu_samples_ms=tuple(times.cpu_ms for times in fused_samples),
        waited_for_cpu=waits.share,
        stolen_by_host=steal.share,
        extra=_machine(),
    )


def _fastest_staged(
    runs: list[tuple[dict[str, Clocks], dict[str, Clocks]]],
) -> tuple[dict[str, Clocks], dict[str, Clocks]]:
    """The least disturbed of a few staged runs of the same batch, on each clock: the whole run
    whose nodes summed (less their harnesses) took least, as the fused side keeps its fastest
    whole run. (Picking each node's fastest run separately would favour the staged side.)"""

    def total(run: tuple[dict[str, Clocks], dict[str, Clocks]], clock: int) -> float:
        nodes, harness = run
        return sum(max(0.0, nodes[o][clock] - harness[o][clock]) for o in nodes)

    wall = min(runs, key=lambda run: total(run, 0))
    cpu = min(runs, key=lambda run: total(run, 1))
    return (
        {o: Clocks(wall[0][o].wall_ms, cpu[0][o].cpu_ms) for o in wall[0]},
        {o: Clocks(wall[1][o].wall_ms, cpu[1][o].cpu_ms) for o in wall[1]},
    )


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Python's garbage collector off while timing (a collection landing in one side's run
    would be charged to it), after a full collection; restored afterwards."""
    was_enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _machine() -> dict[str, Any]:
    """What the figures depend on beyond the graph: CPU count and load when they were taken."""
    machine: dict[str, Any] = {"cpu_count": os.cpu_count()}
    if hasattr(os, "getloadavg"):
        machine["load_average"] = [round(load, 2) for load in os.getloadavg()]
    return {"machine": machine}


def _session(
    spec_or_session: GraphSpec | Session | str,
    data: Any,
    device: str | None,
    batch_size: int | None,
    num_threads: int | None,
) -> Session:
    if isinstance(spec_or_session, Session):
        return _given_or_changed(spec_or_session, data, device, batch_size, num_threads)
    from ..catalog import load_catalog
    from ..presets import preset

    catalog = load_catalog()
    spec = preset(spec_or_session) if isinstance(spec_or_session, str) else spec_or_session
    if batch_size is not None:
        spec = dataclasses.replace(spec, batch_size=batch_size)
    return Session(place_on(spec, device, catalog), data, num_threads=num_threads, catalog=catalog)


def _given_or_changed(
    given: Session,
    data: Any,
    device: str | None,
    batch_size: int | None,
    num_threads: int | None,
) -> Session:
    """`given` itself when the profile asks nothing of it that it does not already have: its
    plan, data and threads are what a new session would hold, and building one would open the
    data and validate the graph again. Otherwise a new session with the changes, so that the
    given one (a panel's, say) is left as it was."""
    spec = given.plan.spec
    if batch_size is not None:
        spec = dataclasses.replace(spec, batch_size=batch_size)
    spec = place_on(spec, device, given.catalog)
    threads = num_threads or given.num_threads
    if data is None and threads == given.num_threads and spec == given.plan.spec:
        return given
    return Session(
        spec,
        data if data is not None else given.arrays,
        device_id=given.device_id,
        num_threads=threads,
        catalog=given.catalog,
    )


def _open_sources(plan: Plan, arrays: Any) -> dict[str, SourceData]:
    return {
        step.id: open_source(step.source, arrays)
        for step in plan.steps
        if step.role == "source" and step.source is not None
    }


def _node_rows(
    plan: Plan,
    node_samples: dict[str, list[Clocks]],
    harness_samples: dict[str, list[Clocks]],
) -> list[NodeTiming]:
    """One row per user node, in the order the nodes ran; each repeat's harness is taken out of
    the same repeat's time (on each clock) before the median is taken."""
    rows: list[NodeTiming] = []
    for origin, steps in node_groups(plan).items():
        # the node's own call (a conditional block's group holds the calls of all its nodes)
        main = next(
            (s for s in steps if s.role in ("node", "source") and s.origin == origin), steps[-1]
        )
        pairs = list(zip(node_samples[origin], harness_samples[origin], strict=True))
        rows.append(
            NodeTiming(
                node=origin,
                op=main.op if main.role != "source" else _source_op(main.op),
                device=main.device,
                samples_ms=tuple(max(0.0, raw.wall_ms - empty.wall_ms) for raw, empty in pairs),
                steps=tuple(step.id for step in steps),
                harness_ms=tuple(empty.wall_ms for _raw, empty in pairs),
                cpu_samples_ms=tuple(max(0.0, raw.cpu_ms - empty.cpu_ms) for raw, empty in pairs),
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
