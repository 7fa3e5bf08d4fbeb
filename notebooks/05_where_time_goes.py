# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Where the time goes
#
# **Objective:** measure which operator of a pipeline costs what, what the order of operators
# changes, how a DALI loader compares with CPU loaders (torchvision's own `Compose` among them),
# and whether a training step waits for its loader; read such figures with their spread.
# **Time:** about 40 minutes (running the cells takes a minute or two on a CPU).
#
# A familiar story: an epoch takes hours, and the suspect is the augmentation, run on the CPU
# for every image before the batch is copied to the GPU. Before moving anything, it pays to
# measure: which operator costs what, what the GPU would change, and how a DALI loader compares
# with the torchvision `Compose` it would replace.
#
# The figures below come from the bundled sample pictures, which are small, with small batches
# so the notebook stays quick. Treat them as a demonstration of the method; measure your own
# data on your own machine for decisions.

# %%
import os
import tempfile
from pathlib import Path

import numpy as np
import torch
from IPython.display import Image, display
from torch import nn

from augexplorer import Session, preset
from augexplorer.bench import bench_against, run_bench
from augexplorer.bench.spread import WORDS, compare_rounds
from augexplorer.bench.starvation import measure_starvation
from augexplorer.devices import has_gpu
from augexplorer.profiling import profile
from augexplorer.profiling.chart import figure_png
from augexplorer.render import render_node

print("GPU visible to DALI:", has_gpu())

# %% [markdown]
# ## 1. Per-operator timings
#
# A DALI pipeline runs its operators together, so to time them one by one `profile` runs each
# node of the graph in a pipeline of its own, on the outputs of the nodes before it, several
# times after a warm-up, and reports the median. Next to that it runs the whole graph fused
# into one pipeline, which is what a training loader does. A node's random draws count as part
# of its cost.

# %%
imagenet = profile("imagenet_train", repeats=5, warmup=1, batch_size=8, device="cpu")
print(imagenet.table())

# %% [markdown]
# The same figures as a chart; the dashed line is the fused pipeline.

# %%
display(Image(figure_png(imagenet.chart())))

# %% [markdown]
# The `share` column says which operators cost most on this machine; the cell below reads the
# two largest off the profile. DALI runs independent work side by side inside a pipeline, so
# the sum of the operators need not match the fused time exactly.
#
# Would smaller pictures on disk help? Reading the file, decoding it and resizing the random
# crop all work on the stored picture (the crop is a share of its area), so they get cheaper as
# it shrinks; `normalize` works on the 224 x 224 result, whatever was stored. Their share is
# thus the most that shrinking the pictures could save here: a bound read off the table, not a
# measurement of smaller pictures.

# %%
ranked = sorted(imagenet.rows, key=imagenet.share, reverse=True)
top_two = ranked[:2]
print(
    "largest shares here:",
    ", ".join(f"{row.node} {imagenet.share(row):.0%}" for row in top_two),
    f"(together {sum(imagenet.share(row) for row in top_two):.0%})",
)
stored_size = [imagenet.row(node) for node in ("source", "decode", "resize")]
bound = sum(imagenet.share(row) for row in stored_size)
print(f"read + decode + resize: {bound:.0%}, the most smaller stored pictures could save here")

# %% [markdown]
# ## 2. Order matters
#
# An operator that computes every pixel of its output costs more on a larger image. The `basic`
# preset rotates the whole resized image (shorter side 256 pixels) and cuts a 224 x 224 square
# out of it afterwards. Crop first, and the rotation only has the square to turn; with
# `keep_size` its output stays 224 x 224. The price: the corners the rotation uncovers now fall
# inside the picture (drawn below the timings).

# %%
rotate_then_crop = preset("basic")
crop_then_rotate = rotate_then_crop.move("crop", -1).set_arg("rotate", "keep_size", True)
print("before:", " -> ".join(node.id for node in rotate_then_crop.nodes))
print("after: ", " -> ".join(node.id for node in crop_then_rotate.nodes))

before = profile(rotate_then_crop, repeats=5, warmup=1, device="cpu")
after = profile(crop_then_rotate, repeats=5, warmup=1, device="cpu")
for label, timing in (("rotate, then crop", before), ("crop, then rotate", after)):
    print(f"{label}: rotate {timing.row('rotate').median_ms:6.2f} ms per batch")
