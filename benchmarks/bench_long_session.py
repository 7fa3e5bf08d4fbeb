"""A long session: thousands of rapid argument edits must not leak memory, show a stale grid, or
slow down.

The reference graph (preset "basic", batch 16, bundled samples) is edited N times: every edit
gives `rotate.angle` a new value, and every fifth edit also toggles `flip.horizontal` (the last
node). Each edit runs and renders an encoded grid, as the notebook view does. Measured:

- memory: resident set size (VmRSS) after a warm-up, and its growth to the end;
- staleness: for a sample of edits, the displayed output is re-derived from scratch with a
  hand-built DALI pipeline (rotate -> crop -> flip on the cached resize output, with the
  arguments the result claims) and must match it exactly;
- latency: the median edit time over the last window against the first one after warm-up; and,
  since a shared machine's load drifts over a run of minutes, also against a fresh session edited
  in the same moments (alternating edits), which isolates what the long session accumulated.

Targets: RSS growth <= 50 MB after warm-up, no stale output, end latency within 10% of start
(judged on the interleaved comparison with a fresh session).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

from _common import summary, write_results

from augexplorer import Session
from augexplorer.engine.result import RunResult
from augexplorer.engine.runners import SYNC_PIPELINE
from augexplorer.render import encode, render_node

MB = 1024 * 1024
RSS_GROWTH_LIMIT_MB = 50.0
LATENCY_RATIO_LIMIT = 1.10


def rss_bytes() -> int:
    """Resident set size of this process, from /proc (Linux)."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmRSS in /proc/self/status")


def angle_for(index: int) -> float:
    # A periodic sweep (so the first and last windows see the same mix of angles, and with it the
    # same rotated canvas sizes) plus a tiny drift, so that no two edits share a value.
    return -30.0 + (index * 7.31) % 60.0 + index * 1e-5


