"""Whole-dataset statistics against the exported loader: images per second over one epoch of the
same folder, on the CPU.

A temporary folder of hard links to the bundled samples (`--copies` of each, in their class
folders) is read by both sides:
- "loader": the graph exported by `augexplorer export` (a subprocess, as a user runs it), its
  module imported and `make_loader(folder, device="cpu")` iterated over one epoch (DALI's
  iterator, ``LastBatchPolicy.PARTIAL``), the loader's build included;
- "stats": `collect_stats_all` on the same folder (what `augexplorer stats --all` runs): the same
  epoch, every node's output and every draw counted into running sums, the build included.
Both use the same batch and DALI threads (`--threads`; one leaves a core of two free for the
counting). The two take turns, `--rounds` times each; each side
keeps its fastest round (other programs on the machine only ever add time). Goal (issue 31):
stats within 1.1x of the loader's time. Each side's CPU time (every thread of this process, DALI's
included) is recorded beside it: on a machine whose other programs come and go it moves far less
than the elapsed time, so its ratio says more about the work each side does.
Writes benchmarks/results/stats_all.json.

    python benchmarks/bench_stats_all.py [--graph reference] [--copies 32] [--rounds 2] [--threads 2]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType

from _common import machine, write_results

from augexplorer.data import samples_dir
from augexplorer.stats import collect_stats_all

BATCH = 16
THREADS = 2  # DALI's threads on both sides (--threads)


def make_folder(root: Path, copies: int) -> int:
    """Hard links of every bundled sample, `copies` times, in its class folder."""
    count = 0
    for photo in sorted(samples_dir().rglob("*.jpg")):
        folder = root / photo.parent.name
        folder.mkdir(exist_ok=True)
        for copy in range(copies):
            os.link(photo, folder / f"{photo.stem}_{copy:04d}{photo.suffix}")
            count += 1
    return count


def exported(graph: str, folder: Path, where: Path) -> ModuleType:
    module_path = where / "exported_graph.py"
    subprocess.run(
        [sys.executable, "-m", "augexplorer", "export", graph, "--data", str(folder), "-o",
         str(module_path), "--batch-size", str(BATCH)],
        check=True,
    )  # fmt: skip
    spec = importlib.util.spec_from_file_location("exported_graph", module_path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def time_loader(module: ModuleType, folder: Path, threads: int) -> tuple[float, float, int]:
    """Elapsed and CPU seconds of one epoch of the exported loader, and the images it gave."""
    start, cpu = time.perf_counter(), time.process_time()
    loader = module.make_loader(str(folder), batch_size=BATCH, device="cpu", num_threads=threads)
    images = sum(len(batch[0][module.OUTPUTS[0]]) for batch in loader)  # one epoch
    return time.perf_counter() - start, time.process_time() - cpu, images


def time_stats(graph: str, folder: Path, threads: int) -> tuple[float, float, int]:
    """Elapsed and CPU seconds of `collect_stats_all` over the folder, and the images counted."""
    start, cpu = time.perf_counter(), time.process_time()
    stats = collect_stats_all(
        graph, str(folder), batch_size=BATCH, device_id=None, num_threads=threads
    )
    return time.perf_counter() - start, time.process_time() - cpu, stats.samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graph", default="reference")
    parser.add_argument("--copies", type=int, default=32)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--threads", type=int, default=THREADS, help="DALI's threads on both sides")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as temporary:
        root = Path(temporary)
        folder = root / "images"
        folder.mkdir()
        count = make_folder(folder, args.copies)
        module = exported(args.graph, folder, root)
        loader, stats, loader_cpu, stats_cpu = [], [], [], []
        for round_index in range(args.rounds):
            sides = [("loader", loader, loader_cpu), ("stats", stats, stats_cpu)]
            for name, times, cpu_times in sides if round_index % 2 == 0 else sides[::-1]:
                seconds, cpu, images = (
                    time_loader(module, folder, args.threads)
                    if name == "loader"
                    else time_stats(args.graph, folder, args.threads)
                )
                assert images == count, f"{name} read {images} images of {count}"
                times.append(seconds)
                cpu_times.append(cpu)
            print(
                f"round {round_index + 1}: loader {loader[-1]:.2f} s ({loader_cpu[-1]:.2f} s "
                f"CPU), stats {stats[-1]:.2f} s ({stats_cpu[-1]:.2f} s CPU)"
            )
    ratio = min(stats) / min(loader)
    cpu_ratio = min(stats_cpu) / min(loader_cpu)
    record = {
        "graph": args.graph,
        "images": count,
        "batch_size": BATCH,
        "threads": args.threads,
        "cpus": os.cpu_count(),
        "loader_s": loader,
        "stats_s": stats,
        "loader_images_per_s": count / min(loader),
        "stats_images_per_s": count / min(stats),
        "ratio": ratio,
        "loader_cpu_s": loader_cpu,
        "stats_cpu_s": stats_cpu,
        "cpu_ratio": cpu_ratio,
        "goal": "<= 1.1",
        "machine": machine(),
    }
    print(
        f"{count} images: loader {count / min(loader):.1f} images/s, stats "
        f"{count / min(stats):.1f} images/s; stats takes {ratio:.2f}x the loader's time "
        f"and {cpu_ratio:.2f}x its CPU time"
    )
    print(f"wrote {write_results('stats_all', record)}")


if __name__ == "__main__":
    main()
