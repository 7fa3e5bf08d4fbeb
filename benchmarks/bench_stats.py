"""What statistics cost: `collect_stats` over about 1,000 images beside running the same graph
over the same images, and the memory it holds as the number of batches grows.

The reference graph (decode, resize, random rotate, crop, random flip, brightness/contrast) at
batch 16 on the bundled samples, on the CPU. "Graph" is the graph as one DALI pipeline
(`build_pipeline`, DALI's default prefetching, as the statistics pipeline reads files) run over the same batches;
"stats" is `collect_stats` over them (every node's output and every draw counted). The two take
turns, `--rounds` times each, in one run; each side keeps its fastest round (other programs on
the machine only ever add time). Target: stats <= 1.5x graph. Memory: the peak of Python's
allocations (tracemalloc) during statistics over `--batches` and over 4x as many; flat means the
same peak. Writes benchmarks/results/stats.json.

    python benchmarks/bench_stats.py [--images 1000] [--rounds 2]
"""

from __future__ import annotations

import argparse
import math
import time
import tracemalloc

from _common import machine, write_results

from augexplorer import preset
from augexplorer.builder import build_pipeline
from augexplorer.catalog import load_catalog
from augexplorer.data import open_source
from augexplorer.stats import collect_stats
from augexplorer.validate import validate

BATCH = 16
THREADS = 2


def time_graph(batches: int) -> float:
    """Seconds to build and run the graph as one pipeline over `batches` batches."""
    spec = preset("reference")
    plan = validate(spec, load_catalog(gpu=False))
    start = time.perf_counter()
    sources = {
        step.id: open_source(step.source)
        for step in plan.steps
        if step.role == "source" and step.source is not None
    }
    pipe = build_pipeline(plan, sources, batch_size=BATCH, device_id=None, num_threads=THREADS)
    pipe.build()
    for _ in range(batches):
        pipe.run()
    return time.perf_counter() - start


def time_stats(batches: int) -> float:
    start = time.perf_counter()
    collect_stats(
        "reference", batches=batches, batch_size=BATCH, device_id=None, num_threads=THREADS
    )
    return time.perf_counter() - start


def peak_bytes(batches: int) -> int:
    tracemalloc.start()
    collect_stats(
        "reference", batches=batches, batch_size=BATCH, device_id=None, num_threads=THREADS
    )
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--images", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--memory-batches", type=int, default=8)
    args = parser.parse_args()
    batches = math.ceil(args.images / BATCH)
    time_graph(2)  # warm-up: DALI's libraries and the page cache
    graph, stats = [], []
    for round_index in range(args.rounds):
        if round_index % 2 == 0:
            graph.append(time_graph(batches))
            stats.append(time_stats(batches))
        else:
            stats.append(time_stats(batches))
            graph.append(time_graph(batches))
        print(f"round {round_index + 1}: graph {graph[-1]:.2f} s, stats {stats[-1]:.2f} s")
    ratio = min(stats) / min(graph)
    small, large = args.memory_batches, 4 * args.memory_batches
    peaks = {small: peak_bytes(small), large: peak_bytes(large)}
    record = {
        "images": batches * BATCH,
        "batch_size": BATCH,
        "graph_s": graph,
        "stats_s": stats,
        "ratio": ratio,
        "target": "<= 1.5",
        "peak_python_bytes": {str(k): v for k, v in peaks.items()},
        "machine": machine(),
    }
    print(
        f"{batches * BATCH} images: graph {min(graph):.2f} s, stats {min(stats):.2f} s, "
        f"ratio {ratio:.2f}x (target <= 1.5x); peak Python memory {peaks[small] / 1e6:.1f} MB "
        f"over {small} batches, {peaks[large] / 1e6:.1f} MB over {large}"
    )
    print(f"wrote {write_results('stats', record)}")


if __name__ == "__main__":
    main()
