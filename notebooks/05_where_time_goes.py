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
# A familiar puzzle: an epoch takes hours, shrinking the images on disk barely helps, and the
# culprit turns out to be the augmentation itself, run on the CPU for every image before the
# batch is copied to the GPU. Before moving anything, it pays to measure: which operator costs
# what, what the GPU would change, and how a DALI loader compares with a CPU loader written in
# the usual torchvision style.
#
# The figures below come from the bundled sample pictures, which are small, with small batches
# so the notebook stays quick. Treat them as a demonstration of the method; measure your own
# data on your own machine for decisions.

# %%
from IPython.display import Image, display

from augexplorer import preset
from augexplorer.bench import run_bench
from augexplorer.devices import has_gpu
from augexplorer.profiling import profile
from augexplorer.profiling.chart import figure_png

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
# On the CPU, decoding and resizing usually take the largest shares of an ImageNet-style
# pipeline; the `share` column says how it stands on this machine. DALI runs independent work side by side inside a pipeline, so the sum of the
# operators is an upper bound for the fused time rather than an exact match.
#
# ## 2. Order matters
#
# Operators that touch every pixel cost in proportion to the image size. The `basic` preset
# rotates the whole resized image (shorter side 256 pixels) and cuts a 224 x 224 square out of
# it afterwards. Crop first, and the rotation only has the square to turn; with `keep_size` its
# output stays 224 x 224. The price is visible: the corners the rotation uncovers now fall inside
# the picture.

# %%
rotate_then_crop = preset("basic")
crop_then_rotate = rotate_then_crop.move("crop", -1).set_arg("rotate", "keep_size", True)
print("before:", " -> ".join(node.id for node in rotate_then_crop.nodes))
print("after: ", " -> ".join(node.id for node in crop_then_rotate.nodes))

before = profile(rotate_then_crop, repeats=5, warmup=1, device="cpu")
after = profile(crop_then_rotate, repeats=5, warmup=1, device="cpu")
for label, timing in (("rotate, then crop", before), ("crop, then rotate", after)):
    print(f"{label}: rotate {timing.row('rotate').median_ms:6.2f} ms per batch")

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
# The CPU loaders only exist for the ImageNet recipes, so we benchmark `imagenet_train`. A
# short run over 64 images keeps this quick; each loader is timed three times in turn and the
# median kept, and the first batch of each run (start-up) is not counted.

# %%
bench = run_bench(preset("imagenet_train"), images=64, batch_size=8, rounds=3)
print(bench.table())

# %%
display(Image(figure_png(bench.chart())))

# %% [markdown]
# Read the CPU rows with care: with every loader on the same few CPU cores, DALI and a good
# DataLoader do the same work on the same hardware, and their figures land close together (on
# a short run like this one, the order between them can change from run to run). The gap the
# introduction talks about opens on a GPU machine, in the `gpu` rows: decoding and augmentation
# move to the GPU, and the CPU cores are left for everything else a training job does. For
# figures you can act on, run the benchmark script in `benchmarks/` on your own data.
