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
# # Augmentation that follows the training run
#
# **Objective:** make augmentation weak early in a run and strong late (a curriculum), see what
# any epoch will draw before training, check it with statistics, and train through an exported
# loader that follows the same schedule, or a probability a training loop adapts as it goes.
# **Time:** about 30 minutes, with one exercise (the notebook runs in about half a minute on a
# CPU).
#
# A DALI pipeline's arguments are fixed when it is built, so augmentation that changes over the
# run is usually written by hand: a rebuilt pipeline per epoch, or values fed from Python. In
# augexplorer any argument's constant, any bound of a random draw and any node's apply
# probability can follow a **schedule** over the run's epochs, and the explorer shows epoch 40
# as well as epoch 0. This notebook takes a short run of five epochs:
#
# 1. schedule a rotation's range and a colour jitter's probability;
# 2. preview the first, the middle and the last epoch, and plot the schedules;
# 3. count what each epoch draws;
# 4. export the graph and drive its loader with `set_epoch`;
# 5. let a training loop set the probability itself, as StyleGAN2-ADA does.

# %%
import importlib.util
import tempfile
from pathlib import Path

import numpy as np
import torch
from IPython.display import display
from torch import nn

from augexplorer import (
    Explorer,
    GraphInvalid,
    Probability,
    Random,
    RunResult,
    Session,
    Source,
    chain,
)
from augexplorer.exercises import check_fade_after_hold
from augexplorer.export import export
from augexplorer.render import render_node
from augexplorer.schedules import values_over_run
from augexplorer.spec import Schedule
from augexplorer.stats import stats_over_run

# %% [markdown]
# ## 1. A graph whose values follow the run
#
# The graph reads the pictures bundled with augexplorer, resizes them small (to keep this quick
# on a CPU), rotates each by a random angle (black corners, so the angle shows at a glance),
# desaturates and shifts the hue of some of them (`color_twist`, applied with a probability) and
# normalizes to floats for a model.

# %%
EPOCHS = 5
SIDE = 128

graph = chain(
    Source("source", seed=3),
    ("decode", "decoders.image", {"output_type": "RGB"}),
    ("resize", "resize", {"size": [float(SIDE), float(SIDE)]}),
    ("rotate", "rotate", {"angle": Random.uniform(-5, 5), "keep_size": True, "fill_value": 0.0}),
    ("jitter", "color_twist", {"saturation": 0.2, "hue": 40.0}),
    (
        "normalize",
        "crop_mirror_normalize",
        {"dtype": "FLOAT", "output_layout": "CHW", "mean": [0.0], "std": [255.0]},
    ),
    batch_size=8,
    name="curriculum",
).set_probability("jitter", Probability(0.1))

# %% [markdown]
# Now the curriculum. `with_epochs` declares the run's length; `with_schedule` names the number
# a schedule drives: `rotate.angle.low` and `rotate.angle.high` are the bounds of the angle's
# uniform draw, `jitter.apply` is the jitter node's apply probability. The angle's range grows
# from +-5 to +-30 degrees and the jitter's probability from 0.1 to 0.8, in straight lines over
# the run (`Schedule.cosine`, `warmup`, `steps` and `table` are the other curves).

# %%
FIRST_ANGLE, LAST_ANGLE = 5, 30  # the rotation's range at the first and last epoch, +-
graph = (
    graph.with_epochs(EPOCHS)
    .with_schedule("rotate.angle.low", Schedule.linear(-FIRST_ANGLE, -LAST_ANGLE))
    .with_schedule("rotate.angle.high", Schedule.linear(FIRST_ANGLE, LAST_ANGLE))
    .with_schedule("jitter.apply", Schedule.linear(0.1, 0.8))
)
for target, schedule in graph.schedules.items():
    print(f"{target!s:18} {schedule.describe()}")

# %% [markdown]
# The graph stores schedules beside the values they override, in its JSON as in Python.
# Validation checks every value a schedule reaches over the whole run, not only the first: a
# probability that ends above 1 is refused, naming the epoch where it leaves its range.

# %%
try:
    Session(graph.with_schedule("jitter.apply", Schedule.linear(0.1, 1.4)), device_id=None)
except GraphInvalid as error:
    print(error)

# %% [markdown]
# ## 2. Preview any epoch
#
# `Session.set_epoch(e)` runs the graph as epoch `e` draws it. Every seed stays the same, so the
# images change only as the schedules say: the same pictures, turned the same way but further,
# and more of them jittered. Each caption shows the picture's label, the angle drawn and whether
# the jitter ran.

# %%
session = Session(graph, device_id=None)
MIDDLE, LAST = EPOCHS // 2, EPOCHS - 1
previews = {}
for epoch in (0, MIDDLE, LAST):
    previews[epoch] = session.set_epoch(epoch)
    print(f"epoch {epoch}:")
    display(render_node(previews[epoch], cell=160, columns=4))

