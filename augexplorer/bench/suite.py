"""One throughput run: every loader on the same images, images/s and ratios to the best CPU one."""

from __future__ import annotations

import importlib.util
import json
import os
import platform
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..plan import Plan
from ..spec import GraphSpec
from .recipe import Recipe, recipe_for

Progress = Callable[[str], None]

METHOD = (
    "every loader reads the same image files (the data set looped over to the requested count) "
    "in batches of the graph's batch size; the first batch of each run (worker start-up, "
    "pipeline build) is not timed; images/s = images after the first batch / seconds; each "
    "loader is timed `rounds` times in turn and the median kept. DALI pipelines run with the "
    "default (asynchronous, prefetching) executor; DataLoaders use one worker process per core."
)


@dataclass(frozen=True)
class BenchRow:
    name: str
    device: str  # "cpu" or "gpu"
    images_per_s: float | None  # None: not measured (see note)
    images: int = 0
    seconds: float = 0.0
    note: str = ""
    # every round's rate, in the order measured: the spread a single median hides
    round_rates: tuple[float, ...] = ()


@dataclass
class BenchResult:
    graph: str
    batch_size: int
    images: int
    workers: int
    threads: int
    rounds: int
    equivalence: str
    rows: list[BenchRow] = field(default_factory=list)
    machine: dict[str, Any] = field(default_factory=dict)
    # why the rates are rough, where too few batches were timed (None: enough)
    too_few: str | None = None

    @property
    def best_cpu(self) -> BenchRow | None:
        measured = [r for r in self.rows if r.device == "cpu" and r.images_per_s]
        return max(measured, key=lambda r: r.images_per_s or 0.0, default=None)

    def ratio(self, row: BenchRow) -> float | None:
        best = self.best_cpu
        if row.images_per_s is None or best is None or not best.images_per_s:
            return None
        return row.images_per_s / best.images_per_s

    def to_json(self) -> dict[str, Any]:
        best = self.best_cpu
        return {
            "format": "augexplorer.bench",
            "version": 1,
            "graph": self.graph,
            "batch_size": self.batch_size,
            "images": self.images,
            "dataloader_workers": self.workers,
            "dali_threads": self.threads,
            "rounds": self.rounds,
            "method": METHOD,
            "equivalence": self.equivalence,
            "machine": self.machine,
            "best_cpu_loader": best.name if best else None,
            "too_few_batches": self.too_few,
            "rows": [
                {
                    "name": row.name,
                    "device": row.device,
                    "images_per_s": row.images_per_s,
                    "ratio_to_best_cpu": self.ratio(row),
                    "images": row.images,
                    "seconds": row.seconds,
                    "note": row.note,
                    "round_rates": list(row.round_rates),
                }
                for row in self.rows
            ],
        }

    def table(self) -> str:
        width = max(len(row.name) for row in self.rows)
        lines = [
            f"{self.graph}: {self.images} images, batch {self.batch_size}, "
            f"{self.workers} DataLoader workers, {self.threads} DALI threads",
            f"{'loader'.ljust(width)}  device  images/s  vs best CPU",
        ]
        for row in self.rows:
            ratio = self.ratio(row)
            rate = f"{row.images_per_s:8.1f}" if row.images_per_s else "       -"
            shown = f"{ratio:10.2f}x" if ratio is not None else "          -"
            note = f"  ({row.note})" if row.note else ""
            lines.append(f"{row.name.ljust(width)}  {row.device:6}  {rate}  {shown}{note}")
        lines.append(f"equivalent augmentation: {self.equivalence}")
        if self.too_few is not None:
            lines.append(f"ROUGH: {self.too_few}")
        return "\n".join(lines)

    def chart(self) -> Any:
        from ..profiling.chart import bars_chart

        measured = [r for r in self.rows if r.images_per_s]
        return bars_chart(
            [f"{r.name} ({r.device})" for r in measured],
            [r.images_per_s or 0.0 for r in measured],
            xlabel="images/s (higher is better)",
            title=f"{self.graph}: {self.images} images, batch {self.batch_size}",
        )

    def save(self, json_path: Path | None, chart_path: Path | None, overwrite: bool) -> list[Path]:
        from ..files import atomic_write_bytes, atomic_write_text
        from ..profiling.chart import figure_png

        written = []
        if json_path is not None:
            text = json.dumps(self.to_json(), indent=2) + "\n"
            written.append(atomic_write_text(json_path, text, overwrite=overwrite))
        if chart_path is not None:
            written.append(
                atomic_write_bytes(chart_path, figure_png(self.chart()), overwrite=overwrite)
            )
        return written


