"""The exported loader of a graph with schedules against the same graph's loader without them
(run through ``bench_export.py --schedules``).

Both loaders are make_loader()'s, prefetching as in training, on a file list that names the
bundled samples `repeats` times; whole epochs alternate between them within one run (the order
flips every round) so machine noise hits both alike. Also timed: set_epoch as a sampler calls it,
and one rebuild of the pipeline from its checkpoint (what giving each epoch its values by
rebuilding would cost per epoch). Then the cost per batch alone: the two modules' pipelines
with synchronous executors taking turns batch by batch on the same batches, with and without
checkpointing (which the scheduled loader turns on) and the values fed; the median of the
paired ratios holds up under a loaded machine where sums do not.
"""

from __future__ import annotations

import importlib.util
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import write_results

from augexplorer import preset
from augexplorer.data import samples_dir
from augexplorer.export import export
from augexplorer.spec import GraphSpec, Schedule

BATCH = 8
THREADS = 2
EPOCHS = 90
# Synchronous: a run's time is that batch's own work, not overlap with the other pipelines.
SYNC = {"prefetch_queue_depth": 1, "exec_async": False, "exec_pipelined": False}


def graphs() -> dict[str, GraphSpec]:
    plain = preset("imagenet_train")
    scheduled = plain.with_epochs(EPOCHS).with_schedule(
        "normalize.mirror.probability", Schedule.linear(0.1, 0.5)
    )
    return {"without": plain, "with": scheduled}


def load_module(path: Path) -> Any:
    loaded = importlib.util.spec_from_file_location(path.stem, path)
    assert loaded is not None and loaded.loader is not None
    module = importlib.util.module_from_spec(loaded)
    loaded.loader.exec_module(module)
    return module


def file_list(folder: Path, repeats: int) -> Path:
    images = sorted(p for p in samples_dir().rglob("*") if p.is_file() and p.suffix == ".jpg")
    path = folder / "list.txt"
    lines = [f"{image} {index % 5}" for _ in range(repeats) for index, image in enumerate(images)]
    path.write_text("\n".join(lines) + "\n")
    return path


def epoch_seconds(loader: Any, epoch: int) -> tuple[float, int]:
    """Seconds for one whole epoch of `loader`, and its images."""
    if hasattr(loader, "set_epoch"):
        loader.set_epoch(epoch)
    images = 0
    start = time.perf_counter()
    for batch in loader:
        images += len(batch[0]["images"])
    return time.perf_counter() - start, images


def batch_costs(modules: dict[str, Any], data: str, rounds: int) -> dict[str, dict[str, float]]:
    """Per variant: images/s over all its batches and the median over batches of (the plain
    pipeline's time / its time) on the same batch."""
    plain, scheduled = modules["without"], modules["with"]
    files, labels, _ = plain.read_data(data)
    options = {"device": "cpu", "batch_size": BATCH, "num_threads": THREADS, "device_id": None}
    options.update(SYNC)
    pipes = {
        "without schedules": plain.imagenet_train_pipeline(files, labels, **options),
        "without, checkpointing": plain.imagenet_train_pipeline(
            files, labels, enable_checkpointing=True, **options
        ),
        "fed": scheduled.imagenet_train_pipeline(
            files, labels, strengths=scheduled.Strengths(), **options
        ),
        "fed, checkpointing (the loader's)": scheduled.imagenet_train_pipeline(
            files, labels, strengths=scheduled.Strengths(), enable_checkpointing=True, **options
        ),
    }
    for pipe in pipes.values():
        pipe.build()
        for _ in range(3):  # warm-up
            pipe.run()
    times: dict[str, list[float]] = {name: [] for name in pipes}
    batches = len(files) // BATCH
    for round_index in range(rounds):
        order = list(pipes) if round_index % 2 == 0 else list(reversed(pipes))
        for _ in range(batches):
            for name in order:
                start = time.perf_counter()
                pipes[name].run()
                times[name].append(time.perf_counter() - start)
    base = times["without schedules"]
    return {
        name: {
            "images_per_second": len(spent) * BATCH / sum(spent),
            "median_paired_ratio": statistics.median(
                a / b for a, b in zip(base, spent, strict=True)
            ),
        }
        for name, spent in times.items()
    }