# %% [markdown]
# The values drawn say the same in numbers. Each picture's angle at the last epoch is its angle at
# epoch 0 times 30 / 5, the ratio of the ranges: its uniform draw is the same number, scaled to
# the epoch's range. And here every picture jittered at epoch 0 is jittered at the later epochs
# too: more pictures join as the probability rises.

# %%
for epoch, result in previews.items():
    drawn = result.draws()
    angles = ", ".join(f"{angle:6.1f}" for angle in drawn["rotate"]["angle"])
    jittered = [index for index, ran in enumerate(drawn["jitter"]["apply"]) if ran]
    print(f"epoch {epoch}: angles {angles}; jittered pictures {jittered}")

first_angles = np.array(previews[0].draws()["rotate"]["angle"])
last_angles = np.array(previews[LAST].draws()["rotate"]["angle"])
assert np.allclose(last_angles, first_angles * LAST_ANGLE / FIRST_ANGLE, rtol=1e-4)
first_jittered = np.array(previews[0].draws()["jitter"]["apply"], dtype=bool)
last_jittered = np.array(previews[LAST].draws()["jitter"]["apply"], dtype=bool)
assert (last_jittered | ~first_jittered).all()  # jittered at epoch 0: jittered at the last

# %% [markdown]
# The panel does the same with the mouse. Its **Training run** box holds the run's length, an
# epoch slider and a small plot of every scheduled value over the run, the previewed epoch
# marked; selecting a node offers "Follow the run" beside its controls, to schedule any of its
# numbers (curve, start, end, from, to) as easily as setting a constant.

# %%
panel = Explorer(graph, autosave=None)  # writes no autosave under .augexplorer/
panel.set_epoch(MIDDLE)
display(panel)

# %% [markdown]
# The plot's numbers, epoch by epoch:

# %%
runs = values_over_run(graph)
print("epoch " + " ".join(f"{target!s:>18}" for target in runs))
for epoch in range(EPOCHS):
    print(f"{epoch:5} " + " ".join(f"{values[epoch]:18.3f}" for values in runs.values()))

# %% [markdown]
# ## 3. Statistics across the run
#
# A few pictures can mislead; counts over many draws do not. `stats_over_run` counts several
# batches at each epoch asked for (the same seeds and data at each) and gives, per epoch, the
# range each random argument drew over and how often each node applied, beside the scheduled
# values. A rate is measured on a finite number of draws, so it is given with a binomial
# interval: the scheduled probability should fall inside it.

# %%
over_run = stats_over_run(graph, epochs=[0, MIDDLE, LAST], batches=6, device_id=None)
print(over_run.summary())
print()
for figures in over_run.figures:
    rate = figures.stats.rate("jitter")
    low, high = rate.interval()  # 95%
    scheduled = figures.scheduled["jitter.apply"]
    print(
        f"epoch {figures.epoch}: jitter ran on {rate.successes} of {rate.trials} "
        f"({rate.rate:.0%}, 95% interval {low:.2f}..{high:.2f}), scheduled {scheduled:.2f}"
    )
    assert rate.agrees(), "the measured rate should agree with the schedule"  # 99.9% interval
    drawn = figures.draw("rotate", "angle")
    width = figures.scheduled["rotate.angle.high"]
    assert -width <= drawn.low and drawn.high <= width

# %% [markdown]
# ### Exercise: the reverse curriculum
#
# Fine-tuning a model trained on a large data set often goes the other way: strong augmentation
# at first, then less and less, so the last epochs see pictures close to the real ones. Write
# the jitter's probability for such a run of five epochs: 0.5 over epochs 0 and 1, then falling
# in a straight line to 0 at the last epoch.

# %%
fine_tuning = None  # your answer: a Schedule

# %%
print(check_fade_after_hold(fine_tuning, EPOCHS))

# %% [markdown]
# ## 4. Export, and drive the loader through the run
#
# The exported module carries the schedules as a table (`EPOCHS`, `SCHEDULES`) with
# `schedule_value(name, epoch)` in plain Python, and its `make_loader` returns a loader that
# takes `set_epoch(epoch)` as a PyTorch sampler does. The scheduled values are fed to the
# pipeline every iteration, so a new epoch costs no rebuild.

# %%
# removed by scratch.cleanup() at the end, or when this cell runs again and forgets it
scratch = tempfile.TemporaryDirectory(prefix="augexplorer-schedules-")
workdir = Path(scratch.name)
module_path = export(graph, workdir / "curriculum_pipeline.py")
module_spec = importlib.util.spec_from_file_location("curriculum_pipeline", module_path)
curriculum_pipeline = importlib.util.module_from_spec(module_spec)
module_spec.loader.exec_module(curriculum_pipeline)
print("EPOCHS =", curriculum_pipeline.EPOCHS)
for name, schedule in curriculum_pipeline.SCHEDULES.items():
    print(f"{name:18} {schedule}")

