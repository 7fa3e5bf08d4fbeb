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
# # From the notebook to a training job
#
# **Objective:** take a graph tuned in the explorer to a PyTorch training loop, on one device
# and under `torchrun`, and avoid three classic data bugs on the way. **Time:** about 45 minutes,
# with three exercises (the notebook runs in about a minute on a CPU).
#
# A common story: a multi-label image model trains slower than it should, the GPU waits on a CPU
# loader that decodes and augments every image in Python worker processes, and moving the
# augmentation into DALI is the fix. The hard part is getting there without rewriting the
# pipeline by hand. This notebook goes the whole way on a toy data set:
#
# 1. write a file list with several labels per image;
# 2. build and tune the augmentation graph on it;
# 3. export the graph as a Python module with a PyTorch loader;
# 4. train a small model for a few steps through that loader (on the CPU here);
# 5. run the same training on several GPUs with `torchrun`.

# %%
import importlib.util
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import torch
from IPython.display import display
from torch import nn

import augexplorer
from augexplorer import Explorer, Random, Session, Source, chain
from augexplorer.data import samples_dir
from augexplorer.devices import has_gpu
from augexplorer.exercises import check_boxes_in_pixels, check_last_batch, check_normalized_once
from augexplorer.export import export
from augexplorer.render import render_node

# the project's examples folder, next to the package in a checkout of the repository
EXAMPLES = Path(augexplorer.__file__).resolve().parent.parent / "examples"

# %% [markdown]
# ## 1. A multi-label file list
#
# A file list has one line per image: its path (relative to the list) and its labels, all
# integers. Here every image gets two tags out of seven: what it shows, and whether it is a
# close-up or a wide view. Every line must carry the same number of labels.
#
# We copy the bundled pictures into a temporary folder and write the list next to them.

# %%
TAGS = ["animal", "food", "people", "space", "texture", "close-up", "wide"]
CLOSE_UPS = {
    "cat_eye", "cat_face", "cat_whiskers", "espresso_cup", "espresso_spoon",
    "cameraman_closeup", "deep_field_elliptical", "deep_field_spiral",
    "brick", "grass", "gravel", "wood",
}  # fmt: skip

# removed by scratch.cleanup() at the end, or when this cell runs again and forgets it
scratch = tempfile.TemporaryDirectory(prefix="augexplorer-tags-")
workdir = Path(scratch.name)
(workdir / "images").mkdir()
lines = []
for folder in sorted(path for path in samples_dir().iterdir() if path.is_dir()):
    for image in sorted(folder.glob("*.jpg")):
        shutil.copy(image, workdir / "images" / image.name)
        view = "close-up" if image.stem in CLOSE_UPS else "wide"
        lines.append(f"images/{image.name} {TAGS.index(folder.name)} {TAGS.index(view)}")
file_list = workdir / "tags.txt"
file_list.write_text("\n".join(lines) + "\n", encoding="utf-8")
print(f"{file_list} ({len(lines)} images):")
print("\n".join(lines[:5]), "\n...")

# %% [markdown]
# ## 2. Build and tune the augmentation graph
#
# The graph reads the list, decodes a random region of each image, resizes to 128 x 128 (small,
# to keep this notebook quick on a CPU), rotates by a random angle, and normalizes to floats with
# a random horizontal flip.

# %%
MEAN = [0.485 * 255, 0.456 * 255, 0.406 * 255]
STD = [0.229 * 255, 0.224 * 255, 0.225 * 255]

spec = chain(
    Source("source", "file_list", str(file_list), seed=1),
    ("decode", "decoders.image_random_crop", {"output_type": "RGB", "random_area": [0.3, 1.0]}),
    ("resize", "resize", {"resize_x": 128.0, "resize_y": 128.0}),
    ("rotate", "rotate", {"angle": Random.uniform(-15, 15), "keep_size": True}),
    (
        "normalize",
        "crop_mirror_normalize",
        {
            "mean": MEAN,
            "std": STD,
            "dtype": "FLOAT",
            "output_layout": "CHW",
            "mirror": Random.coin_flip(0.5),
        },
    ),
    name="tags",
    batch_size=8,
)
session = Session(spec)
result = session.run()
print([[TAGS[tag] for tag in row] for row in result.labels()])
render_node(result, cell=176, columns=4)

# %% [markdown]
# The captions show both labels of each image, then the values drawn for it. A DALI reader
# carries one integer per file, so for a multi-label list the explorer (and the exported module)
# hand the reader each file's row number and look the labels up afterwards.
#
# Tuning is a series of small edits. Rotating every image is a bit much for close-ups, so we
# rotate only half of them, over a narrower range:

