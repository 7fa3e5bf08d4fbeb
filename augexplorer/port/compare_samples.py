"""The DALI side's draws read sample by sample, for a two-sample Kolmogorov-Smirnov test against
the original's values: the port of one transform alone runs on the images repeated into one
batch (as many copies as :data:`PIXELS_PER_RUN` allows; further runs draw with other seeds),
and each sample's value is read from the graph as it ran.

- ``node.NAME``: the output of the transform's drawing node NAME (ColorJitter's ``hue_draw``, a
  ``random.uniform`` in torchvision's units; RandomCrop's ``crop_start_int``, its corner): one
  value a sample, the quantity's `element` of the node's output.
- ``window.area`` and ``window.aspect``: the crop window each sample was cut from, as a share of
  its image and as width over height. A ``random_resized_crop``'s windows are those DALI's own
  generator draws again, each claimed only where resizing it gives the node's very pixels
  (:meth:`augexplorer.engine.RunResult.windows`); a ``crop`` node's (a crop then a resize, as
  albumentations' RandomSizedCrop is ported) is the size of its output within its input's.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Collection, Sequence
from typing import Any

import numpy as np

from ..spec import GraphSpec, Node
from .compare_draws import Quantity

NODE = "node."
WINDOW = "window."
WINDOW_RECOVERED = "random_resized_crop"
WINDOW_BY_SIZE = "crop"
# the input pixels of one run: 240 copies of a 12-megapixel photo would not fit in memory
PIXELS_PER_RUN = 40_000_000


def read_per_sample(quantity: Quantity) -> bool:
    """Whether the DALI side of `quantity` is read sample by sample here (not as the statistics'
    histogram of a random argument)."""
    return quantity.dali.startswith((NODE, WINDOW))


def sampled_draws(
    spec: GraphSpec,
    node_ids: Collection[str],
    wanted: Sequence[Quantity],
    inputs: Sequence[np.ndarray],
    draws: int,
) -> dict[str, list[float]]:
    """Each quantity of `wanted` (read per sample) as the port `spec` (reading arrays; its nodes
    of the transform are `node_ids`) drew it over `draws` samples (at least one an image):
    quantity name -> values, in DALI's units. A quantity whose node is not in the graph (an
    edit removed it) is left out; a window that could not be known is left out of its lists."""
    from ..engine import Session

    total = max(draws, len(inputs))
    # the images repeated into one batch, as many times as fit in PIXELS_PER_RUN; more draws
    # than that are new runs with other seeds (a window is recovered in a run's first batch)
    pixels = sum(int(image.shape[0]) * int(image.shape[1]) for image in inputs)
    copies = max(1, min(math.ceil(total / len(inputs)), PIXELS_PER_RUN // max(pixels, 1)))
    batch = [image for _ in range(copies) for image in inputs]
    spec = dataclasses.replace(spec, batch_size=len(batch))
    session = Session(spec, (batch, [0] * len(batch)), device_id=None)
    result = session.run()
    found: dict[str, list[float]] = {}
    for run in range(math.ceil(total / len(batch))):
        if run:
            result = session.reroll()
        for name, values in _read(result, result.plan.spec, node_ids, wanted).items():
            found.setdefault(name, []).extend(values)
    return {name: values[:total] for name, values in found.items()}


def _read(
    result: Any, spec: GraphSpec, node_ids: Collection[str], wanted: Sequence[Quantity]
) -> dict[str, list[float]]:
    """The quantities of `wanted` in one run's `result`, sample by sample."""
    found: dict[str, list[float]] = {}
    windows: tuple[list[float], list[float]] | None = None
    for quantity in wanted:
        if quantity.dali.startswith(NODE):
            node = _drawing_node(spec, node_ids, quantity.dali.removeprefix(NODE))
            if node is not None:
                arrays = result.arrays(node.id)
                found[quantity.name] = [
                    float(np.asarray(a).reshape(-1)[quantity.element]) for a in arrays
                ]
        elif quantity.dali.startswith(WINDOW):
            windows = windows or _windows(result, spec, node_ids)
            if windows is not None:
                area, aspect = windows
                found[quantity.name] = area if quantity.dali == "window.area" else aspect
    return found


def _drawing_node(spec: GraphSpec, node_ids: Collection[str], base: str) -> Node | None:
    """The transform's node `base`, or that name numbered (``hue_draw_2``) where the port of
    several transforms numbered it."""
    for node_id in node_ids:
        if node_id == base or (
            node_id.startswith(f"{base}_") and node_id[len(base) + 1 :].isdigit()
        ):
            node = spec.node(node_id) if node_id in spec else None
            if isinstance(node, Node):
                return node
    return None


def _windows(
    result: Any, spec: GraphSpec, node_ids: Collection[str]
) -> tuple[list[float], list[float]] | None:
    """Each sample's crop window as (area shares, widths over heights), from the transform's
    first node that crops a window; None where it has none or none could be known."""
    for node_id in node_ids:
        node = spec.node(node_id) if node_id in spec else None
        if not isinstance(node, Node) or node.op not in (WINDOW_RECOVERED, WINDOW_BY_SIZE):
            continue
        source = result.input_of(node_id)
        if source is None:
            return None
        wholes = [np.asarray(a).shape[:2] for a in result.arrays(source)]
        if node.op == WINDOW_RECOVERED:
            drawn = result.windows(node_id)
            if drawn is None:
                return None
            sizes = [None if w is None else (w.height, w.width) for w in drawn.windows]
        else:
            sizes = [np.asarray(a).shape[:2] for a in result.arrays(node_id)]
        if len(sizes) != len(wholes):
            return None  # a node run on some samples only: its windows match no image
        area, aspect = [], []
        for (height, width), size in zip(wholes, sizes, strict=True):
            if size is None or not size[0] or not height or not width:
                continue  # a window not known is left out, never guessed
            area.append(float(size[0]) * float(size[1]) / (float(height) * float(width)))
            aspect.append(float(size[1]) / float(size[0]))
        return (area, aspect) if area else None
    return None


__all__ = ["read_per_sample", "sampled_draws"]
