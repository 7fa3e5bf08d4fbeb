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
# # What training sees: statistics over many draws
#
# **Objective:** check a pipeline on hundreds of samples instead of the handful a grid shows:
# catch a normalization that looks fine in pictures, see whether random choices fall as declared,
# and measure how much of what the model sees is fill rather than picture.
# **Time:** about 25 minutes, with one exercise (the notebook runs in about half a minute on a
# CPU).
#
# A grid shows eight samples, each with one draw of every random argument. Training sees every
# image many times, each time with new draws, and some mistakes do not show in any eight of them:
# a normalization off by a factor of 255 is still drawn as a plausible picture, and a rotation's
# black corners may or may not survive the crop after it. `collect_stats` runs the graph as
# training does (one DALI pipeline, new draws each batch) and sums up what it sees, in running
# sums, so its memory stays flat however many batches it counts:
#
# 1. a normalization written in the wrong units, found and fixed;
# 2. random choices against what the graph declares;
# 3. fill where the graph passes it on, and an exercise on it;
# 4. every image of a dataset once, as an epoch reads it.

# %%
from IPython.display import display

from augexplorer import Session, preset
from augexplorer.exercises import check_widest_rotation, fill_passed_on, rotate_after_crop
from augexplorer.render import render_node
from augexplorer.stats import collect_stats, collect_stats_all

# %% [markdown]
# ## 1. A normalization that looks fine
#
# The `imagenet_train` preset crops a random window at decoding, resizes it to 224 pixels and
# normalizes with ImageNet's mean and standard deviation. torchvision writes those for pixels
# scaled to 0-1 (`mean=[0.485, 0.456, 0.406]`); DALI's `crop_mirror_normalize` gets the 0-255
# pixels of the decoder. Here is that mistake, made on purpose:

# %%
graph = preset("imagenet_train")
wrong = graph.set_arg("normalize", "mean", [0.485, 0.456, 0.406]).set_arg(
    "normalize", "std", [0.229, 0.224, 0.225]
)
display(render_node(Session(wrong).run(), cell=120))

# %% [markdown]
# The grid draws a normalized output by undoing the node's own `mean` and `std`, so with any mean
# and std the pictures look as they should. What the model gets is the normalized values, and the
# statistics count those, over 10 batches:

# %%
stats = collect_stats(wrong, batches=10)
for warning in stats.warnings:
    print(warning)

# %% [markdown]
# Each warning names the node, the argument and the fix. Applied:

# %%
fixed = wrong.set_arg("normalize", "mean", [123.675, 116.28, 103.53]).set_arg(
    "normalize", "std", [58.395, 57.12, 57.375]
)
stats = collect_stats(fixed, batches=10)
print("warnings:", [str(warning) for warning in stats.warnings])
print(next(line for line in stats.summary().splitlines() if line.startswith("  normalize [")))

# %% [markdown]
# The line gives each channel's mean and standard deviation over every pixel of every sample
# counted, then the minima and maxima; "normalized" means each mean is near 0 and each standard
# deviation near 1.
#
# ## 2. Do the random choices fall as declared?
#
# The same graph mirrors each image on a coin flip with probability 0.5. Over a few dozen samples
# the share of mirrored ones is never exactly a half; the question is whether it is as close as
# chance allows. The statistics give each rate with its 95% interval (Wilson's):

# %%
mirror = stats.rate("normalize", "mirror")
low, high = mirror.interval(0.95)
print(f"mirrored {mirror.successes} of {mirror.trials} = {mirror.rate:.3f}")
print(f"95% interval: [{low:.3f}, {high:.3f}]; holds 0.5 at 99.9%: {mirror.agrees()}")

