"""Edit-to-pixels: how long from an argument edit to an encoded grid on screen.

The reference graph (six operators, batch 16, bundled samples) has its last node's argument
edited N times. Each edit is timed from the edit to the encoded JPEG grid, with the live engine
(re-runs only the edited node; the grid composed from kept per-sample cells and captions) and,
in the same run, naively (rebuild the whole pipeline, re-run everything, draw every cell and
caption anew). The engine's own overhead is its edit time minus the time DALI spent running the
steps that changed. Also timed per edit: the edit to the panel's encoded tiles (one JPEG per
sample at the 240 px tile size, only changed samples encoded) in full and as a drag's preview.

`--batch 32` runs the same at batch 32; `--photos-1080p` reads 1920x1080 photos made from the
bundled samples (resized, in a temporary folder) through the reference graph without its resize
and crop, so the grid shrinks full-size photos.

Targets on a 2-core CPU: p50 <= 0.10x the naive p50, p95 <= 100 ms, overhead <= 10%.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import tempfile
import time
from pathlib import Path

from PIL import Image

sys.path.insert(0, str(Path(__file__).parent))

from _common import summary, write_results

from augexplorer import Session, preset
from augexplorer.builder import build_pipeline
from augexplorer.data import SourceData, open_source, samples_dir
from augexplorer.engine import RunResult, StepResult
from augexplorer.engine.runners import SYNC_PIPELINE
from augexplorer.render import encode, render_node
from augexplorer.render.tiles import node_tiles
from augexplorer.spec import GraphSpec, Ref, Source
from augexplorer.validate import validate

TILE_SIZE = 240  # the panel's default tile size


def photos_1080p(folder: Path) -> Path:
    """The bundled photos cut to 16:9 and resized to 1920x1080, in their class folders."""
    for photo in sorted(samples_dir().rglob("*.jpg")):
        with Image.open(photo) as image:
            picture = image.convert("RGB")
        width, height = picture.size
        cut = min(height, width * 9 // 16)
        top = (height - cut) // 2
        cropped = picture.crop((0, top, width, top + cut))
        out = folder / photo.parent.name / photo.name
        out.parent.mkdir(parents=True, exist_ok=True)
        cropped.resize((1920, 1080), Image.Resampling.LANCZOS).save(out, quality=90)
    return folder


def graph(batch: int, folder: Path | None) -> GraphSpec:
    spec = dataclasses.replace(preset("reference"), batch_size=batch)
    if folder is None:
        return spec
    spec = spec.remove("crop").remove("resize")
    return spec.with_data(Source("source", kind="folder", path=str(folder)))


def values(count: int) -> list[float]:
    # Distinct brightness values, so no edit is a no-op the cache could answer.
    return [0.5 + (i % 100) / 100 + (i // 100) * 0.003 for i in range(count)]


def engine_edits(
    session: Session, edits: list[float]
) -> tuple[list[float], list[float], list[float], list[float]]:
    """Each edit to the encoded grid; also the grid's part of it alone."""
    totals, overhead, compute, grids = [], [], [], []
    for value in edits:
        start = time.perf_counter()
        result = session.set_arg("brightness", "brightness", value)
        edited = time.perf_counter()
        encode(render_node(result))
        done = time.perf_counter()
        grids.append((done - edited) * 1000)
        dali_ms = sum(r.time_ms for r in result.steps.values() if r.ran)
        edit_ms = (edited - start) * 1000
        totals.append((done - start) * 1000)
        compute.append(dali_ms)
        overhead.append(max(0.0, edit_ms - dali_ms))
    return totals, overhead, compute, grids


def tile_edits(session: Session, edits: list[float], preview: bool) -> list[float]:
    """Each edit to the panel's encoded tiles (full, or a drag's previews)."""
    times = []
    for value in edits:
        start = time.perf_counter()
        result = session.set_arg("brightness", "brightness", value)
        node_tiles(result, result.final, TILE_SIZE, preview=preview)
        times.append((time.perf_counter() - start) * 1000)
    return times


