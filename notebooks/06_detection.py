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
# # Detection: boxes, polygons and keypoints that move with their images
#
# A detection or segmentation pipeline augments two things at once: the pixels and the
# annotations on them. Flip the image and not its boxes, crop the image and keep boxes outside
# the frame, resize a mask with linear interpolation: each of these trains a model on labels
# that no longer describe the picture, and nothing crashes to tell you. DALI has the operators
# to keep them in step (`bb_flip`, `random_bbox_crop`, `bbox_rotate`, `coord_transform`, ...),
# but wiring them by hand is exactly the code that is easy to get wrong without seeing it.
#
# This notebook builds a detection graph on the photos bundled with augexplorer, which come with
# COCO annotations made by the project: boxes, polygon outlines and a few keypoints. We look at
# the annotations after every step, check the graph with statistics over many draws, and export
# it as a training module.
#
# **Objective:** augment images together with their boxes, polygons and keypoints, check by
# statistics that the annotations follow, and export the graph for a detection training loop.
# **Time:** about 30 minutes (the notebook runs in under a minute on a CPU).

# %%
import importlib.util
import tempfile
from pathlib import Path

from IPython.display import display

from augexplorer import Explorer, Session, Source, chain
from augexplorer.annotations import tracks_at
from augexplorer.annotations.wiring import add_operator
from augexplorer.catalog import load_catalog
from augexplorer.export import export
from augexplorer.render import render_node
from augexplorer.stats import collect_stats

catalog = load_catalog()

# %% [markdown]
# ## 1. Read a COCO file
#
# A COCO source is DALI's `readers.coco`: every argument of the reader can be given, and its
# outputs are DALI's own (images, boxes, labels, polygons and vertices). Boxes are read as
# corners (`ltrb=True`) relative to the image size (`ratio=True`), the form DALI's box operators
# take. `keypoints=True` adds each image's keypoints, which `readers.coco` does not read: the
# source looks them up by image id from the file. With no path, the source reads the bundled
# annotations.

# %%
source = Source(
    "source",
    "coco",
    reader_args={"ltrb": True, "ratio": True, "polygon_masks": True},
    keypoints=True,
)
graph = chain(source, ("decode", "decoders.image", {"output_type": "RGB"}), batch_size=8)
print(list(graph.outputs))

# %% [markdown]
# The grid draws each image's annotations over it: boxes in their class colour with the class
# name, polygons filled translucent, keypoints joined by their skeleton. The caption lists the
# classes of each image's objects.

# %%
session = Session(graph)
result = session.run()
render_node(result, cell=180, columns=4)

# %% [markdown]
# ## 2. Add geometric operators: their companions come with them
#
# `add_operator` is what the panel's operator picker calls. On an annotated graph it wires the
# annotation operators that move with the new image operator, reading the same draws: a flip
# gets a coin node that `flip`, `bb_flip` (boxes) and `coord_flip` (polygon vertices and
# keypoints) all read, so an image and its boxes can never be flipped differently.

# %%
flipped = add_operator(graph, catalog, "flip")
print("added:", ", ".join(flipped.added))
print(flipped.note)

# %% [markdown]
# DALI's SSD training pipeline crops with `random_bbox_crop`: it picks a window that keeps
# enough of the boxes, and gives the window (anchor and shape) with the boxes and labels that
# survive. The image crop is a `slice` reading that window; the polygons of the kept objects
# follow through `segmentation.select_masks` and a `coord_transform` by the window.

# %%
cropped = add_operator(flipped.spec, catalog, "random_bbox_crop", flipped.node_id)
print("added:", ", ".join(cropped.added))
resized = add_operator(
    cropped.spec, catalog, "resize", cropped.node_id, {"resize_x": 300.0, "resize_y": 300.0}
)
rotated = add_operator(resized.spec, catalog, "rotate", resized.node_id, {"angle": 12.0})
graph = rotated.spec
print("added with rotate:", ", ".join(rotated.added))

# %% [markdown]
# Resize needed nothing: the boxes are relative to the image size. Rotate brought `bbox_rotate`
# for the boxes (the rotated box's enclosing box) and a rotation matrix for the vertices and
# keypoints. The annotations now follow every step:

# %%
result = session.update(graph)
render_node(result, cell=180, columns=4)

# %% [markdown]
# Any node's output can be looked at with the annotations as they stand there, here right after
# the crop, before the resize and the rotation. `result.annotations(node)` gives the same as
# arrays, in the pixels of that node's images.