def machine() -> dict[str, Any]:
    from ..devices import gpu_count

    return {
        "cpu_cores": os.cpu_count(),
        "processor": platform.processor() or platform.machine(),
        "python": platform.python_version(),
        "gpus": gpu_count(),
    }


def time_batches(batches: Any, count: int) -> tuple[int, float]:
    """Pull `count` batches; the first is a warm-up (worker start, pipeline build) and is not
    timed. Returns (images timed, seconds)."""
    iterator = iter(batches)
    next(iterator)
    images = 0
    start = time.perf_counter()
    for _ in range(count - 1):
        batch = next(iterator)
        images += _batch_len(batch)
    return images, time.perf_counter() - start


# PyTorch's DataLoader holds two batches a worker ready (its prefetch_factor), DALI two; the
# timed batches must outnumber those several times over, or the rate is of batches made before
# the clock started (16 images at batch 8: 93,000 images/s)
TIMED_PER_READY = 4


def too_few_batches(batches: int, batch: int, workers: int) -> str | None:
    """Why a run of `batches` batches (the first untimed) gives rough rates, or None."""
    ready = 2 * max(workers, 1)
    needed = TIMED_PER_READY * ready + 1
    if batches >= needed:
        return None
    return (
        f"{batches - 1} batch(es) timed, and up to {ready} can be ready before the clock starts "
        f"({workers} DataLoader workers, two batches each): the rates count work done before "
        f"timing (fix: {needed * batch} images or more: --images on the command line, images= "
        "from Python)"
    )


def _batch_len(batch: Any) -> int:
    first = batch[0] if isinstance(batch, (tuple, list)) else batch
    return len(first)


def pipeline_batches(pipeline: Any) -> Any:
    pipeline.build()
    while True:
        yield pipeline.run()