# %%
session.set_arg("rotate", "angle", Random.uniform(-10, 10))
result = session.set_probability("rotate", 0.5)
render_node(result, cell=176, columns=4)

# %% [markdown]
# The same edits can be made with the mouse in the explorer panel: sliders for arguments, a
# distribution picker for random ones, per-node timings and a live grid. `panel.spec` is always
# the graph as it stands in the panel.

# %%
panel = Explorer(session.spec, autosave=None)  # writes no autosave under .augexplorer/
display(panel)

# %% [markdown]
# ## 3. Export the tuned graph
#
# `export` writes the graph as a plain Python module that needs only DALI and PyTorch: a
# `@pipeline_def` function with exactly the calls the explorer ran (same constants, same seeds),
# a `make_loader()` that returns a PyTorch `DALIGenericIterator`, and the graph itself, so the
# module can be opened in the explorer again later.

# %%
module_path = export(  # overwrite: running the cell again replaces the module
    panel.spec, workdir / "tags_pipeline.py", data_path=str(file_list), overwrite=True
)
source = module_path.read_text(encoding="utf-8")
start = source.index("\n@pipeline_def") + 1  # the decorator line, not the docstring
print(source[start : source.index("\n\n\n", start)])

# %% [markdown]
# The module is ordinary Python. A training script imports it; here we load it from the
# temporary folder.

# %%
module_spec = importlib.util.spec_from_file_location("tags_pipeline", module_path)
tags_pipeline = importlib.util.module_from_spec(module_spec)
module_spec.loader.exec_module(tags_pipeline)

loader = tags_pipeline.make_loader(file_list, batch_size=8, device="cpu", num_threads=2)
batch = next(loader)[0]
for name, tensor in batch.items():
    print(f"{name:7} {tuple(tensor.shape)} {tensor.dtype}")
print("labels of the first images:", batch["labels"][:4].tolist())
print("the explorer showed:       ", result.labels()[:4])

# %% [markdown]
# The loader yields one dict per batch. `images` is a float tensor in `NCHW`, ready for a model;
# `labels` holds each image's row of tags, and the first batch holds the same images as the
# explorer showed, because the reader shuffles with the same seed.

# %%
assert batch["labels"][:4].tolist() == result.labels()[:4]

# %% [markdown]
# ### Exercise: normalize once
#
# Training scripts written for a CPU loader often normalize the images themselves, for example
# with torchvision's `Normalize(mean, std)` or `(x - mean) / std`. The graph's `normalize` node
# (`crop_mirror_normalize` with `MEAN` and `STD`) has already done that. Set `model_input` to
# what the model should get from `batch["images"]`.

# %%
model_input = None  # your answer: an expression of batch["images"]

# %%
print(check_normalized_once(model_input, batch["images"]))
print(f"the loader's images: mean {batch['images'].mean():.2f}, std {batch['images'].std():.2f}")

# %% [markdown]
# ## 4. Train a small model for a few steps
#
# A multi-label model predicts, for every tag, whether it applies, so the targets are "multi-hot"
# vectors and the loss is a binary cross-entropy per tag. The model is deliberately tiny: the
# point is the data path, not the accuracy.


# %%
def multi_hot(rows: torch.Tensor, count: int = len(TAGS)) -> torch.Tensor:
    """(batch, labels per image) integer tags -> (batch, count) floats, 1 where a tag applies."""
    return torch.zeros(len(rows), count).scatter_(1, rows.long(), 1.0)


def small_model(count: int = len(TAGS)) -> nn.Module:
    return nn.Sequential(
        nn.Conv2d(3, 16, 3, stride=2, padding=1),
        nn.ReLU(),
        nn.Conv2d(16, 32, 3, stride=2, padding=1),
        nn.ReLU(),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Linear(32, count),
    )


torch.manual_seed(0)
model = small_model()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
loss_fn = nn.BCEWithLogitsLoss()

for step in range(1, 13):
    try:
        batch = next(loader)[0]
    except StopIteration:  # end of an epoch; the loader has already reset itself
        batch = next(loader)[0]
    loss = loss_fn(model(batch["images"]), multi_hot(batch["labels"]))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"step {step:2}: loss {loss.item():.3f} ({len(batch['images'])} images)")