def flip_for(index: int) -> int:
    return (index // 5) % 2


class Reference:
    """The final images re-derived without the engine: one hand-built DALI pipeline (rotate ->
    crop -> flip) fed the cached resize output and the arguments a result claims.

    Built once and fed per check: a pipeline built per check would itself grow the process's
    memory (each one leaves DALI thread-pool and allocator state behind) and blur the figure
    this benchmark measures.
    """

    def __init__(self, batch_size: int, crop: list[float], fill: float) -> None:
        from nvidia.dali import fn, pipeline_def

        options: dict[str, Any] = {"batch_size": batch_size, "num_threads": 2, "device_id": None}

        @pipeline_def(**options, **SYNC_PIPELINE)
        def by_hand() -> Any:
            images = fn.external_source(name="images", layout="HWC")
            angle = fn.external_source(name="angle")
            horizontal = fn.external_source(name="horizontal")
            rotated = fn.rotate(images, angle=angle, fill_value=fill)
            return fn.flip(fn.crop(rotated, crop=crop), horizontal=horizontal)

        self.batch_size = batch_size
        self.pipe = by_hand()
        self.pipe.build()

    def images(self, result: RunResult, angle: float, horizontal: int) -> list[np.ndarray]:
        self.pipe.feed_input("images", result.arrays("resize"), layout="HWC")
        self.pipe.feed_input("angle", [np.float32(angle)] * self.batch_size)
        self.pipe.feed_input("horizontal", [np.int32(horizontal)] * self.batch_size)
        (out,) = self.pipe.run()
        return [np.array(out[i]) for i in range(len(out))]


def claimed(result: RunResult) -> tuple[float, int]:
    """The arguments a result says it was made with (its plan, not what the editor sent)."""
    rotate = result.plan.step("rotate").args["angle"]
    flip = result.plan.step("flip").args["horizontal"]
    return float(rotate), int(flip)


def timed_edit(session: Session, index: int) -> float:
    start = time.perf_counter()
    if index % 5 == 0:
        session.set_arg("flip", "horizontal", flip_for(index))
    result = session.set_arg("rotate", "angle", angle_for(index))
    encode(render_node(result), "jpeg")
    return (time.perf_counter() - start) * 1000.0


def against_fresh(long: Session, start: int, window: int, batch_size: int) -> tuple[float, float]:
    """Median edit times of the long session and of a fresh one, edits alternating between the
    two so both see the same machine load."""
    fresh = Session("basic", batch_size=batch_size)
    fresh.set_arg("flip", "horizontal", 0)
    for index in range(start - 20, start):  # the fresh session's own warm-up
        timed_edit(fresh, index)
    long_times, fresh_times = [], []
    for index in range(start, start + window):
        long_times.append(timed_edit(long, index))
        fresh_times.append(timed_edit(fresh, index))
    return statistics.median(long_times), statistics.median(fresh_times)


def run(edits: int, batch_size: int, warmup: int, window: int, check_every: int) -> dict[str, Any]:
    session = Session("basic", batch_size=batch_size)
    first = session.set_arg("flip", "horizontal", 0)  # a constant: every output is reproducible
    reference = Reference(
        batch_size,
        crop=[float(v) for v in first.plan.step("crop").args["crop"]],
        fill=float(first.plan.step("rotate").args.get("fill_value", 0.0)),
    )

    times: list[float] = []
    rss_trace: list[tuple[int, float]] = []
    stale: list[dict[str, Any]] = []
    checked = 0
    rss_after_warmup = 0
    for index in range(edits):
        angle, horizontal = angle_for(index), flip_for(index)
        start = time.perf_counter()
        if index % 5 == 0:
            session.set_arg("flip", "horizontal", horizontal)
        result = session.set_arg("rotate", "angle", angle)
        picture = encode(render_node(result), "jpeg")
        times.append((time.perf_counter() - start) * 1000.0)
        assert picture[:2] == b"\xff\xd8"

        if index == warmup - 1:
            rss_after_warmup = rss_bytes()
        if index % 50 == 0 or index == edits - 1:
            rss_trace.append((index, rss_bytes() / MB))
        if index % check_every == 0 or index == edits - 1:
            checked += 1
            claim = claimed(result)
            shown = result.arrays("flip")
            wanted = reference.images(result, *claim)
            matches = claim == (angle, horizontal) and all(
                a.shape == b.shape and np.array_equal(a, b)
                for a, b in zip(shown, wanted, strict=True)
            )
            if not matches:
                stale.append({"edit": index, "claimed": claim, "sent": (angle, horizontal)})

    final_rss = rss_bytes()
    long_median, fresh_median = against_fresh(session, edits, window, batch_size)
    start_window = times[warmup : warmup + window]
    end_window = times[-window:]
    ratio = statistics.median(end_window) / statistics.median(start_window)
    growth = (final_rss - rss_after_warmup) / MB
    return {
        "edits": edits,
        "batch_size": batch_size,
        "warmup_edits": warmup,
        "window": window,
        "edit_ms": summary(times[warmup:]),
        "start_median_ms": statistics.median(start_window),
        "end_median_ms": statistics.median(end_window),
        "latency_ratio_end_to_start": ratio,
        "interleaved_long_median_ms": long_median,
        "interleaved_fresh_median_ms": fresh_median,
        "latency_ratio_long_to_fresh": long_median / fresh_median,
        "rss_after_warmup_mb": rss_after_warmup / MB,
        "rss_final_mb": final_rss / MB,
        "rss_growth_mb": growth,
        "rss_trace_mb": rss_trace,
        "runners_kept": len(session._runners),
        "cache_entries": len(session._cache),
        "checked_edits": checked,
        "stale": stale,
        "pass": {
            "rss_growth": growth <= RSS_GROWTH_LIMIT_MB,
            "no_stale": not stale,
            "latency": long_median / fresh_median <= LATENCY_RATIO_LIMIT,
        },
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edits", type=int, default=2000)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--warmup", type=int, default=200)
    parser.add_argument("--window", type=int, default=200)
    parser.add_argument("--check-every", type=int, default=50)
    args = parser.parse_args(argv)
    if args.edits < args.warmup + args.window:
        parser.error("--edits must be at least --warmup + --window")

    figures = run(args.edits, args.batch_size, args.warmup, args.window, args.check_every)
    path = write_results("long_session", figures)
    print(f"edits: {figures['edits']} at batch {figures['batch_size']}")
    print(
        f"edit to encoded grid: p50 {figures['edit_ms']['p50']:.1f} ms, "
        f"p95 {figures['edit_ms']['p95']:.1f} ms"
    )
    print(
        f"latency: start median {figures['start_median_ms']:.1f} ms, end median "
        f"{figures['end_median_ms']:.1f} ms, ratio {figures['latency_ratio_end_to_start']:.3f} "
        f"(limit {LATENCY_RATIO_LIMIT})"
    )
    print(
        f"latency against a fresh session, interleaved: {figures['interleaved_long_median_ms']:.1f}"
        f" vs {figures['interleaved_fresh_median_ms']:.1f} ms, ratio "
        f"{figures['latency_ratio_long_to_fresh']:.3f} (limit {LATENCY_RATIO_LIMIT})"
    )
    print(
        f"RSS: {figures['rss_after_warmup_mb']:.1f} MB after warm-up, "
        f"{figures['rss_final_mb']:.1f} MB at the end, growth {figures['rss_growth_mb']:.1f} MB "
        f"(limit {RSS_GROWTH_LIMIT_MB})"
    )
    print(
        f"stale outputs: {len(figures['stale'])} of {figures['checked_edits']} checked; "
        f"runners kept: {figures['runners_kept']}, cache entries: {figures['cache_entries']}"
    )
    print(f"results: {path}")
    return 0 if all(figures["pass"].values()) else 1


if __name__ == "__main__":
    sys.exit(main())