# a verdict only where the repeats stay apart (times: lower is faster)
turned = compare_rounds(
    [1 / ms for ms in after.row("rotate").samples_ms],
    [1 / ms for ms in before.row("rotate").samples_ms],
)
print("rotating the crop instead of the resized image:", WORDS[turned])

# %%
turned_first = Session(rotate_then_crop, batch_size=4).run()
turned_last = Session(crop_then_rotate, batch_size=4).run()
# what the rotation turns in each order, and what it gives
turned_sizes = [image.shape[:2] for image in turned_first.arrays("resize")]
crop_sizes = {image.shape[:2] for image in turned_last.arrays("crop")}
out_sizes = {image.shape[:2] for image in turned_last.arrays("rotate")}
print("rotate first turns:", turned_sizes, "| crop first turns:", crop_sizes, "into", out_sizes)
assert {min(size) for size in turned_sizes} == {256} and crop_sizes == out_sizes == {(224, 224)}
black = [not np.any(image[:4, :4]) for image in turned_last.arrays("rotate")]
print("images with a black top-left corner:", sum(black), "of", len(black))
assert any(black)
display(render_node(turned_last, cell=150))

# %% [markdown]
# ## 3. CPU against GPU
#
# The same graph can be profiled with every operator on the GPU (decoding on `mixed`). On a
# machine without a GPU this section only says so.

# %%
if has_gpu():
    on_gpu = profile("imagenet_train", repeats=5, warmup=1, batch_size=8, device="gpu")
    print(on_gpu.table())
    for row in imagenet.rows:
        gpu_ms = on_gpu.row(row.node).median_ms
        print(f"{row.node:10} cpu {row.median_ms:7.2f} ms   gpu {gpu_ms:7.2f} ms")
    print(
        f"fused: {imagenet.images_per_s:.0f} images/s on the CPU, {on_gpu.images_per_s:.0f} on the GPU"
    )
else:
    print("No GPU here: the GPU profile is skipped. On a GPU machine this cell profiles the same")
    print('graph with device="gpu" and compares each node with the CPU figures above.')

# %% [markdown]
# ## 4. DALI against a CPU loader
#
# Per-operator timings say where a pipeline spends its time; a training job cares about how many
# images per second the loader delivers. `run_bench` runs the same augmentation through several
# loaders on the same files and reports images per second:
#
# - the graph as DALI runs it (fused by augexplorer, from the exported module, and written by
#   hand with `nvidia.dali.fn`), on the CPU and, where there is one, on the GPU;
# - a PyTorch `DataLoader` in the torchvision style: augexplorer's own Pillow code doing what
#   torchvision's transforms do (decoding and resizing in worker processes), as torchvision
#   itself does not import in this notebook's environment (section 5 times the real one);
#   and one built on albumentations and OpenCV.
#
# The CPU loaders only exist for the ImageNet recipes, so we benchmark `imagenet_train`. A short
# run over 64 images keeps this quick; each loader is timed three times in turn (the first batch
# of each run, start-up, is not counted) and the table keeps the median. On a short run on a
# shared CPU the rounds differ, so the cell after the table prints every round's rate.
#
# The table ends with a line marked ROUGH, on any machine: 64 images are 8 batches, and each
# DataLoader worker holds two batches ready before the clock starts, so part of the timed work
# was done untimed. The line says how many images would make the rates sound (`images=` here).
# For a demonstration we keep the run short and read the rounds side by side rather than trust
# one median.

# %%
bench = run_bench(preset("imagenet_train"), images=64, batch_size=8, rounds=3)
print(bench.table())

# %%
display(Image(figure_png(bench.chart())))

# %% [markdown]
# The spread of each loader over its rounds, and what it allows us to say against the
# torchvision-style loader. Where two loaders' ranges overlap, this run cannot tell which is
# faster; only a loader faster in its slowest round than another in its fastest is faster here
# (`compare_rounds`).

# %%
measured = [row for row in bench.rows if row.round_rates]
for row in measured:
    low, high = min(row.round_rates), max(row.round_rates)
    print(f"{row.name:40} {row.device}  {low:7.1f} - {high:7.1f} images/s")
