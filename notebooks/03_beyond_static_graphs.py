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
# # Beyond static graphs
#
# **Objective:** draw a different affine warp for every image, fill what a warp uncovers, crop
# relative to each image, apply a node with a probability and compute arguments with arithmetic
# inside the graph, in DALI's own operators; run one operator eagerly, outside any pipeline.
# **Time:** about 50 minutes, with three exercises (the notebook runs in under a minute on a
# CPU).
#
# In 2019 a practitioner who moved a fast.ai-style augmentation pipeline to DALI wrote an article
# about it: very fast, and rather stiff. Four gaps stood out:
#
# 1. no affine warp that differs per image: `warp_affine` took one fixed matrix, so the
#    workaround was a stack of several warps with fixed matrices, each applied to a small
#    fraction of the images;
# 2. no reflection padding: rotated images got flat-coloured corners;
# 3. no crop whose size follows each image's size;
# 4. a pipeline defined once in a static graph, so every tweak meant rebuilding and re-running
#    everything to see its effect, and no custom arithmetic inside it.
#
# Today's DALI covers the first three with ordinary operators. For the fourth, the explorer
# re-runs only the node you edit (and what reads it), DALI 2.4 can run an operator eagerly, and
# a graph's nodes take arithmetic. This notebook does each in turn on the bundled sample
# pictures.

# %%
import math

import numpy as np
import nvidia.dali.experimental.dynamic as ndd
from IPython.display import display

from augexplorer import GraphSpec, Node, Random, Ref, Session, Source, chain, preset
from augexplorer.exercises import (
    check_clean_crop_side,
    check_inflated_box,
    check_no_black_corners,
    rotated_box,
)
from augexplorer.export import node_source
from augexplorer.expressions.nodes import constant, expression
from augexplorer.render import render_node

# %% [markdown]
# ## 1. A random affine warp for every image
#
# The recipe has two halves. DALI's `transforms.*` operators build affine matrices (rotation,
# scale, shear, translation), and each one can take the matrix of the previous one as its input,
# so they compose. Their arguments are per-sample, which means they can be drawn at random for
# every image. The composed matrix then goes to `warp_affine` as its `matrix` argument.
#
# The `random_affine` preset is that recipe with a rotation and a scale:


# %%
def readable(value: object) -> str:
    """A distribution as `uniform(low=.., high=..)`, a link to another node by its name."""
    if isinstance(value, Random):
        return value.describe() + (f" x{value.shape}" if value.shape else "")
    if isinstance(value, Ref):
        return f"<output of {value}>"
    return repr(value)


spec = preset("random_affine")
for node in spec.operators():
    args = ", ".join(f"{name}={readable(value)}" for name, value in node.args.items())
    print(f"{node.id:9} {node.op:20} {args}")

# %% [markdown]
# We add a random shear between the scale and the warp, and point the warp's `matrix` at it.
# Every argument drawn at random shows up in the captions, one set of values per image (cut
# short with `...` where they do not fit).

# %%
centre = [128.0, 128.0]  # the preset resizes to 256 x 256 first
most = 12  # degrees of shear, either way
sheared = spec.insert_after(  # a new graph: `spec` stays the preset
    "scale",
    Node(
        "shear",
        "transforms.shear",
        args={"angles": Random.uniform(-most, most, shape=2), "center": centre},
    ),
).set_arg("warp", "matrix", Ref("shear"))

session = Session(sheared, batch_size=6)
result = session.run()
render_node(result, cell=176, columns=3)

# %% [markdown]
# The matrices themselves are node outputs like any other. Drawn as a grid they are six
# different 2 x 3 matrices, one per image, where the 2019 workaround had a handful of fixed ones:

# %%
render_node(result, "shear", cell=176, columns=3, captions=False)

# %% [markdown]
# The captions of the first grid are cut short; here are the shear angles each image drew (two
# per image, in degrees, each between -12 and 12):

# %%
shears = result.draws("shear")["shear"]["angles"]
assert all(-most <= angle <= most for pair in shears for angle in pair)
for index, pair in enumerate(shears):
    print(f"image {index}: shear angles {[round(float(angle), 1) for angle in pair]}")

# %% [markdown]
# ## 2. The graph is not static any more
#
# Widening the rotation range is one edit. The engine keeps every node's output from the last run,
# so only the rotation's random draw and the nodes downstream of it run again; the reader, the
# decoder and the resize come from the cache.

# %%
result = session.set_arg("rotation", "angle", Random.uniform(-40, 40))
print("ran again:", result.ran())
render_node(result, cell=176, columns=3)

