"""Opening a big folder: `Session("basic", data=folder)` to its first grid beside DALI's own
`readers.file` over the same folder (build plus first decoded batch), and the memory each holds.

The folder is synthetic and never committed: `--files` hard links (`os.link`) of 64 small JPEGs
(made from the bundled samples) spread over 1,000 class folders, in a temporary folder removed
afterwards, so 1.28 million files take seconds and little disk. Every measurement runs in a
fresh Python process (its peak RSS is that process's own):

- "dali": `fn.readers.file(file_root=folder)` and `fn.decoders.image`, built and run once.
- "explorer cold": the first `Session` on the folder, with an empty augexplorer cache
  (`XDG_CACHE_HOME` pointing at a fresh folder); the operating system's file cache is warm
  (the folder was just written), so "cold" means cold for us, not for the disk.
- "explorer warm": a second `Session` on the same folder, its listing cached.
- "explorer on the samples": the bundled samples, for what the explorer costs whatever the folder
  (its graph's pipelines built and run, one per node).
- "traced": the folder opened as the session opens it (`open_source(..., check_all=False)`,
  cache warm) under `tracemalloc`: the bytes Python holds per file once open, and the peak per
  file while opening (DALI's own copy of the list, in C++, is not traced).

Target: the explorer within 1.5x of DALI, cold and warm. Writes benchmarks/results/open_folder.json.

    python benchmarks/bench_open_folder.py [--files 20000 200000 1280000]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
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


DALI_CHILD = """
import json, resource, sys, time
start = time.perf_counter()
from nvidia.dali import fn, pipeline_def
@pipeline_def(batch_size={batch}, num_threads=2, device_id=None, exec_dynamic=True)
def read():
    encoded, labels = fn.readers.file(file_root={root!r})
    return fn.decoders.image(encoded, device="cpu"), labels
imported = time.perf_counter()
pipe = read()
pipe.build()
built = time.perf_counter()
pipe.run()
done = time.perf_counter()
print(json.dumps({{"seconds": done - imported, "build": built - imported,
    "import": imported - start, "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}}))
"""

EXPLORER_CHILD = """
import json, resource, time
start = time.perf_counter()
import nvidia.dali.fn  # imported before the clock starts, as the DALI side imports it
from augexplorer import Session
imported = time.perf_counter()
session = Session("basic", data={root!r}, batch_size={batch}, device_id=None)
opened = time.perf_counter()
result = session.run()
done = time.perf_counter()
assert len(result.files()) == {batch}
survey = result.sources["source"].survey
checked = survey.wait(600) if survey is not None else None
print(json.dumps({{"seconds": done - imported, "open": opened - imported,
    "import": imported - start, "background_check_done": checked,
    "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}}))
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


def measure(files: int, sources: list[Path], work: Path) -> dict[str, object]:
    root = work / f"folder_{files}"
    made = make_folder(root, files, sources)
    cache = work / f"cache_{files}"
    try:
        dali_first = child(DALI_CHILD.format(root=str(root), batch=BATCH), cache)
        cold = child(EXPLORER_CHILD.format(root=str(root), batch=BATCH), cache)
        warm = child(EXPLORER_CHILD.format(root=str(root), batch=BATCH), cache)
        dali_again = child(DALI_CHILD.format(root=str(root), batch=BATCH), cache)
        traced = child(TRACED_CHILD.format(root=str(root)), cache)
    finally:
        shutil.rmtree(root, ignore_errors=True)
        shutil.rmtree(cache, ignore_errors=True)
    row = {
        "files": files,
        "made_s": made,
        "dali_cold": dali_first,
        "dali_warm": dali_again,
        "explorer_cold": cold,
        "explorer_warm": warm,
        "traced": traced,
        "ratio_cold": cold["seconds"] / dali_first["seconds"],
        "ratio_warm": warm["seconds"] / dali_again["seconds"],
    }
    print(json.dumps(row), flush=True)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, nargs="+", default=[20_000, 200_000, 1_280_000])
    arguments = parser.parse_args()
    rows = []
    print(json.dumps({"load_average_at_start": os.getloadavg()}), flush=True)
    with tempfile.TemporaryDirectory(prefix="bench_open_folder_") as temp:
        work = Path(temp)
        sources = make_sources(work)
        for files in arguments.files:
            rows.append(measure(files, sources, work))
        # the explorer's own cost, whatever the folder: the bundled samples (small enough to be
        # looked at whole when opened), the same batch
        floor = child(EXPLORER_CHILD.format(root=str(samples_dir()), batch=BATCH), work)
    print(json.dumps({"explorer_on_samples": floor}), flush=True)
    load = os.getloadavg()
    write_results(
        "open_folder",
        {"machine": machine(), "load_average": load, "rows": rows, "explorer_on_samples": floor},
    )


if __name__ == "__main__":
    main()