# %%
render_node(result, cropped.node_id, cell=180, columns=4)

# %%
first = result.annotations(rotated.node_id)[0]
for name, box in zip(first.names, first.boxes.tolist(), strict=True):
    print(f"{name:8} left, top, right, bottom: {[round(value, 1) for value in box]}")

# %% [markdown]
# ## 3. When the annotations cannot follow
#
# Some operators move pixels in ways no DALI operator can apply to boxes or polygons: `water`'s
# waves, `sphere`, `jitter`. Adding one says so, and the graph remembers that from there on the
# annotations no longer match their images.

# %%
waved = add_operator(graph, catalog, "water", rotated.node_id)
print(waved.note)
print(tracks_at(waved.spec, waved.node_id).mismatched)

# %% [markdown]
# ## 4. Check it over many draws
#
# One batch shows what a graph can do; statistics show what it does on average. For annotated
# graphs they count the objects read per class, and at every geometric node how many boxes went
# in, how many came out (a crop drops the boxes it leaves out) and how many now touch the image
# border (clipped). A crop that drops most boxes, or a rotation that pushes many against the
# border, shows here before a training run does.

# %%
stats = collect_stats(graph, batches=6)
for line in stats.summary().splitlines():
    if line.startswith(("objects", "boxes")):
        print(line)

# %% [markdown]
# ## 5. Export a training module
#
# The module's pipeline reads the COCO file with `fn.readers.coco` and makes exactly the calls
# the explorer ran. Boxes and labels have one row per object, a different count in every image,
# so `make_loader` pads them for PyTorch and also hands over `targets`: one dict per image of
# its boxes and labels, cut to their real rows. By default they are exactly what the graph
# makes: images as the graph ends them (here uint8, height x width x channels), boxes in the
# source's coordinates (here corners as fractions of the image: the module's `BOXES_LTRB` and
# `BOXES_RATIO` say which), labels int32.

# %%
# removed by scratch.cleanup() at the end, or when this cell runs again and forgets it
scratch = tempfile.TemporaryDirectory(prefix="augexplorer-detection-")
workdir = Path(scratch.name)
module_path = export(graph, workdir / "detection_aug.py")
module_spec = importlib.util.spec_from_file_location("detection_aug", module_path)
detection_aug = importlib.util.module_from_spec(module_spec)
module_spec.loader.exec_module(detection_aug)

loader = detection_aug.make_loader(batch_size=4, device="cpu")
batch = next(iter(loader))[0]
print("images:", tuple(batch["images"].shape), batch["images"].dtype)
for target in batch["targets"]:
    print({name: (tuple(value.shape), value.dtype) for name, value in target.items()})
first_boxes = batch["targets"][0]["boxes"][:2].tolist()
print("first boxes:", [[round(value, 3) for value in box] for box in first_boxes])

# %% [markdown]
# That is not the form torchvision's detection models take: they want float images of
# channels x height x width in 0-1, boxes in pixels as x1, y1, x2, y2 (float32) and int64
# labels. Fed fractions as pixels, a model trains on boxes squeezed into the top-left pixel of
# every image, and nothing fails to say so. `target_format="torchvision"` converts each batch:
# the images become a list of float (3, H, W) tensors and each target's boxes are scaled to
# the pixels of its image, so that `model(batch["images"], batch["targets"])` trains a
# torchvision detection model (Faster R-CNN, RetinaNet, SSD, ...) as its documentation says.

# %%
loader = detection_aug.make_loader(batch_size=4, device="cpu", target_format="torchvision")
batch = next(iter(loader))[0]
image, target = batch["images"][0], batch["targets"][0]
print(f"{len(batch['images'])} images like {tuple(image.shape)} {image.dtype}, values in 0-1")
print({name: (tuple(value.shape), value.dtype) for name, value in target.items()})
print("first boxes in pixels:", target["boxes"][:2].round().tolist())

# %% [markdown]
# ## 6. The same graph in the panel
#
# In the panel, the switches above the tiles turn each kind of annotation on and off, a click on
# a tile opens its large view with the annotations drawn at full resolution, and the operator
# picker wires companions as above. The graph is the one built here.

# %%
panel = Explorer(graph, autosave=None)  # writes no autosave under .augexplorer/
display(panel)

# %% [markdown]
# The temporary folder of section 5 holds the exported module, already loaded above: copy it
# next to your training script if you want to keep it, then remove the folder:

# %%
scratch.cleanup()