pillow = next(row for row in measured if "Pillow" in row.name)
for row in measured:
    if row is not pillow:
        verdict = compare_rounds(row.round_rates, pillow.round_rates)
        print(f"{row.name} ({row.device}) against the Pillow loader: {WORDS[verdict]}")

# %% [markdown]
# On the CPU every loader does the same work on the same few cores, and the printed ranges are
# what this machine allows us to say about them. The gap the introduction talks about opens on a
# GPU machine, in the `gpu` rows: decoding and augmentation move to the GPU and the CPU cores
# are left for everything else a training job does.
#
# The project measured that on one NVIDIA H100 80GB with 16 CPU cores on 2026-11-22
# (`BENCHMARKS.md`, section "On a GPU": one run of `bench_throughput.py --images 1024 --rounds 3`,
# batch 8): on `imagenet_train` the torchvision-style (Pillow) DataLoader gave 1732.8 images/s
# with 16 workers, the three DALI loaders on the GPU (fused, exported, hand-written) 12482.2 to
# 12519.7 images/s (7.20x to 7.22x), and the same three on the 16 CPU cores 1424.9 to 1579.9.
# Those figures come from the 19 small bundled photos; for figures you can act on, run the
# benchmark script in `benchmarks/` on your own data.

# %% [markdown]
# ## 5. torchvision's own Compose
#
# The introduction's loader is torchvision's: a training `Compose` of a random resized crop to
# 224, a horizontal flip, a conversion to a tensor and ImageNet's normalization, in a PyTorch
# `DataLoader`. `bench_against` times such a file, as a training script holds it, against its
# port: the same file read without running it (`augexplorer.port`), exported as a DALI module
# whose `make_loader` runs in this notebook. Both make a pass over the same 64 files in batches
# of 8, three rounds, taking turns (a pass of torchvision's, then one of DALI's), so a slow
# spell of the machine falls on both; the first batch of each pass is not timed.
#
# torchvision does not import in this notebook's environment (its CPU build of torch), so the
# original runs in another Python: the reference environment that `make reference` builds and
# names in `AUGEXPLORER_REFERENCE_PYTHON`, with one DataLoader worker process per core. Timing
# the original **runs the file**, hence `run_file=True` (we wrote it). Without that Python the
# cell says so and times nothing.

# %%
COMPOSE = """\
import torchvision.transforms as T

train_transform = T.Compose([
    T.RandomResizedCrop(224),
    T.RandomHorizontalFlip(),
    T.ToTensor(),
    T.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225]),
])
"""
reference = os.environ.get("AUGEXPLORER_REFERENCE_PYTHON", "")
if reference and os.access(reference, os.X_OK):
    # the file lives in a temporary folder, removed as soon as it is timed
    with tempfile.TemporaryDirectory(prefix="augexplorer-compose-") as folder:
        compose_file = Path(folder) / "train_compose.py"
        compose_file.write_text(COMPOSE, encoding="utf-8")
        real = bench_against(
            compose_file, python=reference, run_file=True, images=64, batch_size=8, rounds=3
        )
    print(real.table())
else:
    real = None
    print("Not timed: no Python with torchvision here (AUGEXPLORER_REFERENCE_PYTHON is unset")
    print("or not executable). `make reference` builds one; then set the variable and rerun.")

# %% [markdown]
# The lines under the table that start with `original ran in` and `port:` say what ran
# (the ROUGH line after them says what it said in section 4): torchvision itself on one side,
# and a port that does all four transforms on the other (none left out, so the DALI loader
# does not do less work). The cell below checks both, then reads each DALI row's rounds
# against torchvision's, as section 4 did; and it sets torchvision's rounds beside those of
# section 4's torchvision-style loader. Those two come from separate runs (section 4's first),
# so their verdict is looser.

# %%
if real is None:
    print("Nothing to compare: the cell above timed nothing.")
