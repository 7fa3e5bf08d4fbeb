"""Edit-to-pixels: how long from an argument edit to an encoded grid on screen.

The reference graph (six operators, batch 16, bundled samples) has its last node's argument
edited N times. Each edit is timed from the edit to the encoded JPEG grid, with the live engine
(re-runs only the edited node) and, in the same run, naively (rebuild the whole pipeline, re-run
everything, render). The engine's own overhead is its edit time minus the time DALI spent
running the steps that changed.

Targets on a 2-core CPU: p50 <= 0.35x the naive p50, p95 <= 100 ms, overhead <= 10%.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from _common import summary, write_results

from augexplorer import Session, preset
from augexplorer.builder import build_pipeline
from augexplorer.data import open_source
from augexplorer.engine import RunResult, StepResult
from augexplorer.engine.runners import SYNC_PIPELINE
from augexplorer.render import encode, render_node
from augexplorer.validate import validate


def values(count: int) -> list[float]:
    # Distinct brightness values, so no edit is a no-op the cache could answer.
    return [0.5 + (i % 100) / 100 + (i // 100) * 0.003 for i in range(count)]


def engine_edits(
    session: Session, edits: list[float]
) -> tuple[list[float], list[float], list[float]]:
    totals, overhead, compute = [], [], []
    for value in edits:
        start = time.perf_counter()
        result = session.set_arg("brightness", "brightness", value)
        edited = time.perf_counter()
        encode(render_node(result))
        done = time.perf_counter()
        dali_ms = sum(r.time_ms for r in result.steps.values() if r.ran)
        edit_ms = (edited - start) * 1000
        totals.append((done - start) * 1000)
        compute.append(dali_ms)
        overhead.append(max(0.0, edit_ms - dali_ms))
    return totals, overhead, compute


def naive_edits(session: Session, edits: list[float]) -> list[float]:
    """Rebuild the whole fused pipeline for every edit, run it from the files, render."""
    spec = session.spec
    data = {
        s.id: open_source(s.source) for s in session.plan.steps if s.role == "source" and s.source
    }
    times = []
    for value in edits:
        start = time.perf_counter()
        plan = validate(spec.set_arg("brightness", "brightness", value))
        pipe = build_pipeline(
            plan,
            data,
            device_id=session.device_id,
            num_threads=session.num_threads,
            **SYNC_PIPELINE,
        )
        pipe.build()
        images, labels = pipe.run()
        result = RunResult(
            plan=plan,
            steps={
                plan.outputs["images"].node: StepResult(
                    plan.step("brightness"), [images], 0.0, True
                ),
                "source": StepResult(plan.step("source"), [images, labels], 0.0, True),
            },
            batch_index=0,
            sources=data,
        )
        encode(render_node(result, plan.outputs["images"]))
        times.append((time.perf_counter() - start) * 1000)
    return times


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--edits", type=int, default=200)
    parser.add_argument(
        "--naive-edits",
        type=int,
        default=40,
        help="naive edits are slow; fewer give the same median",
    )
    args = parser.parse_args()

    session = Session(preset("reference"), batch_size=16)
    session.run()
    engine_edits(session, values(10))  # warm-up: first builds, caches, allocations
    totals, overhead, compute = engine_edits(session, values(args.edits))
    naive = naive_edits(session, values(args.naive_edits))

    engine_s, naive_s = summary(totals), summary(naive)
    overhead_share = sum(overhead) / sum(t for t in totals)
    edit_share = sum(overhead) / (sum(overhead) + sum(compute))
    figures = {
        "graph": "reference (6 operators), batch 16, bundled samples",
        "edits": args.edits,
        "engine_ms": engine_s,
        "naive_ms": naive_s,
        "ratio_p50": engine_s["p50"] / naive_s["p50"],
        "engine_overhead_share_of_edit": edit_share,
        "engine_overhead_share_of_total": overhead_share,
        "dali_compute_ms_p50": summary(compute)["p50"],
        "targets": {"ratio_p50": 0.35, "p95_ms": 100, "overhead": 0.10},
    }
    print(f"edit -> encoded grid, {args.edits} edits of the last node at batch 16")
    print(f"  engine  p50 {engine_s['p50']:7.1f} ms   p95 {engine_s['p95']:7.1f} ms")
    print(
        f"  naive   p50 {naive_s['p50']:7.1f} ms   p95 {naive_s['p95']:7.1f} ms   ({args.naive_edits} edits)"
    )
    print(f"  engine p50 / naive p50 = {figures['ratio_p50']:.3f}  (target <= 0.35)")
    print(f"  engine overhead beyond DALI compute: {edit_share:.1%} of the edit (target <= 10%)")
    print(f"wrote {write_results('edit_to_pixels', figures)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
