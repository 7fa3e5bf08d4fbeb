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
# **Objective:** read, shuffle and rotate images with DALI, and read the DALI code each step
# stands for. **Time:** about 30 minutes (the notebook itself runs in well under a minute on a
# CPU).
#
# DALI's own introduction walks through a handful of ideas in order: read files and decode them,
# shuffle them, rotate them by a fixed angle, then by a random angle per image, move the work to
# the GPU, let the GPU help with decoding, and finally measure how much that buys. This notebook
# takes the same route, but every step is a small edit to a graph that the explorer runs for us,
# so after each edit we look at the batch instead of reading tensors. Beside each edit we print
# the DALI code it stands for, exactly as augexplorer's exporter writes it into a training module
# (`node_source`), so you leave knowing DALI's own calls too.
#
# Everything here runs on a machine without a GPU. The GPU sections check for one first and say
# so when there is none.

# %%
import time
import warnings

from nvidia.dali import fn
from nvidia.dali.data_node import DataNode

from augexplorer import GraphInvalid, GraphSpec, Node, Random, Session, Source, chain, validate
from augexplorer.builder import build_pipeline
from augexplorer.catalog import load_catalog
from augexplorer.data import open_source
from augexplorer.devices import default_device_id, has_gpu
from augexplorer.exercises import check_seed_per_rank
from augexplorer.export import node_source, pipeline_source
from augexplorer.render import render_node
from augexplorer.spec import dumps
from augexplorer.spec.seeds import rank_seed

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
print("labels:", [label for (label,) in result.labels()])

# %% [markdown]
# In DALI this is a reader and a decoder. The exporter writes the reader with `files` and
# `labels` lists it builds from the folder, and the decoder with a `device` we come back to in
# section 5:

# %%
print(node_source(session.spec, "source"))
print(node_source(session.spec, "decode"))

# %% [markdown]
# `render_node` draws one node's output as a grid, captioned with each sample's label. The
# images keep their own sizes: a DALI batch does not have to be a single dense tensor.

# %%
render_node(result, "decode", cell=128)

# %% [markdown]
# The batch is alphabetical: a reader without shuffling walks the folders in order, so each
# class's images come as one run (the labels above never go back down), and the first batch
# holds only the first few classes. A training step fed like this sees long runs of one class.

# %%
first_labels = [label for (label,) in result.labels()]
assert first_labels == sorted(first_labels), "an unshuffled reader keeps the folder order"
print("classes in the first batch:", sorted(set(first_labels)))

# %% [markdown]
# ## 2. Shuffle
#
# Turning `shuffle` on makes the reader pick samples at random from a buffer of files it has
# already read. The `seed` makes that order repeatable: the same seed gives the same batches,
# which is what you want while you compare augmentation settings.

# %%
shuffled = reading.with_source(Source("source", shuffle=True, seed=1234))
result = session.update(shuffled)
print(result.files())
render_node(result, "decode", cell=128)

# %% [markdown]
# The same seed, in a session of its own, gives the same batch:

# %%
again = Session(shuffled).run()
assert again.files() == result.files()
print("same files with seed 1234:", again.files() == result.files())
print(node_source(session.spec, "source"))

# %% [markdown]
# In DALI's code the seed is the reader's `seed`. The exporter writes it as
# `rank_seed(1234, rank)`: under `torchrun` every GPU runs its own copy of the pipeline, and a
# copy on rank 0 draws with the seed you chose. Which seed the other ranks get is the first
# exercise, at the end of this notebook.
#
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
rotated = shuffled.insert_after(
    "decode", Node("rotate", "rotate", args={"angle": 10.0, "fill_value": 0.0})
)
result = session.update(rotated)
print(node_source(session.spec, "rotate"))
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
low, high = -10, 10
session.update(rotated)  # the fixed angle first, so that running this cell again is an edit too
result = session.set_arg("rotate", "angle", Random.uniform(low, high))
angles = result.draws("rotate")["rotate"]["angle"]
assert all(low <= angle <= high for angle in angles)
print("angles drawn:", [round(angle, 1) for angle in angles])
render_node(result, cell=128)

# %% [markdown]
# In DALI, a per-sample argument is fed by another operator: `fn.random.uniform` makes one value
# per image, and its output is passed as `angle=`. This is what the edit stands for:

# %%
print(node_source(session.spec, "rotate"))

# %% [markdown]
# Only the random draw and the rotation ran again; the reader and the decoder came from the
# engine's cache, because nothing upstream of the edit changed:

# %%
print("ran this time:", result.ran())
assert set(result.ran()) == {"rotate_angle", "rotate"}

# %% [markdown]
# The draws are seeded, so running again shows the same angles and an edit shows only its own
# effect. To see new angles, ask for them explicitly:

# %%
result = session.reroll()
assert result.draws("rotate")["rotate"]["angle"] != angles
render_node(result, cell=128)

# %% [markdown]
# ## 5. Moving operators to the GPU
#
# In DALI every operator call takes a `device`: `fn.rotate(images, device="gpu")`. Left out, an
# operator runs where its input is. A file reader's output is on the CPU, so a decoder without
# `device=` decodes on the CPU: `fn.decoders.image` has two backends, `cpu` and `mixed` (none
# called `gpu`). A DALI node moves to the GPU with `.gpu()` (`images.gpu()`).
#
# augexplorer adds one rule of its own: a node whose device is left unset ("auto") is placed
# by the explorer, and where DALI sees a GPU the explorer decodes on `mixed` and the nodes that
# read the decoder's output follow it to the GPU. Its graphs do not write `.gpu()`: their data
# crosses to the GPU at the decoder. The exported module writes one pipeline for both cases, with
# a `device` parameter: `decoder_device` is `"mixed"` when `device="gpu"`.