# %% [markdown]
# A declared probability outside the wider 99.9% interval gets a warning of its own: at that
# level a warning means the draws are wrong, not that chance was unkind once in twenty runs. The
# summary lists every random
# argument's drawn mean and spread beside its declared distribution, and `stats.save_plot(...)`
# draws their histograms; the panel's **Statistics** tab shows the same figures and plots.
#
# ## 3. Fill where the graph passes it on
#
# A rotation uncovers the corners of its canvas and fills them (here with black). Whether that
# matters depends on what comes after it. This graph crops the centre of each picture and then
# rotates the crop by up to 45 degrees either way on its own canvas (`keep_size`), so every corner
# it uncovers reaches the model:

# %%
after_crop = rotate_after_crop(45)
display(render_node(Session(after_crop).run(), cell=120))
stats = collect_stats(after_crop, batches=8)
fill = stats.fill("rotate")
print(f"fill made by the rotation:       {fill.mean_share:.1%} of each sample on average")
print(f"passed on, at '{fill.reaches}' (the output): {fill.reached_mean_share:.1%}")

# %% [markdown]
# The statistics count fill twice: where the rotation makes it, and where the graph passes it on,
# at the end of the chain of nodes after the rotation that only move pixels (crops, flips,
# resizes; the summary's fill line gives both). Here the two are the same: nothing after the
# rotation cuts anything away.
#
# Move the rotation before the crop (the panel's ↑ button does the same):

# %%
before_crop = after_crop.move("rotate", -1)
print(" -> ".join(node.id for node in before_crop.nodes))
stats = collect_stats(before_crop, batches=8)
fill = stats.fill("rotate")
print(f"fill made by the rotation:       {fill.mean_share:.1%} of each sample on average")
print(f"passed on, at '{fill.reaches}' (the output): {fill.reached_mean_share:.1%}")

# %% [markdown]
# The rotation's own canvas is about as much fill as before, but the crop after it keeps the
# centre, and almost none of the corners reach the model. This is why the statistics warn about
# fill where the graph passes it on, not where it is made: a warning about the rotation's own
# canvas would tell you to narrow a rotation whose corners never reach training.

# %% [markdown]
# ### Exercise: the widest rotation within a fill budget
#
# Keep the rotation after the crop (`rotate_after_crop(degrees)` builds that graph for any
# range). Find the widest whole number of degrees for which, on average, at most 5% of each sample
# is fill where the graph passes it on. `fill_passed_on(degrees)` runs the statistics for you and
# returns that share. Try a few ranges, then put your answer in place of `None`.

# %%
print(f"±30 degrees: {fill_passed_on(30):.1%} of each sample is fill")

# %%
widest = None  # your answer: a whole number of degrees
print(check_widest_rotation(widest))

# %% [markdown]
# ## 4. Every image once
#
# `collect_stats` draws batch after batch, looping over the data as long as you ask.
# `collect_stats_all` reads every image of the source exactly once, as one epoch of the exported
# loader reads it (its last batch partial), or, with `sample=N`, N images drawn evenly over the
# classes: a quick first look at a large folder.

# %%
sample = collect_stats_all(preset("basic"), sample=10)
print(sample.summary().splitlines()[0])
print(sample.summary().splitlines()[-1])
everything = collect_stats_all(preset("basic"))
print(everything.summary().splitlines()[0])
print(everything.summary().splitlines()[-1])

# %% [markdown]
# The last line counts the labels read: two of each class in the sample, every image in the whole
# run. On a real dataset the command line does the same, with progress and an ETA:
#
# ```bash
# augexplorer stats graph.json --data /data/train --all --json stats.json
# torchrun --nproc-per-node 8 -m augexplorer stats graph.json --data /data/train --all
# ```
#
# Under `torchrun` each process reads its shard, as the exported loader does, and the running sums
# are combined with `torch.distributed` before rank 0 writes the report: the same figures as one
# process over the whole folder (`docs/statistics.md` says which are exact and which are float sums
# added in another order).
#
# ## What to take away
#
# - Look at the numbers as well as the pictures: a grid shows a few draws, the statistics all of
#   them, and a warning names the node, the argument and the fix.
# - A rate is judged by its interval, not by being exactly the declared probability.
# - Fill counts where the graph passes it on: put the crop after the rotation, or keep the
#   rotation within what your budget allows.