# %% [markdown]
# A training loop calls `set_epoch` before each epoch. Here the loop only counts the batches and
# asks the module for the epoch's rotation range.

# %%
loader = curriculum_pipeline.make_loader(device="cpu", num_threads=2)
first_batches = {}
for epoch in range(EPOCHS):
    loader.set_epoch(epoch)
    batches = [batch[0]["images"] for batch in loader]
    first_batches[epoch] = batches[0].numpy()
    high = curriculum_pipeline.schedule_value("rotate.angle.high", epoch)
    print(f"epoch {epoch}: {len(batches)} batches, rotate within +-{high:.1f} degrees")

# %% [markdown]
# The first batch of epoch 0 is the one the explorer previewed at epoch 0, bit for bit:


# %%
def previewed(result: RunResult) -> np.ndarray:  # the explorer's images, as one array
    return np.stack([np.asarray(image) for image in result.arrays("normalize")])


assert np.array_equal(first_batches[0], previewed(previews[0]))

# %% [markdown]
# Later epochs of the same loader are not the previews: the reader shuffles the files again every
# epoch and the random draws go on, as they should in training. What the explorer shows at epoch
# `e` is the first batch of a loader *placed* at epoch `e`, as when a job resumes there: a new
# loader, `set_epoch(e)`, then its first batch.

# %%
for epoch in (0, MIDDLE, LAST):
    resumed = curriculum_pipeline.make_loader(device="cpu", num_threads=2)
    resumed.set_epoch(epoch)
    same = np.array_equal(next(resumed)[0]["images"].numpy(), previewed(previews[epoch]))
    print(f"epoch {epoch}: the resumed loader's first batch is the preview: {same}")
    assert same

# %% [markdown]
# Under `torchrun`, give every rank the same epoch: each draws its own values (its own seeds and
# shard, as `Session(..., rank=r, world_size=n)` previews them) from the same schedules.
#
# ## 5. A probability the training loop adapts
#
# StyleGAN2-ADA does not fix its augmentation probability in advance: every few batches it
# measures how much the model overfits, and raises the probability when the signal is above a
# target, lowers it otherwise. `loader.set_strength(name, value)` puts a value in place of a
# schedule between iterations (`None` gives the schedule back). The loop below trains a tiny
# classifier on the five picture classes and drives `jitter.apply` from a toy version of ADA's
# overfitting signal `r_t`: the mean sign of how far the true class's score stands above the
# others' mean on training batches (1 when the model favours the true class on every picture it
# trains on). The rotation keeps following its schedule meanwhile. A new value reaches the
# batches DALI prepares after the call; the two already prepared (`prefetch_queue_depth`) keep
# theirs.


# %%
def overfitting_signal(logits: torch.Tensor, labels: torch.Tensor) -> float:
    """ADA's r_t in miniature: the mean sign of the true class's logit above the others' mean."""
    true = logits.gather(1, labels.view(-1, 1)).squeeze(1)
    return torch.sign(true - logits.mean(dim=1)).mean().item()


TARGET, STEP = 0.2, 0.05  # the r_t the loop aims for, and p's change per adjustment
torch.manual_seed(0)
model = nn.Sequential(
    nn.Conv2d(3, 8, 3, stride=2), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 5)
)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
adaptive = curriculum_pipeline.make_loader(device="cpu", num_threads=2)
p = 0.0
adaptive.set_strength("jitter.apply", p)  # in place of the schedule, from the first batch
for epoch in range(EPOCHS):
    adaptive.set_epoch(epoch)  # the rotation still follows its schedule
    signals = []
    for batch in adaptive:
        images, labels = batch[0]["images"], batch[0]["labels"]
        logits = model(images)
        loss = nn.functional.cross_entropy(logits, labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        r_t = overfitting_signal(logits.detach(), labels)
        signals.append(r_t)
        p = min(1.0, max(0.0, p + (STEP if r_t > TARGET else -STEP)))  # ADA's rule
        adaptive.set_strength("jitter.apply", p)
    mean = sum(signals) / len(signals)
    print(f"epoch {epoch}: mean r_t {mean:+.2f}, jitter p now {p:.2f}, loss {loss.item():.3f}")

# %% [markdown]
# ADA adjusts every four batches from the signal's mean over them, with a step small enough that
# p needs 500k images to go from 0 to 1; this toy loop adjusts after every batch, with a large
# step, to show movement in fifteen batches. `examples/adaptive_strength.py` is a similar loop as
# a script. The exported module is plain Python that needs only DALI and PyTorch: copy it next to
# the training script. Remove the temporary folder when you are done:

# %%
scratch.cleanup()