# %% [markdown]
# ### DALI's own way out: eager mode
#
# DALI 2.4 can also run an operator on its own, with no pipeline around it:
# `nvidia.dali.experimental.dynamic` (experimental in 2.4) takes tensors and returns tensors at
# once, so plain Python can sit between two operators. Below, `warp_affine` runs eagerly on the
# first resized picture, with the matrix the graph drew for that picture and the warp node's
# other arguments.

# %%
warp_args = {name: value for name, value in session.spec.node("warp").args.items()}
del warp_args["matrix"]  # a link to the `shear` node in the graph; here we pass its value
image, matrix = result.arrays("resize")[0], result.arrays("shear")[0]
eager = np.asarray(ndd.warp_affine(ndd.as_tensor(image), matrix=matrix, **warp_args))
print("arguments:", warp_args, "matrix:", matrix.astype(float).round(2).tolist())
print("the graph's pixels, bit for bit:", np.array_equal(eager, result.arrays("warp")[0]))
assert np.array_equal(eager, result.arrays("warp")[0])

# %% [markdown]
# Same operator, same pixels. The difference is where the matrix can come from: in eager mode
# any Python computes it, which is what the 2019 author was missing. A training loader still
# runs a pipeline (`@pipeline_def`, what the exporter writes), where the matrix has to come from
# nodes, as in section 1 and section 6.

# %% [markdown]
# ## 3. Reflection padding
#
# Rotating or shrinking an image uncovers areas that have no source pixels. `warp_affine` paints
# them with its `fill_value` where one is set (the `random_affine` preset sets 0, black); with
# `fill_value` unset it repeats the edge pixels instead. The cell below runs the warp of section
# 1 both ways and looks at the top-left corner pixel of each image: black with `fill_value=0`
# where the warp uncovered it, an edge colour without, and the same where the warp zoomed in far
# enough to cover the corner.

# %%
filled = session.run()
edges = Session(session.spec.unset_arg("warp", "fill_value"), batch_size=6).run()
filled_corners = [image[0, 0].tolist() for image in filled.arrays("warp")]
edge_corners = [image[0, 0].tolist() for image in edges.arrays("warp")]
print("fill_value=0:   ", filled_corners)
print("fill_value unset:", edge_corners)
# where the warp covers the corner (a zoom in) both agree; where it uncovers it, 0 against an edge
assert all(f in ([0, 0, 0], e) for f, e in zip(filled_corners, edge_corners, strict=True))
assert any(f == [0, 0, 0] != e for f, e in zip(filled_corners, edge_corners, strict=True))
render_node(edges, cell=176, columns=3)

# %% [markdown]
# Neither is a picture: one colour, or streaks of the edge pixels.
# `experimental.warp_perspective` has a `border_mode` argument: `constant` (one colour),
# `replicate` (repeat the edge pixels), `reflect` and `reflect_101` (mirror the image at its
# edges) and `wrap` (tile it). It works on the CPU as well as on the GPU.
#
# To compare the modes we use one fixed warp: a 30 degree turn and a zoom out to 70% around the
# centre of a 256 x 256 image, written as a 3 x 3 matrix (row by row).


# %%
def turn_and_zoom(degrees: float, zoom: float, size: float = 256.0) -> list[float]:
    """A 3x3 matrix (source to destination) turning by `degrees` and scaling by `zoom` about
    the image centre."""
    c, s, mid = math.cos(math.radians(degrees)), math.sin(math.radians(degrees)), size / 2
    a, b = zoom * c, zoom * s
    return [a, -b, mid - a * mid + b * mid, b, a, mid - b * mid - a * mid, 0.0, 0.0, 1.0]


borders = chain(
    Source("source", seed=3),
    ("decode", "decoders.image", {"output_type": "RGB"}),
    ("resize", "resize", {"resize_x": 256.0, "resize_y": 256.0}),
    (
        "warp",
        "experimental.warp_perspective",
        {"matrix": turn_and_zoom(30, 0.7), "inverse_map": False, "border_mode": "constant"},
    ),
    batch_size=3,
)
border_session = Session(borders)
for mode in ("constant", "reflect", "wrap"):
    print(mode)
    display(render_node(border_session.set_arg("warp", "border_mode", mode), cell=150))

# %% [markdown]
# ### Reflection padding with a random warp
#
# `warp_perspective` takes one matrix per image too, but it wants a 3 x 3 matrix and the
# `transforms.*` operators make 2 x 3 ones. The classic way around that is to pad first: mirror
# the image outwards onto a larger canvas, apply the random affine warp to the canvas, then cut
# the centre back out. As long as the padding is wider than anything the warp can pull into
# view, every uncovered corner is filled with reflected picture.
#
# The padding step is a warp with a fixed matrix that only shifts the image by 128 pixels, on a
# 512 x 512 canvas, with `border_mode="reflect"`.