else:
    assert real.versions["torchvision"] and "0 not ported" in real.port_summary
    assert real.workers == os.cpu_count()  # one DataLoader worker per core
    torchvision_rounds = real.original.round_rates
    for row in real.rows:
        if row.round_rates:
            assert len(row.round_rates) == 3 and row.images == 64
            low, high = real.spread(row)
            print(f"{row.name:20} {row.device}  {low:7.1f} - {high:7.1f} images/s")
    for row in real.rows:
        if row.round_rates and row is not real.original:
            verdict = compare_rounds(row.round_rates, torchvision_rounds)
            print(f"{row.name} ({row.device}) against torchvision's: {WORDS[verdict]}")
    stand_in = compare_rounds(pillow.round_rates, torchvision_rounds)
    print(f"section 4's torchvision-style loader against torchvision's: {WORDS[stand_in]}")

# %% [markdown]
# On a CPU both sides share the same few cores, and the verdicts above are what this machine
# allows us to say. `BENCHMARKS.md` holds one longer run of the same comparison (section "Your
# pipeline against its port"; 256 images, one pass each, on a 2-core machine without a GPU
# loaded by other programs, 2026-11-26): 105.7 images/s for torchvision's DataLoader and 206.7
# for the port's DALI loader on the CPU (1.96x). No run of torchvision itself on a GPU machine
# is recorded there. On one, the table's GPU row times the exported loader where this
# environment's PyTorch is a CUDA build (DALI hands it CUDA tensors), and otherwise says why not.

# %% [markdown]
# ## 6. Is the model starved?
#
# A faster loader only helps while the model waits for it. Two rates decide that, each
# measured alone: the loader's images per second, and the training step's on a batch already
# in memory. If the step takes in images faster than the loader delivers them, the difference
# is time the model sits idle: in the introduction's story, a GPU fed by a CPU loader.
#
# Here both run on this machine's **CPU**, the model included: a small convolutional network
# stands in for a real one, and the figures show the method, not a GPU's balance. The loader is
# the `imagenet_train` graph as a training job runs it (DALI, fused, on the CPU).

# %%
torch.manual_seed(0)
model = nn.Sequential(
    nn.Conv2d(3, 16, kernel_size=4, stride=4),  # 224 x 224 -> 56 x 56
    nn.ReLU(),
    nn.Conv2d(16, 32, kernel_size=3, stride=2, padding=1),
    nn.ReLU(),
    nn.AdaptiveAvgPool2d(1),
    nn.Flatten(),
    nn.Linear(32, 10),
)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)

# %% [markdown]
# One training step (forward, loss, backward, update), and how a loader's batch becomes torch
# tensors:


# %%
def train_step(images: torch.Tensor, labels: torch.Tensor) -> None:
    optimizer.zero_grad()
    nn.functional.cross_entropy(model(images), labels).backward()
    optimizer.step()


def to_tensors(batch: tuple[np.ndarray, np.ndarray]) -> tuple[torch.Tensor, torch.Tensor]:
    images, labels = batch
    return torch.from_numpy(images), torch.from_numpy(labels).long()


# %% [markdown]
# `measure_starvation` times the loader alone, the step alone on one of the loader's batches,
# and then the two in one loop, as a training script runs them: 6 batches of 8 each, after 3
# untimed ones (a framework's first steps are slow while it allocates memory).

# %%
starved = measure_starvation(preset("imagenet_train"), train_step, to_tensors, batches=6)
print(starved.summary())

# %% [markdown]
# Each rate is the median batch, with the slowest and the fastest batch beside it: on a shared
# machine they move, and a verdict holds only where the ranges stay apart. The line under the
# step says which side limits here, or that the ranges overlap and it is too close to call.
# The last two lines are the bounds of the loop: if loader and step ran at the same time, the
# slower one would set the pace; if they took turns, their times per image would add up. Where
# the measured loop falls says how much they overlapped. On a machine other programs share, the
# three measurements can see different loads and the loop can fall outside both bounds; the
# line below then says so, and the figures are worth measuring again (run the cell above again):

# %%
print(starved.overlap())

# %% [markdown]
# Here the loader's threads and the step's share the same few CPU cores. On a GPU machine the
# step runs on the GPU while the loader prepares the next batch; then the slower side sets the
# pace, and the question is the first one: is the loader's rate below the step's? Measure both
# the same way there, the loader with `run_bench` (section 4) and your own model's step on a
# batch already on the GPU. By the H100 figures quoted above, a torchvision-style loader on 16
# CPU cores (1732.8 images/s) starves any model whose step takes in more than that.
