"""Opening a big folder: `Session("basic", data=folder)` to its first grid beside DALI's own
`readers.file` over the same folder (build plus first decoded batch), and the memory each holds.

The folder is synthetic and never committed: `--files` hard links (`os.link`) of 64 small JPEGs
(made from the bundled samples) spread over 1,000 class folders, in a temporary folder removed
afterwards, so 1.28 million files take seconds and little disk. Every measurement runs in a
fresh Python process (its peak RSS is that process's own):

- "dali": `fn.readers.file(file_root=folder)` and `fn.decoders.image`, built and run once.
- "explorer cold": the first `Session` on the folder, nothing learnt about it kept (the
  cache's `augexplorer/folders` emptied; the operator catalog kept there, made by a first
  explorer on the bundled samples before any figure, stays, as it does for a user opening a new
  folder); the operating system's file cache is warm (the folder was just written), so "cold"
  means cold for us, not for the disk.
- "dali graph": DALI running the explorer's "basic" graph (decode, resize, rotate, crop,
  flip) fused in one pipeline over the same folder: the graph's own compute, which the
  explorer's first grid includes and the reader and decoder alone do not.
- "explorer warm": a second `Session` on the same folder, its listing cached.
- "one file added": after the rounds, one file is added to a class folder and a `Session`
  opens the folder again: the listing is made anew, and the background look reads the header
  of the new file only (the others' results carried over by path); the header reads and the
  background look's seconds are counted, beside the cold rounds' (every header read).
- "explorer on the samples": the bundled samples, for what the explorer costs whatever the folder
  (its graph's pipelines built and run, one per node).
- "traced": the folder opened as the session opens it (`open_source(..., check_all=False)`,
  cache warm) under `tracemalloc`: the bytes Python holds per file once open, and the peak per
  file while opening (DALI's own copy of the list, in C++, is not traced).

With `--repeats N`, each folder gets N rounds (cache emptied, DALI, explorer cold, explorer
warm, DALI again), and each figure is given as the median and the range of its rounds; the
ratios are the explorer's medians over the median of all DALI's runs on that folder.

Target: the explorer within 1.5x of DALI, cold and warm. Writes benchmarks/results/open_folder.json.

    python benchmarks/bench_open_folder.py [--files 20000 200000 1280000] [--repeats 5]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import machine, write_results

from augexplorer.data import samples_dir

CLASSES = 1000
SOURCES = 64  # distinct JPEGs: ext4 allows 65,000 links per file, 1.28M / 64 = 20,000 each
BATCH = 8


def make_sources(folder: Path) -> list[Path]:
    """`SOURCES` small JPEGs (about 96 pixels wide) cut from the bundled samples."""
    from PIL import Image

    photos = sorted(samples_dir().rglob("*.jpg"))
    made = []
    for index in range(SOURCES):
        with Image.open(photos[index % len(photos)]) as photo:
            rgb = photo.convert("RGB")
            side = min(rgb.size) // 2
            left = (index * 37) % max(1, rgb.size[0] - side)
            tile = rgb.crop((left, 0, left + side, side)).resize((96, 96))
        path = folder / f"source_{index}.jpg"
        tile.save(path, quality=85)
        made.append(path)
    return made


def make_folder(root: Path, files: int, sources: list[Path]) -> float:
    """`files` hard links in `CLASSES` class folders; returns the seconds it took."""
    start = time.perf_counter()
    per_class = files // CLASSES
    for label in range(CLASSES):
        folder = root / f"n{label:08d}"
        folder.mkdir(parents=True)
        for index in range(per_class):
            os.link(sources[(label + index) % SOURCES], folder / f"img_{index:07d}.jpg")
    return time.perf_counter() - start


# The end of both DALI children: build and run the pipeline `read` once, the times as a JSON line
_BUILD_AND_RUN = """imported = time.perf_counter()
pipe = read()
pipe.build()
built = time.perf_counter()
pipe.run()
done = time.perf_counter()
print(json.dumps({{"seconds": done - imported, "build": built - imported,
    "import": imported - start, "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}}))
"""

DALI_CHILD = (
    """
import json, resource, sys, time
start = time.perf_counter()
from nvidia.dali import fn, pipeline_def
@pipeline_def(batch_size={batch}, num_threads=2, device_id=None, exec_dynamic=True)
def read():
    encoded, labels = fn.readers.file(file_root={root!r})
    return fn.decoders.image(encoded, device="cpu"), labels
"""
    + _BUILD_AND_RUN
)

# DALI running the explorer's "basic" graph itself, fused in one pipeline: what the first grid
# costs DALI, the graph's own compute included (the reader and decoder alone do none of it)
DALI_GRAPH_CHILD = (
    """
import json, resource, sys, time
start = time.perf_counter()
from nvidia.dali import fn, pipeline_def, types
@pipeline_def(batch_size={batch}, num_threads=2, device_id=None, exec_dynamic=True, seed=1)
def read():
    encoded, labels = fn.readers.file(file_root={root!r})
    images = fn.decoders.image(encoded, device="cpu", output_type=types.RGB)
    images = fn.resize(images, resize_shorter=256.0)
    images = fn.rotate(images, angle=fn.random.uniform(range=[-20.0, 20.0]), fill_value=0.0)
    images = fn.crop(images, crop=[224.0, 224.0])
    return fn.flip(images, horizontal=fn.random.coin_flip(probability=0.5)), labels
"""
    + _BUILD_AND_RUN
)

EXPLORER_CHILD = """
import json, resource, time
start = time.perf_counter()
import nvidia.dali.fn  # imported before the clock starts, as the DALI side imports it
from augexplorer import Session
from augexplorer import data
read = [0]  # header reads, the batch's and the background's (counted: a list of 1.28M
inspect = data.inspect_image  # paths would be the largest thing in the process)
def counted(path):
    read[0] += 1
    return inspect(path)
data.inspect_image = counted
imported = time.perf_counter()
session = Session("basic", data={root!r}, batch_size={batch}, device_id=None)
opened = time.perf_counter()
result = session.run()
done = time.perf_counter()
assert len(result.files()) == {batch}
rss_at_grid = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
survey = result.sources["source"].survey
checked = survey.wait(600) if survey is not None else None
print(json.dumps({{"seconds": done - imported, "open": opened - imported,
    "import": imported - start, "background_check_done": checked,
    "background_s": time.perf_counter() - done, "header_reads": read[0],
    "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    "peak_rss_mb_at_grid": rss_at_grid}}))
"""


TRACED_CHILD = """
import gc, json, tracemalloc
from augexplorer.data import open_source
from augexplorer.spec import Source
tracemalloc.start()
data = open_source(Source("source", "folder", {root!r}), check_all=False)
gc.collect()
held, peak = tracemalloc.get_traced_memory()
print(json.dumps({{"held_bytes_per_file": held / len(data.files),
    "peak_bytes_per_file": peak / len(data.files)}}))
"""


def child(code: str, cache: Path) -> dict[str, float]:
    env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=False
    )
    if done.returncode:
        raise RuntimeError(done.stderr[-3000:])
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


Run = dict[str, float]  # one child's figures


def spread(runs: list[Run], key: str) -> dict[str, float]:
    """The median, least and most of `key` over `runs`."""
    values = [run[key] for run in runs]
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def measure(files: int, sources: list[Path], work: Path, repeats: int) -> dict[str, object]:
    root = work / f"folder_{files}"
    made = make_folder(root, files, sources)
    cache = work / "cache"  # shared by every folder: the catalog kept there stays
    dali = DALI_CHILD.format(root=str(root), batch=BATCH)
    explorer = EXPLORER_CHILD.format(root=str(root), batch=BATCH)
    dali_graph = DALI_GRAPH_CHILD.format(root=str(root), batch=BATCH)
    rounds: list[dict[str, Run]] = []
    loads: list[float] = []
    try:
        for _ in range(repeats):
            # cold for us: nothing learnt about the folder kept
            shutil.rmtree(cache / "augexplorer" / "folders", ignore_errors=True)
            loads.append(os.getloadavg()[0])
            one = {
                "dali_first": child(dali, cache),
                "explorer_cold": child(explorer, cache),
                "explorer_warm": child(explorer, cache),
                "dali_again": child(dali, cache),
                "dali_graph": child(dali_graph, cache),
            }
            print(json.dumps({"files": files, "load": loads[-1], "round": one}), flush=True)
            rounds.append(one)
        traced = child(TRACED_CHILD.format(root=str(root)), cache)
        # the folder changes: a copy, not a link (a new link to a source would move the
        # change time of every file linked to it, and they would be read again too)
        shutil.copyfile(sources[0], root / f"n{0:08d}" / "added.jpg")
        added = child(explorer, cache)
    finally:
        shutil.rmtree(root, ignore_errors=True)
        shutil.rmtree(cache / "augexplorer" / "folders", ignore_errors=True)
    dali_runs = [one[side] for one in rounds for side in ("dali_first", "dali_again")]
    cold = [one["explorer_cold"] for one in rounds]
    warm = [one["explorer_warm"] for one in rounds]
    explorer_keys = (
        "seconds",
        "open",
        "background_s",
        "header_reads",
        "peak_rss_mb",
        "peak_rss_mb_at_grid",
    )
    dali_median = spread(dali_runs, "seconds")["median"]
    row = {
        "files": files,
        "made_s": made,
        "repeats": repeats,
        "load_average_per_round": loads,
        "rounds": rounds,
        "dali": {key: spread(dali_runs, key) for key in ("seconds", "build", "peak_rss_mb")},
        "dali_graph": {
            key: spread([one["dali_graph"] for one in rounds], key) for key in ("seconds", "build")
        },
        "explorer_cold": {key: spread(cold, key) for key in explorer_keys},
        "explorer_warm": {key: spread(warm, key) for key in explorer_keys},
        "one_file_added": added,
        "traced": traced,
        "ratio_cold": spread(cold, "seconds")["median"] / dali_median,
        "ratio_warm": spread(warm, "seconds")["median"] / dali_median,
    }
    print(json.dumps({k: v for k, v in row.items() if k != "rounds"}), flush=True)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, nargs="+", default=[20_000, 200_000, 1_280_000])
    parser.add_argument("--repeats", type=int, default=1, help="rounds per folder")
    arguments = parser.parse_args()
    rows = []
    print(json.dumps({"load_average_at_start": os.getloadavg()}), flush=True)
    with tempfile.TemporaryDirectory(prefix="bench_open_folder_") as temp:
        work = Path(temp)
        sources = make_sources(work)
        samples = EXPLORER_CHILD.format(root=str(samples_dir()), batch=BATCH)
        catalog_made = child(samples, work / "cache")  # makes the catalog kept in the cache
        print(json.dumps({"explorer_on_samples_catalog_made": catalog_made}), flush=True)
        for files in arguments.files:
            rows.append(measure(files, sources, work, arguments.repeats))
        # the explorer's own cost, whatever the folder: the bundled samples (small enough to be
        # looked at whole when opened), the same batch
        floor = child(samples, work / "cache")
    print(json.dumps({"explorer_on_samples": floor}), flush=True)
    load = os.getloadavg()
    write_results(
        "open_folder",
        {
            "machine": machine(),
            "load_average": load,
            "rows": rows,
            "explorer_on_samples": floor,
            "explorer_on_samples_catalog_made": catalog_made,
        },
    )


if __name__ == "__main__":
    main()
