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
# changes, how a DALI loader compares with a CPU loader, and whether a training step waits for
# its loader; read such figures with their spread. **Time:** about 35 minutes (the notebook runs
# in about a minute and a half on a CPU).
#
# A familiar story: an epoch takes hours, and the suspect is the augmentation, run on the CPU
# for every image before the batch is copied to the GPU. Before moving anything, it pays to
# measure: which operator costs what, what the GPU would change, and how a DALI loader compares
# with a CPU loader written in the usual torchvision style.
#
# The figures below come from the bundled sample pictures, which are small, with small batches
# so the notebook stays quick. Treat them as a demonstration of the method; measure your own
# data on your own machine for decisions.

# %%
import numpy as np
import torch
from IPython.display import Image, display
from torch import nn

from augexplorer import Session, preset
from augexplorer.bench import run_bench
from augexplorer.bench.starvation import measure_starvation
from augexplorer.devices import has_gpu
from augexplorer.profiling import profile
from augexplorer.profiling.chart import figure_png
from augexplorer.render import render_node

print("GPU visible to DALI:", has_gpu())

# %% [markdown]
# ## 1. Per-operator timings
#
# DALI does not time its operators one by one, so `profile` runs each node of the graph in a
# pipeline of its own, on the outputs of the nodes before it, several times after a warm-up, and
# reports the median. Next to that it runs the whole graph fused into one pipeline, which is what
# a training loader does. A node's random draws count as part of its cost.

# %%
imagenet = profile("imagenet_train", repeats=5, warmup=1, batch_size=8, device="cpu")
print(imagenet.table())

# %% [markdown]
# The same figures as a chart; the dashed line is the fused pipeline.

# %%
display(Image(figure_png(imagenet.chart())))

# %% [markdown]
# The `share` column says which operators cost most on this machine; the cell below reads the
# two largest off the profile. Decoding and resizing both work on every pixel of the stored
# image, so they are the steps smaller pictures on disk would make cheaper. DALI runs
# independent work side by side inside a pipeline, so the sum of the operators need not match
# the fused time exactly.

# %%
ranked = sorted(imagenet.rows, key=imagenet.share, reverse=True)
top_two = ranked[:2]
print(
    "largest shares here:",
    ", ".join(f"{row.node} {imagenet.share(row):.0%}" for row in top_two),
    f"(together {sum(imagenet.share(row) for row in top_two):.0%})",
)

# %% [markdown]
# ## 2. Order matters
#
# Operators that touch every pixel cost in proportion to the image size. The `basic` preset
# rotates the whole resized image (shorter side 256 pixels) and cuts a 224 x 224 square out of
# it afterwards. Crop first, and the rotation only has the square to turn; with `keep_size` its
# output stays 224 x 224. The price: the corners the rotation uncovers now fall inside the
# picture (drawn below the timings).

# %%
rotate_then_crop = preset("basic")
crop_then_rotate = rotate_then_crop.move("crop", -1).set_arg("rotate", "keep_size", True)
print("before:", " -> ".join(node.id for node in rotate_then_crop.nodes))
print("after: ", " -> ".join(node.id for node in crop_then_rotate.nodes))

before = profile(rotate_then_crop, repeats=5, warmup=1, device="cpu")
after = profile(crop_then_rotate, repeats=5, warmup=1, device="cpu")
for label, timing in (("rotate, then crop", before), ("crop, then rotate", after)):
    print(f"{label}: rotate {timing.row('rotate').median_ms:6.2f} ms per batch")

# %%
turned_last = Session(crop_then_rotate, batch_size=4).run()
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
# - a PyTorch `DataLoader` in the torchvision style (Pillow decoding and resizing in worker
#   processes), and one built on albumentations and OpenCV.
#
# The CPU loaders only exist for the ImageNet recipes, so we benchmark `imagenet_train`. A short
# run over 64 images keeps this quick; each loader is timed three times in turn (the first batch
# of each run, start-up, is not counted) and the table keeps the median. On a short run on a
# shared CPU the rounds differ, so the cell after the table prints every round's rate.

# %%
bench = run_bench(preset("imagenet_train"), images=64, batch_size=8, rounds=3)
print(bench.table())

# %%
display(Image(figure_png(bench.chart())))

# %% [markdown]
# The spread of each loader over its rounds, and what it allows us to say against the
# torchvision-style loader. Where two loaders' ranges overlap, this run cannot tell which is
# faster; only a loader faster in its slowest round than another in its fastest is faster here.

# %%
measured = [row for row in bench.rows if row.round_rates]
for row in measured:
    low, high = min(row.round_rates), max(row.round_rates)
    print(f"{row.name:40} {row.device}  {low:7.1f} - {high:7.1f} images/s")
pillow = next(row for row in measured if "Pillow" in row.name)
for row in measured:
    if row is pillow:
        continue
    if min(row.round_rates) > max(pillow.round_rates):
        verdict = "faster than the Pillow loader in every round"
    elif max(row.round_rates) < min(pillow.round_rates):
        verdict = "slower than the Pillow loader in every round"
    else:
        verdict = "overlaps the Pillow loader: no winner in this run"
    print(f"{row.name} ({row.device}): {verdict}")

# %% [markdown]
# On the CPU every loader does the same work on the same few cores, and the printed ranges are
# what this machine allows us to say about them. The gap the introduction talks about opens on a
# GPU machine, in the `gpu` rows: decoding and augmentation move to the GPU and the CPU cores
# are left for everything else a training job does.
#
# The project measured that on one NVIDIA H100 80GB with 16 CPU cores on 2026-11-22
# (`BENCHMARKS.md`, section "On a GPU"; one run each, 1,024 images, batch 8, 3 rounds): on
# `imagenet_train` the torchvision-style (Pillow) DataLoader gave 1732.8 images/s with 16 workers
# and DALI on the GPU 12482.2 to 12519.7 images/s (7.20x to 7.22x), while DALI on the same 16
# CPU cores gave 1424.9 to 1579.9. Those figures come from the 19 small bundled photos; for
# figures you can act on, run the benchmark script in `benchmarks/` on your own data.

# %% [markdown]
# ## 5. Is the model starved?
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
# step says which side limits here. The last two lines are the bounds of the loop: if loader and
# step ran at the same time, the slower one would set the pace; if they took turns, their times
# per image would add up. Where the measured loop falls says how much they overlapped:

# %%
print(starved.overlap())

# %% [markdown]
# Here the loader's threads and the step's share the same few CPU cores. On a GPU machine the
# step runs on the GPU while the loader prepares the next batch; then the slower side sets the
# pace, and the question is the first one: is the loader's rate below the step's? Measure both
# the same way there, the loader with `run_bench` (section 4) and your own model's step on a
# batch already on the GPU. By the H100 figures quoted above, a torchvision-style loader on 16
# CPU cores (1732.8 images/s) starves any model whose step takes in more than that.
