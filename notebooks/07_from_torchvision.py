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
# # From a torchvision pipeline to DALI
#
# **Objective:** bring a training script's torchvision `transforms.Compose` into DALI without
# rewriting it by hand: port it, look at what it became, settle what differs from the
# original, export it as a loader, and time it against the original DataLoader.
#
# **Time:** about 30 minutes (the notebook runs in under a minute on a CPU; the timing section
# needs a Python where torchvision imports, see section 5).
#
# The pipeline belongs to a multi-label classifier: each image carries two tags. Nothing of the
# training script runs until section 5, and only there because we wrote it ourselves.

# %%
import importlib.util
import os
import re
import tempfile
from pathlib import Path

import nvidia.dali.experimental.torchvision as dtv
import torch

from augexplorer import Session
from augexplorer.bench import bench_against
from augexplorer.bench.against import OriginalFailed
from augexplorer.data import samples_dir
from augexplorer.export import export
from augexplorer.export.importer import import_graph
from augexplorer.port import PortResult
from augexplorer.port.build import DataSource
from augexplorer.port.door import port_file
from augexplorer.render import render_node

# %% [markdown]
# ## 1. The training script and its data
#
# A typical training script builds its augmentation at module level. We write one into a
# temporary folder, as it would sit in a project:

# %%
# removed by scratch.cleanup() at the end, or when this cell runs again and forgets it
scratch = tempfile.TemporaryDirectory(prefix="augexplorer-port-")
workdir = Path(scratch.name)
SCRIPT = """\
import torchvision.transforms as T
from torchvision.transforms import InterpolationMode

train_transform = T.Compose([
    T.RandomResizedCrop(160, scale=(0.5, 1.0), interpolation=InterpolationMode.BICUBIC),
    T.RandomHorizontalFlip(),
    T.RandomRotation(15, interpolation=InterpolationMode.BILINEAR),
    T.ColorJitter(brightness=0.3, contrast=0.3, saturation=0.3),
    T.ToTensor(),
    T.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225]),
])

if __name__ == "__main__":
    train(train_transform)  # the training loop, elsewhere in the project
"""
script = workdir / "train_tags.py"
script.write_text(SCRIPT, encoding="utf-8")
print(f"{script.name}: {len(SCRIPT.splitlines())} lines")

# %% [markdown]
# Its data: a file list with two tags per image, what it shows and whether it is a close-up
# (the bundled sample pictures stand in for a real data set).

# %%
TAGS = ["animal", "food", "people", "space", "texture", "close-up", "wide"]
CLOSE_UPS = {"cat_eye", "cat_face", "cat_whiskers", "espresso_cup", "brick", "grass", "wood"}
lines = []
for folder in sorted(path for path in samples_dir().iterdir() if path.is_dir()):
    for image in sorted(folder.glob("*.jpg")):
        view = "close-up" if image.stem in CLOSE_UPS else "wide"
        lines.append(f"{image} {TAGS.index(folder.name)} {TAGS.index(view)}")
file_list = workdir / "tags.txt"
file_list.write_text("\n".join(lines) + "\n", encoding="utf-8")
print(len(lines), "images, e.g.", lines[0].split("/")[-1])

# %% [markdown]
# ## 2. Port it
#
# `port_file` reads the Compose from the file's source without running it (the command line's
# `augexplorer import train_tags.py -o graph.json` does the same). Each transform becomes a node
# or a few, and gets a grade measured against real torchvision: *exact* (same pixels for the
# same parameters), *distribution* (parameters drawn as torchvision draws them, by DALI's
# generator) or *approximate* (with what differs and by how much).

# %%
ported = port_file(script, data=DataSource("file_list", str(file_list)))
print(ported.summary())

# %% [markdown]
# ## 3. Look at it
#
# The ported graph is a graph like any other: run it on a batch and look at any node. Here the
# output of the rotation, captioned with each image's tags (their numbers in the file list; the
# line above names them) and the values drawn for it: the crop window, the flip and the angle.

# %%
session = Session(ported.spec)
result = session.run()
print([[TAGS[tag] for tag in row] for row in result.labels()])
render_node(result, "rotate", cell=200, columns=4, caption_lines=5)

# %% [markdown]
# ## 4. Settle what differs
#
# For each difference the summary names, decide: change something so the two sides agree, or
# accept it knowingly.
#
# **The crop.** The script resizes its crops with bicubic interpolation. The port's grade for
# it, and the interpolation its DALI node uses:


# %%
def grade_of(port: PortResult, transform: str) -> str:
    """The grade and differences of the step that ported `transform`."""
    step = next(s for s in port.steps if s.call.name == transform)
    return f"{step.origin.fidelity}: " + " ".join(step.origin.differences)


crop_grade = grade_of(ported, "RandomResizedCrop")
print(crop_grade)
print(ported.spec.node("random_resized_crop").args["interp_type"])

# %% [markdown]
# The last sentence gives the resampling's difference from Pillow's for each filter, measured
# when the port was written. The bicubic figures, read off it:

# %%
bicubic = re.search(r"bicubic: mean ([\d.]+(?:-[\d.]+)?), max (\d+)", crop_grade)
assert bicubic is not None, "the grade names its bicubic figures"
print(f"bicubic against Pillow: mean {bicubic[1]} grey levels, max {bicubic[2]}")

