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
# # DALI, first steps, in the explorer
#
# DALI's own introduction walks through a handful of ideas in order: read files and decode them,
# shuffle them, rotate them by a fixed angle, then by a random angle per image, move the work to
# the GPU, let the GPU help with decoding, and finally measure how much that buys. This notebook
# takes the same route, but every step is a small edit to a graph that the explorer runs for us,
# so after each edit we look at the batch instead of reading tensors.
#
# Everything here runs on a machine without a GPU. The GPU sections check for one first and say
# so when there is none.

# %%
import time

from IPython.display import display

from augexplorer import GraphInvalid, GraphSpec, Node, Random, Session, Source, chain, validate
from augexplorer.builder import build_pipeline
from augexplorer.data import open_source
from augexplorer.devices import default_device_id, has_gpu
from augexplorer.render import render_node
from augexplorer.spec import dumps

print("GPU visible to DALI:", has_gpu())

# %% [markdown]
# ## 1. Read and decode
#
# A graph starts with a data source. `Source("source")` reads the pictures that ship with
# augexplorer: one sub-folder per class, and the folder name is the label. A file reader hands
# out encoded bytes, so the first operator is a decoder, `decoders.image`, which turns them into
# `HWC` arrays of RGB pixels.
#
# We turn shuffling off for now, to see what the reader does on its own.

# %%
reading = chain(
    Source("source", shuffle=False),
    ("decode", "decoders.image", {"output_type": "RGB"}),
    batch_size=8,
    name="read_and_decode",
)
session = Session(reading)
result = session.run()
print(result.files())

# %% [markdown]
# `render_node` draws one node's output as a grid, captioned with each sample's label. The
# images keep their own sizes: a DALI batch does not have to be a single dense tensor.

# %%
render_node(result, "decode", cell=128)

# %% [markdown]
# The batch is alphabetical: a reader without shuffling walks the folders in order, so the first
# batch holds every cat before anything else. A training step fed like this would see one class
# at a time.

# %% [markdown]
# ## 2. Shuffle
#
# Turning `shuffle` on makes the reader pick samples at random from a buffer of files it has
# already read. The `seed` makes that order repeatable: the same seed gives the same batches,
# which is what you want while you compare augmentation settings.

# %%
result = session.update(reading.with_source(Source("source", shuffle=True, seed=1234)))
print(result.files())
render_node(result, "decode", cell=128)

# %% [markdown]
# The order is mixed now. Asking for the next batch moves the reader on; the seed still fixes
# which images come next.

# %%
result = session.next_batch()
print(result.files())

# %% [markdown]
# ## 3. A fixed rotation
#
# Augmentations are operators after the decoder. `rotate` needs one argument, the `angle` in
# degrees. `fill_value=0` paints the uncovered corners black so the rotation is easy to see.
# `insert_after` puts the new node after the decoder and reconnects the graph's output to it.

# %%
rotated = session.spec.insert_after(
    "decode", Node("rotate", "rotate", args={"angle": 10.0, "fill_value": 0.0})
)
result = session.update(rotated)
render_node(result, cell=128)

# %% [markdown]
# Every image turned by exactly the same 10 degrees. As a training augmentation that adds very
# little: the network just sees a tilted copy of the data set.

# %% [markdown]
# ## 4. A random rotation for every image
#
# `angle` is a per-sample argument: DALI accepts a different value for each image, supplied by
# another operator. In the explorer you bind the argument to a distribution instead of a
# constant. Behind the scenes that becomes a `random.uniform` call feeding `rotate`, and the grid
# captions show the angle each image drew.

# %%
result = session.set_arg("rotate", "angle", Random.uniform(-10, 10))
print(result.draws("rotate"))
render_node(result, cell=128)

# %% [markdown]
# Only the random draw and the rotation ran again; the reader and the decoder came from the
# engine's cache, because nothing upstream of the edit changed:

# %%
print("ran this time:", result.ran())

# %% [markdown]
# The draws are seeded, so running again shows the same angles and an edit shows only its own
# effect. To see new angles, ask for them explicitly:

# %%
result = session.reroll()
render_node(result, cell=128)

# %% [markdown]
# ## 5. Moving operators to the GPU
#
# Each node has a `device`. Left unset, the explorer places it as DALI does a call without
# `device=`: where its data is. The decoder crosses over ("mixed": files read on the CPU, images
# decoded on the GPU) where DALI sees a GPU, and from there the nodes that read its output run on
# the GPU too. Data that starts on the CPU and never passes the decoder (boxes from a reader,
# random draws) stays on the CPU, where DALI's argument inputs must be anyway.
#
# Setting a device by hand is one edit. Here we ask for the rotation on the GPU:

# %%
print("placed automatically:", {step.id: step.device for step in result.plan.steps})
on_gpu = session.spec.set_device("rotate", "gpu")
if has_gpu():
    result = session.update(on_gpu)
    print("after the edit:", {step.id: step.device for step in result.plan.steps})
    display(render_node(result, cell=128))
else:
    try:
        validate(on_gpu)
    except GraphInvalid as problem:
        print("No GPU here, so the explorer refuses the edit before DALI sees it:")
        print(problem)

# %% [markdown]
# The images are the same either way: the GPU changes where the work happens, not what it does.

# %% [markdown]
# ## 6. Hybrid ("mixed") decoding
#
# Decoding JPEGs is often the most expensive step of a pipeline. DALI's decoder has a `mixed`
# backend: it reads the compressed bytes on the CPU and does the heavy part of decoding on the
# GPU (on recent GPUs, partly in dedicated decoding hardware). Its output lives on the GPU, so
# every operator after it runs there as well.

# %%
mixed = session.spec.set_device("decode", "mixed").set_device("rotate", None)
if has_gpu():
    result = session.update(mixed)
    print({step.id: step.device for step in result.plan.steps})
    display(render_node(result, cell=128))
else:
    print("No GPU here: mixed decoding needs one. The same edit on a GPU machine gives:")
    print("  source -> cpu, decode -> mixed, rotate -> gpu")

# %% [markdown]
# ## 7. A speed test: CPU against mixed decoding
#
# The explorer times each node on its own, which is right for finding the expensive step but
# not for measuring throughput. For that we build the whole graph as one DALI pipeline (the same
# calls the explorer makes, fused) and time a few batches after a warm-up run.


# %%
def images_per_second(spec: GraphSpec, batches: int = 10, batch_size: int = 16) -> float:
    """Decode throughput of `spec` run as one fused pipeline."""
    plan = validate(spec.with_source(Source("source", shuffle=True, seed=7)))
    data = {step.id: open_source(step.source) for step in plan.steps if step.role == "source"}
    pipe = build_pipeline(
        plan, data, batch_size=batch_size, device_id=default_device_id(), num_threads=2
    )
    pipe.build()
    pipe.run()  # warm-up: first-run allocations are not part of the steady state
    start = time.perf_counter()
    for _ in range(batches):
        pipe.run()
    return batches * batch_size / (time.perf_counter() - start)


decode_only = chain(Source("source"), ("decode", "decoders.image", {"output_type": "RGB"}))
cpu_rate = images_per_second(decode_only.set_device("decode", "cpu"))
print(f"CPU decoding:   {cpu_rate:8.0f} images/s")
if has_gpu():
    mixed_rate = images_per_second(decode_only.set_device("decode", "mixed"))
    print(f"mixed decoding: {mixed_rate:8.0f} images/s ({mixed_rate / cpu_rate:.1f}x the CPU)")
else:
    print("mixed decoding: skipped, DALI sees no GPU on this machine")

# %% [markdown]
# The bundled pictures are small, so these numbers say little about a real data set: with
# full-size photos, CPU decoding is where a loader usually runs out of breath, and that is the
# gap the mixed decoder closes. Notebook 05 looks at where the time goes, node by node, and
# compares a whole DALI loader with a CPU loader in the torchvision style.
#
# ## What we built
#
# The final graph is plain data. It can be saved as JSON, reopened in the explorer panel, or
# exported as a Python module for a training script (notebook 04).

# %%
print(dumps(session.spec))