def compare_loaders(rounds: int, repeats: int) -> None:
    load = _loadavg().split()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        data = str(file_list(folder, repeats))
        modules = {
            name: load_module(export(spec, folder / f"{name}_schedules.py"))
            for name, spec in graphs().items()
        }
        loaders = {
            name: module.make_loader(data, batch_size=BATCH, device="cpu", num_threads=THREADS)
            for name, module in modules.items()
        }
        for loader in loaders.values():  # warm-up: one epoch each
            epoch_seconds(loader, 0)
        spent = dict.fromkeys(loaders, 0.0)
        counted = dict.fromkeys(loaders, 0)
        rates: dict[str, list[float]] = {name: [] for name in loaders}
        for round_index in range(rounds):
            order = list(loaders) if round_index % 2 == 0 else list(reversed(loaders))
            for name in order:
                seconds, images = epoch_seconds(loaders[name], round_index + 1)
                spent[name] += seconds
                counted[name] += images
                rates[name].append(images / seconds)
        scheduled = loaders["with"]
        start = time.perf_counter()
        for _ in range(1000):  # a sampler's call at the epoch the loader is at: nothing to do
            scheduled.set_epoch(scheduled.strengths.epoch)
        set_epoch_us = (time.perf_counter() - start) / 1000 * 1e6
        rebuilds = []
        for target in (EPOCHS - 1, 3, EPOCHS - 2):
            next(scheduled)  # mid-epoch: prepared batches are in flight
            scheduled.set_epoch(target)
            start = time.perf_counter()
            next(scheduled)  # rebuilt from its checkpoint, then the batch
            rebuilds.append(time.perf_counter() - start)
        batch_seconds = BATCH / (counted["with"] / spent["with"])
        del loaders, scheduled
        costs = batch_costs(modules, data, rounds)
    overall = {name: counted[name] / spent[name] for name in counted}
    ratio = overall["with"] / overall["without"]
    rebuild_ms = (min(rebuilds) - batch_seconds) * 1000
    epoch_images = counted["with"] // rounds
    for name, value in overall.items():
        spread = f"{min(rates[name]):.0f}-{max(rates[name]):.0f}"
        print(f"{name + ' schedules':>16}: {value:8.1f} images/s (epochs: {spread})")
    print(f"with / without: {ratio:.3f} (target >= 0.98)")
    print(f"set_epoch at the loader's epoch: {set_epoch_us:.2f} us")
    print(
        f"a rebuild from the checkpoint: {rebuild_ms:.0f} ms beyond a batch "
        f"({rebuild_ms / 1000 / (epoch_images / overall['with']) * 100:.1f}% of a "
        f"{epoch_images}-image epoch)"
    )
    print("per batch, synchronous, batch by batch in turn:")
    for name, cost in costs.items():
        print(
            f"  {name:>34}: {cost['images_per_second']:7.1f} images/s, "
            f"median paired {cost['median_paired_ratio']:.3f}x"
        )
    print(f"/proc/loadavg before: {' '.join(load)}, after: {_loadavg()}")
    write_results(
        "export_schedules",
        {
            "graph": "imagenet_train, normalize.mirror.probability linear 0.1 -> 0.5 (fed)",
            "device": "cpu",
            "batch_size": BATCH,
            "num_threads": THREADS,
            "images_per_epoch": epoch_images,
            "rounds": rates,
            "images_per_second": overall,
            "ratio": ratio,
            "target": 0.98,
            "set_epoch_us": set_epoch_us,
            "rebuild_ms": rebuild_ms,
            "batch_costs": costs,
            "loadavg_before": load,
        },
    )


def _loadavg() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])