# %% [markdown]
# ### Exercise: the last batch of an epoch
#
# The loop above printed the number of images of every step: not every batch held 8. The file
# list holds 19 images and the batch size is 8. `make_loader` keeps a partial last batch (its
# `last_batch_policy` argument changes that). Write `epoch_sizes`: the number of images in each
# batch of one epoch. Code that assumes every batch holds 8 rows (a `view(8, -1)`, a per-batch
# mean divided by 8) breaks on the last one.

# %%
epoch_sizes = None  # your answer: a list of batch sizes

# %%
print(check_last_batch(epoch_sizes, images=len(lines), batch_size=8))
one_epoch = tags_pipeline.make_loader(file_list, batch_size=8, device="cpu", num_threads=2)
measured_sizes = [len(batch[0]["images"]) for batch in one_epoch]
print("the loader's batches in one epoch:", measured_sizes)
assert check_last_batch(measured_sizes, images=len(lines), batch_size=8).startswith("Right")

# %% [markdown]
# ## 5. Several GPUs with `torchrun`
#
# `torchrun` starts one process per GPU and tells each its `RANK`, `WORLD_SIZE` and `LOCAL_RANK`.
# The exported `make_loader` reads them: each process gets its own shard of the file list and
# runs its pipeline on its own GPU. The training script only has to wrap the model in
# `DistributedDataParallel`. The project holds such a script, `examples/train_tags.py`; we copy
# it next to the exported module:

# %%
script = Path(shutil.copy(EXAMPLES / "train_tags.py", workdir / "train_tags.py"))
print(script.read_text(encoding="utf-8"))
print(f"cd {workdir}")
print("torchrun --nproc_per_node=4 train_tags.py --data tags.txt --steps 100")

# %% [markdown]
# `--nproc_per_node` is the number of GPUs on the machine; on several machines, add `--nnodes`
# and a rendezvous address as the `torchrun` documentation describes. Each process reads
# `1 / WORLD_SIZE` of the file list per epoch.
#
# We do not start several GPUs here, but we can check that the script runs as a single process.
# On this machine that means the CPU:

# %%
print("GPU visible to DALI:", has_gpu())
run = subprocess.run(
    [sys.executable, "train_tags.py", "--data", "tags.txt", "--steps", "4"],
    cwd=workdir,
    capture_output=True,
    text=True,
    timeout=300,
    check=False,
)
print(run.stdout.strip() or run.stderr.strip()[-2000:])
run.check_returncode()

# %% [markdown]
# ### Stopping and resuming
#
# Long jobs stop: a preempted node, a time limit. A job that restarts with a new loader would
# read epoch 0's file order and draw epoch 0's augmentation again. `loader.checkpoint()` saves
# where the loader stands (the reader's place and the state of every random operator), and
# `make_loader(..., checkpoint=saved)` goes on from there. `train_tags.py --checkpoint run` saves
# it beside the model and the optimizer, one file per rank. Stopped after 2 steps and resumed
# to 4, the job ends with the loss of 4 steps run at once:


# %%
def train(*arguments: str) -> str:
    """The last line train_tags.py prints (its step and loss)."""
    done = subprocess.run(
        [sys.executable, "train_tags.py", "--data", "tags.txt", *arguments],
        cwd=workdir,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    return done.stdout.strip().splitlines()[-1]


for old in workdir.glob("run.rank*.pt"):  # so that this cell, run again, starts afresh
    old.unlink()
at_once = train("--steps", "4")
train("--steps", "2", "--checkpoint", "run")  # stops after step 2
resumed = train("--steps", "4", "--checkpoint", "run")  # steps 3 and 4
print("at once:", at_once)
print("resumed:", resumed)
assert resumed == at_once

# %% [markdown]
# ### Exercise: boxes for a torchvision detection model
#
# A detection graph (notebook 06) often carries boxes as fractions of the image, `[l, t, r, b]`
# between 0 and 1, as DALI's COCO reader gives them with `ratio=True`. torchvision's detection
# models take boxes in pixels, `x1, y1, x2, y2`: fed fractions, they train on boxes smaller than
# a pixel, and nothing fails. Write `to_pixels(boxes, width, height)` for an `(N, 4)` array of
# fractions. (An exported detection module converts for you with
# `make_loader(target_format="torchvision")`.)

# %%
to_pixels = None  # your answer: def to_pixels(boxes, width, height): ...

# %%
print(check_boxes_in_pixels(to_pixels))

# %% [markdown]
# The temporary folder holds everything a training job needs: the images, the file list, the
# exported module and the script. Remove it when you are done:

# %%
scratch.cleanup()