# %% [markdown]
# A fraction of a grey level on average; the maximum is reached on a few sharp edges. The DALI
# node resizes with its cubic filter (`INTERP_CUBIC` above), as the script asks. That is close
# enough for training augmentation: we keep the script as it is. The grade is *distribution*:
# DALI draws the windows, with torchvision's distributions.
#
# **The rotation and the colour jitter** are *approximate*:

# %%
print("RandomRotation", grade_of(ported, "RandomRotation"))
print("ColorJitter", grade_of(ported, "ColorJitter"))

# %% [markdown]
# The rotation keeps bilinear sampling, the script's choice: the figures above give its
# difference next to nearest-neighbour's. The colour jitter's steps run in a fixed order where
# torchvision shuffles them per image; this pipeline has no hue factor, so the hue sentence does
# not apply. For training augmentation we accept both. The decisions stay visible: every
# ported node carries its origin (transform, line, grade, differences).
#
# ## 5. Export, and time it against the original
#
# `export` writes the training module: the pipeline, `make_loader()` and the graph, origins
# included, so importing the module back gives the same grades.

# %%
module_path = export(  # overwrite: running the cell again replaces the module
    ported.spec, workdir / "tags_dali.py", data_path=str(file_list), overwrite=True
)
back = import_graph(module_path)
print(module_path.name, "->", back.node("rotate").origin.describe())

module_spec = importlib.util.spec_from_file_location("tags_dali", module_path)
tags_dali = importlib.util.module_from_spec(module_spec)
module_spec.loader.exec_module(tags_dali)
loader = tags_dali.make_loader(file_list, batch_size=8, device="cpu", num_threads=2)
batch = next(loader)[0]
print({name: tuple(value.shape) for name, value in batch.items()})

# %% [markdown]
# The training script's loop takes `batch["images"]` and its two tags per image in
# `batch["labels"]`.
#
# Is DALI worth it for this pipeline? `bench_against` times the original Compose in a PyTorch
# DataLoader (Pillow images, one worker per core) against the exported loader, on the same
# images. Timing the original **runs the script**, so it needs `run_file=True`: fine here, we
# wrote it. The original needs torchvision, which does not import in this notebook's
# environment (its CPU build of torch); it runs in another Python, the reference environment
# that `make reference` builds and names in `AUGEXPLORER_REFERENCE_PYTHON`. Without one, the
# cell says so and times nothing.

# %%
reference = os.environ.get("AUGEXPLORER_REFERENCE_PYTHON", "")
if reference and os.access(reference, os.X_OK):
    try:
        timing = bench_against(
            script, python=reference, run_file=True, images=64, batch_size=8, workers=2, threads=2
        )
        print(timing.table())
    except OriginalFailed as failed:
        timing = None
        print("Not timed:", failed)
else:
    timing = None
    print("Not timed: no Python with torchvision here (AUGEXPLORER_REFERENCE_PYTHON is unset")
    print("or not executable). `make reference` builds one; then set the variable and rerun.")

# %% [markdown]
# The `vs original` column is the answer for this machine: images per second of each loader
# over the original DataLoader's. The ROUGH line under the table says that 64 images are too
# few for sound rates (notebook 05, section 4, says why). On a machine with a GPU, the table
# adds the exported loader on the GPU. A short run on 64 small pictures is a demonstration of
# the method; for a decision, run
# `augexplorer bench --against train.py --run-file --python PATH --data YOUR_DATA` on your own
# images.

# %% [markdown]
# ## 6. DALI's own drop-in, for comparison
#
# DALI 2.4 carries another way in: `nvidia.dali.experimental.torchvision`, classes named as
# torchvision's v2 transforms, so that changing the import runs a Compose through DALI. It is a
# different tool from the port. It applies the Compose to the tensors you hand it, call by
# call, with no reader, no graph to look at and no differences named; and it covers a subset of
# torchvision. Which of this script's transforms does it have?

# %%
used = [name for name in re.findall(r"T\.(\w+)\(", SCRIPT) if name != "Compose"]
print("in DALI's drop-in:", [name for name in used if hasattr(dtv, name)])
print("missing from it:  ", [name for name in used if not hasattr(dtv, name)])
assert [name for name in used if not hasattr(dtv, name)] == ["RandomRotation", "ToTensor"]

# %% [markdown]
# The rotation has no drop-in, so this script cannot move by changing its import; the port
# above carries it. The drop-in also hands its results over on PyTorch's CUDA stream: the next
# cell prints the output's shape where PyTorch has CUDA, and the reason where it has none (as
# in this notebook's environment without a GPU).

# %%
drop_in = dtv.Compose(
    [dtv.Resize(size=176, device="cpu"), dtv.CenterCrop(size=(160, 160), device="cpu")],
    batch_size=1,
)
picture = torch.zeros(3, 240, 320, dtype=torch.uint8)
try:
    print("output:", tuple(drop_in(picture).shape))
except (AssertionError, RuntimeError) as error:  # PyTorch's words for a missing CUDA
    print("not on this PyTorch:", error)
    assert not torch.cuda.is_available()

# %% [markdown]
# The temporary folder of section 1 holds the training script, its file list and the exported
# module: copy what you want to keep, then remove it:

# %%
scratch.cleanup()