def run_bench(
    spec: GraphSpec,
    data: Any = None,
    *,
    images: int = 256,
    batch_size: int | None = None,
    workers: int | None = None,
    threads: int | None = None,
    rounds: int = 1,
    progress: Progress | None = None,
) -> BenchResult:
    """Time every loader on the same `images` images (the data looped over as needed).

    Each loader is timed `rounds` times, the loaders taking turns, and its median rate kept.
    Loaders that cannot run here are listed with the reason, never with a figure.
    """
    import dataclasses

    from ..catalog import load_catalog
    from ..data import open_source
    from ..engine.session import Session
    from ..trust import check_trusted

    if batch_size:
        spec = dataclasses.replace(spec, batch_size=batch_size)
    session = Session(spec, data)  # opens and checks the graph and its data like a run
    plan = session.plan
    check_trusted(plan.spec)  # no loader may run untrusted code or write files
    source = next(s for s in plan.steps if s.role == "source" and s.source is not None)
    opened = open_source(source.source, session.arrays)  # type: ignore[arg-type]
    if opened.kind == "arrays":
        raise ValueError("a throughput run reads image files; in-memory arrays have no files")
    batch = plan.spec.batch_size
    batches = max(2, -(-images // batch))
    total = batches * batch
    cores = os.cpu_count() or 1
    workers = workers or cores
    threads = threads or cores
    files = [opened.files[i % len(opened.files)] for i in range(total)]
    labels = [opened.labels[i % len(opened.labels)] for i in range(total)]
    recipe = recipe_for(plan)
    say = progress or (lambda _message: None)

    result = BenchResult(
        graph=plan.spec.name or "graph",
        batch_size=batch,
        images=total,
        workers=workers,
        threads=threads,
        rounds=rounds,
        equivalence=recipe.describe()
        if recipe
        else "none: only the ImageNet train/val recipes (random resized crop or resize+centre "
        "crop, flip, normalize to CHW float) have torchvision/albumentations versions",
        machine=machine(),
        too_few=too_few_batches(batches, batch, workers),
    )
    contenders = _contenders(spec, plan, recipe, files, labels, batch, workers, threads)
    gpu = load_catalog().gpu
    rates: dict[int, list[tuple[int, float]]] = {i: [] for i in range(len(contenders))}
    skipped: dict[int, str] = {}
    for index, (_name, device, _make, unavailable) in enumerate(contenders):
        if unavailable is None and device == "gpu" and not gpu:
            unavailable = "not measured: no GPU on this machine"
        if unavailable is not None:
            skipped[index] = unavailable
    interrupted = False
    try:
        # round-robin, so a slow spell of the machine hits every loader alike
        for round_index in range(rounds):
            for index, (name, device, make, _) in enumerate(contenders):
                if index in skipped:
                    continue
                say(
                    f"[round {round_index + 1}/{rounds}, {index + 1}/{len(contenders)}] "
                    f"{name} ({device})"
                )
                counted, seconds = time_batches(make(), batches)
                rates[index].append((counted, seconds))
                say(f"    {counted / seconds:.1f} images/s")
    except KeyboardInterrupt:
        interrupted = True  # the loaders measured so far are still worth reporting
    for index, (name, device, _, _) in enumerate(contenders):
        if index in skipped:
            result.rows.append(BenchRow(name, device, None, note=skipped[index]))
            continue
        if not rates[index]:
            result.rows.append(BenchRow(name, device, None, note="not measured: interrupted"))
            continue
        counted, seconds = sorted(rates[index], key=lambda r: r[0] / r[1])[len(rates[index]) // 2]
        result.rows.append(
            BenchRow(
                name,
                device,
                counted / seconds,
                counted,
                seconds,
                _notes.get(name, ""),
                tuple(count / taken for count, taken in rates[index]),
            )
        )
    if interrupted:
        raise BenchInterrupted(result)
    return result


class BenchInterrupted(KeyboardInterrupt):
    """Ctrl-C during a throughput run; `result` holds the loaders measured before it."""

    def __init__(self, result: BenchResult) -> None:
        super().__init__("interrupted")
        self.result = result


_notes = {
    "DALI fused (build_pipeline)": "the graph as augexplorer builds it",
    "DALI exported module": "the pipeline of the module augexplorer.export writes",
    "DALI hand-written": "the recipe written directly with nvidia.dali.fn",
}

Contender = tuple[str, str, Callable[[], Any], str | None]


def _contenders(
    spec: GraphSpec,
    plan: Plan,
    recipe: Recipe | None,
    files: list[str],
    labels: list[int],
    batch: int,
    workers: int,
    threads: int,
) -> list[Contender]:
    from .dali_loaders import exported_pipeline, fused_pipeline, handwritten_pipeline
    from .torch_loaders import AlbumentationsDataset, PillowDataset, data_loader

    def dali(device: str) -> Callable[[], Any]:
        def make() -> Any:
            from ..catalog import load_catalog
            from ..profiling import place_on
            from ..validate import validate

            placed = validate(place_on(plan.spec, device, load_catalog()))
            return pipeline_batches(
                fused_pipeline(
                    placed,
                    files,
                    labels,
                    batch_size=batch,
                    num_threads=threads,
                    device_id=0 if device == "gpu" else None,
                )
            )

        return make

    def exported(device: str) -> Callable[[], Any]:
        return lambda: pipeline_batches(
            exported_pipeline(
                plan.spec,
                files,
                labels,
                device=device,
                batch_size=batch,
                num_threads=threads,
                device_id=0 if device == "gpu" else None,
            )
        )

    def handwritten(device: str) -> Callable[[], Any]:
        def make() -> Any:
            assert recipe is not None  # only offered when the graph follows a recipe
            return pipeline_batches(
                handwritten_pipeline(
                    recipe,
                    files,
                    labels,
                    device=device,
                    batch_size=batch,
                    num_threads=threads,
                    device_id=0 if device == "gpu" else None,
                )
            )

        return make

    no_recipe = "no equivalent: the graph is not one of the ImageNet train/val recipes"
    export_missing = None if _has_exporter() else "augexplorer.export.generate is not available"
    contenders: list[Contender] = []
    for device in ("cpu", "gpu"):
        contenders.append(("DALI fused (build_pipeline)", device, dali(device), None))
        contenders.append(("DALI exported module", device, exported(device), export_missing))
        contenders.append(
            ("DALI hand-written", device, handwritten(device), None if recipe else no_recipe)
        )
    datasets = {
        "torchvision-style (Pillow) DataLoader": PillowDataset,
        "albumentations (OpenCV) DataLoader": AlbumentationsDataset,
    }
    needs = {"albumentations (OpenCV) DataLoader": ("albumentations", "cv2")}
    for name, dataset in datasets.items():

        def make(dataset: Any = dataset) -> Any:
            return data_loader(dataset(files, recipe), batch_size=batch, workers=workers)

        missing = [m for m in needs.get(name, ()) if importlib.util.find_spec(m) is None]
        unavailable = f"not measured: {', '.join(missing)} not installed" if missing else None
        contenders.append((name, "cpu", make, (None if recipe else no_recipe) or unavailable))
    # CPU rows first, GPU rows last
    return sorted(contenders, key=lambda c: c[1] == "gpu")


def _has_exporter() -> bool:
    try:
        from ..export import generate
    except ImportError:
        return False
    return callable(generate)