def naive_grid(session: Session, data: dict[str, SourceData], value: float) -> Image.Image:
    """The grid after setting the last node's brightness to `value`, made as if nothing had been
    run before: the whole fused pipeline built and run from the files, every cell drawn anew."""
    plan = validate(session.spec.set_arg("brightness", "brightness", value))
    # every step's outputs, as the engine before the cached one ran: the captions read the
    # random steps' draws, and a step's reach over the samples reads its own output
    refs = [Ref(step.id, index) for step in plan.steps for index in range(step.output_count)]
    pipe = build_pipeline(
        plan,
        data,
        outputs=refs,
        device_id=session.device_id,
        num_threads=session.num_threads,
        **SYNC_PIPELINE,
    )
    pipe.build()
    batches = dict(zip(refs, pipe.run(), strict=True))
    result = RunResult(
        plan=plan,
        steps={
            step.id: StepResult(
                step, [batch for ref, batch in batches.items() if ref.node == step.id], 0.0, True
            )
            for step in plan.steps
        },
        batch_index=0,
        sources=data,
    )
    return render_node(result, plan.outputs["images"], reuse=False)


def naive_edits(session: Session, edits: list[float]) -> list[float]:
    """Each edit as :func:`naive_grid` makes it, to the encoded grid."""
    data = {
        s.id: open_source(s.source) for s in session.plan.steps if s.role == "source" and s.source
    }
    times = []
    for value in edits:
        start = time.perf_counter()
        encode(naive_grid(session, data, value))
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
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--photos-1080p", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        folder = photos_1080p(Path(scratch)) if args.photos_1080p else None
        return measure(args, graph(args.batch, folder))


def measure(args: argparse.Namespace, spec: GraphSpec) -> int:
    session = Session(spec)
    session.run()
    engine_edits(session, values(10))  # warm-up: first builds, caches, allocations
    tile_edits(session, values(5), preview=False)
    totals, overhead, compute, grids = engine_edits(session, values(args.edits))
    tiles = tile_edits(session, values(args.edits), preview=False)
    previews = tile_edits(session, values(args.edits), preview=True)
    naive = naive_edits(session, values(args.naive_edits))

    engine_s, naive_s = summary(totals), summary(naive)
    tiles_s, previews_s = summary(tiles), summary(previews)
    overhead_share = sum(overhead) / sum(t for t in totals)
    edit_share = sum(overhead) / (sum(overhead) + sum(compute))
    photos = "1920x1080 photos made from the bundled samples" if args.photos_1080p else ""
    what = f"batch {args.batch}, {photos or 'bundled samples'}"
    figures = {
        "graph": f"reference (6 operators{', no resize or crop' if photos else ''}), {what}",
        "edits": args.edits,
        "engine_ms": engine_s,
        "grid_part_ms": summary(grids),
        "naive_ms": naive_s,
        "ratio_p50": engine_s["p50"] / naive_s["p50"],
        "tiles_ms": tiles_s,
        "tiles_ratio_p50": tiles_s["p50"] / naive_s["p50"],
        "preview_tiles_ms": previews_s,
        "engine_overhead_share_of_edit": edit_share,
        "engine_overhead_share_of_total": overhead_share,
        "dali_compute_ms_p50": summary(compute)["p50"],
        "targets": {"ratio_p50": 0.10, "p95_ms": 100, "overhead": 0.10},
    }
    print(f"edit -> encoded grid, {args.edits} edits of the last node, {what}")
    for name, s in (("engine", engine_s), ("tiles", tiles_s), ("previews", previews_s)):
        print(
            f"  {name:8s} p50 {s['p50']:7.1f} ms   p95 {s['p95']:7.1f} ms   "
            f"({s['p50'] / naive_s['p50']:.3f}x naive p50)"
        )
    print(
        f"  naive    p50 {naive_s['p50']:7.1f} ms   p95 {naive_s['p95']:7.1f} ms   "
        f"({args.naive_edits} edits)"
    )
    print(f"  grid part of an engine edit: p50 {summary(grids)['p50']:.1f} ms")
    print(f"  engine p50 / naive p50 = {figures['ratio_p50']:.3f}  (target <= 0.10)")
    print(f"  engine overhead beyond DALI compute: {edit_share:.1%} of the edit (target <= 10%)")
    name = "edit_to_pixels" + (f"_batch{args.batch}" if args.batch != 16 else "")
    name += "_1080p" if args.photos_1080p else ""
    print(f"wrote {write_results(name, figures)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