# %%
pad = 128.0
canvas = 256.0 + 2 * pad
# destination to source: canvas pixel (x, y) reads image pixel (x - pad, y - pad)
shift_by_pad = [1.0, 0.0, -pad, 0.0, 1.0, -pad, 0.0, 0.0, 1.0]
padded = chain(
    Source("source", seed=3),
    ("decode", "decoders.image", {"output_type": "RGB"}),
    ("resize", "resize", {"resize_x": 256.0, "resize_y": 256.0}),
    (
        "mirror_pad",
        "experimental.warp_perspective",
        {"matrix": shift_by_pad, "size": [canvas, canvas], "border_mode": "reflect"},
    ),
    batch_size=6,
)
render_node(Session(padded).run(), "mirror_pad", cell=150, columns=3, captions=False)

# %% [markdown]
# That is the padded canvas. Next, a random matrix per image, as in section 1 but about the
# canvas's centre. The `transforms.*` nodes read no image, only the previous matrix:

# %%
middle = [canvas / 2, canvas / 2]
random_matrix = (
    Node(
        "rotation", "transforms.rotation", args={"angle": Random.uniform(-40, 40), "center": middle}
    ),
    Node(
        "scale",
        "transforms.scale",
        (Ref("rotation"),),
        {"scale": Random.uniform(0.8, 1.2, shape=2), "center": middle},
    ),
)

# %% [markdown]
# Last, the warp of the canvas with that matrix, and a crop that cuts the middle 256 x 256 back
# out. The three parts make one graph:

# %%
warp = Node(
    "warp", "warp_affine", (Ref("mirror_pad"),), {"matrix": Ref("scale"), "inverse_map": False}
)
crop = Node("crop", "crop", (Ref("warp"),), {"crop": [256.0, 256.0]})
reflected = GraphSpec(
    (*padded.nodes, *random_matrix, warp, crop),
    {"images": Ref("crop"), "labels": Ref("source", 1)},
    batch_size=6,
    name="random_affine_reflect",
)
reflect_session = Session(reflected)
result = reflect_session.run()
print(" -> ".join(reflected.ids()))

# %% [markdown]
# After the random warp and the centre crop, no corner is left empty:

# %%
render_node(result, cell=176, columns=3)

# %% [markdown]
# ## Exercise: no black corners, same size
#
# `rotate` has two arguments that decide the corners. Without `keep_size` its output grows to
# hold the whole turned image, so the batch's sizes change; with `fill_value=0` what the turn
# uncovers is black. The graph below has both problems. Change it (with `set_arg`,
# `unset_arg`, or another node) so that every image stays 256 x 256 and no corner is black,
# with the angles still random, and put your graph in `answer`.

# %%
turning = chain(
    Source("source", seed=3),
    ("decode", "decoders.image", {"output_type": "RGB"}),
    ("resize", "resize", {"resize_x": 256.0, "resize_y": 256.0}),
    ("rotate", "rotate", {"angle": Random.uniform(20, 30), "fill_value": 0.0}),
    batch_size=3,
)
print("sizes now:", [image.shape[:2] for image in Session(turning).run().arrays("rotate")])

answer = None  # your graph, e.g. turning.set_arg(...)...

# %%
images = None if answer is None else Session(answer).run().arrays(answer.outputs["images"])
print(check_no_black_corners(images, (256, 256)))

# %% [markdown]
# ## Exercise: a rotated box is a bigger box
#
# A detection box is axis-aligned. When its image turns, the object turns with it, and the box
# that holds it is the axis-aligned box around its four turned corners: larger than the object.
# `rotated_box(box, degrees, centre)` computes it. How many times larger is the area of the box
# around a 100 x 100 square turned by 45 degrees about its centre?

# %%
print("turned by 10 degrees:", [round(v, 1) for v in rotated_box([0, 0, 100, 100], 10, (50, 50))])

area_ratio = None  # your answer: a number

# %%
print(check_inflated_box(area_ratio))

# %% [markdown]
# ## 4. A crop sized relative to each image
#
# `slice` takes its window either in pixels or as fractions of each image: `rel_start` is where
# the window begins and `rel_shape` how big it is, both relative to that image's own width and
# height (in that order). Here each image keeps 70% of its width and height, starting at a
# random point in the first 30%. The pictures have different sizes, and so do the crops:

# %%
relative = chain(
    Source("source", seed=5),
    ("decode", "decoders.image", {"output_type": "RGB"}),
    ("crop", "slice", {"rel_start": Random.uniform(0.0, 0.3, shape=2), "rel_shape": [0.7, 0.7]}),
    batch_size=6,
)
result = Session(relative).run()
for before, after in zip(result.arrays("decode"), result.arrays("crop"), strict=True):
    print(f"{before.shape[1]:4} x {before.shape[0]:4}  ->  {after.shape[1]:4} x {after.shape[0]:4}")
render_node(result, cell=150, columns=3)

# %% [markdown]
# For the validation-style centre crop the 2019 article wanted, fix the start instead:
# `rel_start=[0.15, 0.15], rel_shape=[0.7, 0.7]`, followed by a `resize`.
#
# ## 5. Apply a node with a probability
#
# Often an augmentation should touch only some of the images. Any node can get a probability:
# each image flips a coin, and the node runs only on images whose coin came up 1; the others
# pass through unchanged. Under the hood this is DALI's conditional execution (an `if` on a
# per-sample coin flip). The captions show each image's coin as `apply`.

# %%
result = reflect_session.set_probability("warp", 0.5)
first_coins = result.draws("warp")["warp"]["apply"]
print(f"warped {sum(first_coins)} of {len(first_coins)} images:", [int(c) for c in first_coins])
render_node(result, cell=176, columns=3)

# %% [markdown]
# A probability of 0.5 is a coin per image, not half of every batch: with 6 images any count from
# 0 to 6 can come up, and a share counted over a few batches is not exactly a half either:

# %%
coins = list(first_coins)  # a copy: running this cell again still counts 5 batches
for _ in range(4):
    coins += reflect_session.next_batch().draws("warp")["warp"]["apply"]
print(f"warped {sum(coins)} of {len(coins)} images over 5 batches ({sum(coins) / len(coins):.0%})")
assert set(coins) <= {0, 1}

# %% [markdown]
# ## 6. Arithmetic inside the graph
#
# The 2019 article's last complaint: no custom arithmetic inside the graph, met while trying to
# give `WarpAffine` random arguments. A DALI graph's nodes now take Python's arithmetic
# operators and the functions of `nvidia.dali.math`, computed per image inside the pipeline. In
# augexplorer an `expression` node holds such a formula as text, and the exporter writes it
# back as DALI code.
#
# The `random_affine` preset draws its x and y scales separately (`shape=2`), which stretches
# the pictures. To zoom both axes alike, draw one number and multiply it by a constant `[1, 1]`.
# Here is the DALI code the exporter writes for the new nodes and the scale that reads them:

# %%
one_zoom = (
    preset("random_affine")
    .insert_after(None, Node("zoom", "random.uniform", args={"range": [0.8, 1.2]}, seed=4))
    .insert_after(None, constant("both_axes", [1.0, 1.0]))
    .insert_after(None, expression("zoom_xy", "zoom * both_axes"))
    .set_arg("scale", "scale", Ref("zoom_xy"))
)
for node_id in ("zoom", "both_axes", "zoom_xy", "scale"):
    print(node_source(one_zoom, node_id))

# %% [markdown]
# (`rank_seed` gives each GPU of a `torchrun` job its own draws; notebook 02.) Every image now
# gets one zoom, the same on both axes:

# %%
result = Session(one_zoom, batch_size=6).run()
zooms = [pair.tolist() for pair in result.arrays("zoom_xy")]
assert all(x == y for x, y in zooms)
print("zoom per image:", [round(x, 3) for x, _ in zooms])
render_node(result, cell=176, columns=3)

# %% [markdown]
# ## Exercise: the largest crop with no corners
#
# Without `keep_size`, `rotate` grows its canvas to hold the whole turned picture and fills the
# corners around it. The largest centred square that holds only picture has a side that depends
# on the angle: for a 256 x 256 image turned by `a` degrees it is 256 / (|cos a| + |sin a|).
#
# Write that side as an expression of a per-image angle named `angle`, in degrees. `math.cos`
# and `math.sin` take radians, and `math.abs` is the absolute value. The check runs your text
# inside a DALI graph that turns the pictures by angles from -40 to 40 degrees and crops each
# with your side.

# %%
side_text = None  # your expression, a string: "256 / (...)"

# %%
print(check_clean_crop_side(side_text))

# %% [markdown]
# Each of these graphs can be opened in the explorer panel for live tuning, and exported as a
# plain Python module for training (notebook 04).
