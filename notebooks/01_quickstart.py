# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # augexplorer quickstart
#
# **Objective:** find your way around the explorer panel, then open it on your own pictures and
# tune one augmentation. **Time:** about 15 minutes.
#
# This is what the first code cell shows once it has run (a screenshot of this notebook in
# JupyterLab):
#
# ![The explorer panel after the first code cell has run](images/quickstart-panel.png)
#
# The panel runs a DALI augmentation graph on a batch of the bundled sample photos and shows the
# result. Everything you change runs at once:
#
# - **Graph** (left): click a node to edit it and see its output; add operators from the catalog.
# - **Selected node** (under the graph): each argument has a slider for exploring and a number
#   box that takes any value (an invalid one stays typed, with its error, until you fix it);
#   **random** draws an argument per sample from a distribution. Rename, move, duplicate or
#   remove the node; pick its device and "apply with probability".
# - **Output** (right): the batch, one image under many random draws (*Variety*), or the previous
#   parameters next to the current ones (*A/B*).
# - **Timing** and **Export** (bottom): what each operator costs, and the graph as a Python module
#   with a PyTorch loader.
#
# Undo and redo every edit; the graph is autosaved under `.augexplorer/`, one file per
# notebook. The panel works the same in JupyterLab, Notebook 7 and Voila.

# %%
import os

from IPython.display import display

from augexplorer import Explorer

explorer = Explorer("basic", batch_size=8)
display(explorer)

# %% [markdown]
# The panel is also a Python object: `explorer.spec` is the graph you built (save it, or pass it to
# `augexplorer.Session` in a script), and `explorer.result` holds every node's output and time.

# %%
print(explorer.spec.ids())
print({node: round(ms, 1) for node, ms in explorer.result.node_times().items()})

# %% [markdown]
# ## Your turn: your own pictures
#
# 1. Set `MY_PICTURES` below to a folder of your own: one sub-folder of images per class (the
#    folder names are the labels), or a folder of images with no sub-folders. Run the cell.
# 2. Look at the batch before changing anything. Files DALI cannot read are named above the grid.
# 3. Click the `rotate` node and widen its angle range until the objects leave the frame or the
#    corners take over; then bring it back to where the pictures still look like your data.
# 4. Open **Export** to see the DALI code of the graph you tuned.

# %%
MY_PICTURES = None  # your folder, e.g. "~/data/train"

if MY_PICTURES is None:
    print("Set MY_PICTURES to a folder of your pictures and run this cell again.")
else:
    mine = Explorer("basic", data=os.path.expanduser(MY_PICTURES), batch_size=8)
    display(mine)