# %%
decoder = load_catalog(gpu=True).get("decoders.image")
assert decoder is not None and decoder.backends == ("cpu", "mixed")
assert callable(DataNode.gpu) and callable(fn.rotate)
print("decoders.image backends:", decoder.backends)
print(pipeline_source(session.spec))

# %% [markdown]
# Where does each node run? Here, on this machine, and on a machine with a GPU, where the same
# graph is placed by the same rule (the explorer's catalog for a GPU machine answers that
# question without a GPU):


# %%
def placement(spec: GraphSpec, gpu: bool) -> dict[str, str]:
    """Each step's device as the explorer places `spec` on a machine with or without a GPU."""
    return {step.id: step.device for step in validate(spec, load_catalog(gpu=gpu)).steps}


print("this machine:  ", {step.id: step.device for step in result.plan.steps})
print("with a GPU:    ", placement(session.spec, gpu=True))
assert placement(session.spec, gpu=True)["decode"] == "mixed"
assert placement(session.spec, gpu=False)["decode"] == "cpu"

# %% [markdown]
# Random draws stay on the CPU in both: DALI reads argument inputs such as `angle=` from the
# CPU. Setting a device by hand is one edit. Here we ask for the rotation on the GPU. On a GPU
# machine it runs there; on a machine without one the explorer runs it on the CPU and says so
# (`gpu_nodes_on_cpu`), while the graph and its export keep `gpu`:

# %%
on_gpu = session.spec.set_device("rotate", "gpu")
print("with a GPU:    ", placement(on_gpu, gpu=True))
with warnings.catch_warnings(record=True) as said:
    warnings.simplefilter("always")
    result = session.update(on_gpu)
print("this machine:  ", {step.id: step.device for step in result.plan.steps})
for warning in said:
    print("the explorer says:", warning.message)
assert has_gpu() or session.gpu_nodes_on_cpu == {"rotate": "gpu"}
render_node(result, cell=128)

# %% [markdown]
# A rotation on the GPU after a decoder pinned to the CPU would need the `.gpu()` copy, which the
# explorer's graphs do not make: it says which edit fixes the graph instead.

# %%
pinned = on_gpu.set_device("decode", "cpu")
try:
    validate(pinned, load_catalog(gpu=True))
except GraphInvalid as problem:
    print(problem)
    assert "set 'decode' to mixed" in str(problem)

# %% [markdown]
# ## 6. Hybrid ("mixed") decoding
#
# Decoding JPEGs is often an expensive step of a pipeline. The decoder's `mixed` backend reads
# the compressed bytes on the CPU and does the heavy part of decoding on the GPU (on recent GPUs,
# partly in dedicated decoding hardware). Its output lives on the GPU, so the operators that read
# it run there as well. Setting `mixed` by hand is the edit below. The code and the placement on
# a GPU machine are the same on any machine; here, without a GPU, the explorer decodes on the
# CPU instead and says so:

# %%
mixed = session.spec.set_device("decode", "mixed").set_device("rotate", None)
print(node_source(mixed, "decode"))
print("with a GPU:    ", placement(mixed, gpu=True))
assert placement(mixed, gpu=True)["rotate"] == "gpu"
with warnings.catch_warnings(record=True) as said:
    warnings.simplefilter("always")
    result = session.update(mixed)
print("this machine:  ", {step.id: step.device for step in result.plan.steps})
for warning in said:
    print("the explorer says:", warning.message)
assert has_gpu() or session.gpu_nodes_on_cpu == {"decode": "mixed"}
render_node(result, cell=128)

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
# The bundled pictures are small, so these numbers say little about a real data set: measure
# your own pictures before deciding. Notebook 05 looks at where the time goes, node by node,
# and compares a whole DALI loader with a CPU loader in the torchvision style.
#
# ## What we built
#
# The final graph is plain data. It can be saved as JSON, reopened in the explorer panel, or
# exported as a Python module for a training script (notebook 04).

# %%
print(dumps(session.spec))

# %% [markdown]
# ## Exercise: one seed per GPU
#
# Under `torchrun` each GPU runs its own copy of the pipeline. A hand-written pipeline with
# `fn.random.uniform(..., seed=42)` gives every copy the same seed, so every GPU draws the same
# angles for its k-th image. Write `seed_for(rank)`: the seed rank `rank` should draw with when
# the graph's seed is 42. Rank 0 keeps 42 (what you explored); every rank needs a seed of its own.
#
# Look at how the exporter wrote the seeds above (`rank_seed`), and preview a rank in the
# explorer with `Session(spec, rank=1)` or `session.set_rank(1)` to see its angles.

# %%
seed_for = None  # your answer: a function of the rank, e.g. def seed_for(rank): ...

# %%
print(check_seed_per_rank(seed_for))

# %% [markdown]
# To compare with yours, the angles rank 1 draws in the graph above, next to rank 0's:

# %%
print("rank 0:", [round(a, 1) for a in session.set_rank(0).draws("rotate")["rotate"]["angle"]])
print("rank 1:", [round(a, 1) for a in session.set_rank(1).draws("rotate")["rotate"]["angle"]])
print("seeds of ranks 0-3 for seed 42:", [rank_seed(42, rank) for rank in range(4)])
