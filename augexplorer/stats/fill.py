"""Fill: pixels a geometric operator made up (rotation corners, padding) rather than moved.

A pixel counts as fill when every channel equals the operator's fill value. The share an
operator introduced is its output's fill share less its input's (a photo's own black sky is not
counted as the rotation's doing), per sample, counted on every other row and column of images
larger than :data:`GRID_FROM` pixels on a side (a quarter of the work; a share of area changes by
well under a percent).

What a later node keeps of it is counted too: a rotation that grows its canvas fills its corners,
and a centre crop after it may cut nearly all of them away. The fill that matters to training is
what reaches the end of the chain of nodes that only move pixels after the filling one
(:func:`fill_reach`), counted there the same way.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..plan import Plan, Step
from ..spec import Ref
from .counting import matching_pixels
from .state import Leaf, Summed, ints, summed

HALF = 0.5
GRID_FROM = 64  # images at least this tall and wide are counted on every other row and column
SHARE_BINS = 10

# Operators that fill when their fill argument is set (without it, they clamp to the border).
_FILL_WHEN_SET = {
    "rotate": "fill_value",
    "warp_affine": "fill_value",
    "paste": "fill_value",
}
# Operators that fill with a default value, some only when padding out of bounds.
_FILL_BY_DEFAULT = {
    "pad": "fill_value",
    "sphere": "fill_value",
    "water": "fill_value",
    "experimental.warp_perspective": "fill_value",
}
_FILL_WHEN_PADDING = {"crop": "fill_values", "slice": "fill_values"}
# Operators that move, drop or resample pixels without changing what a region of one value holds:
# fill before them stays fill (a crop may cut it away, a flip moves it, a resize scales it).
_MOVE_PIXELS = frozenset({"crop", "slice", "flip", "transpose", "resize", "random_resized_crop"})

# The arguments to change when an operator fills too much, worded for a warning's fix.
FIX = {
    # (a larger canvas keeps the picture whole but adds fill at its corners all the same)
    "rotate": "narrow the `angle` range: a rotation leaves its corners to the fill",
    "warp_affine": "make the `matrix` milder (smaller rotation, shear and translation), or use "
    "warp_perspective with border_mode='reflect'",
    "experimental.warp_perspective": "use border_mode='reflect' or a milder `matrix`",
    "crop": "make `crop` no larger than the images, or keep out_of_bounds_policy='trim_to_shape'",
    "slice": "keep `rel_start`/`rel_shape` inside the image, or out_of_bounds_policy='trim_to_shape'",
    "pad": "pad less (`shape`, `align`)",
}


def fill_value(step: Step) -> list[float] | None:
    """The value `step` fills with (one per channel, or one for all), or None when it does not
    introduce fill."""
    args = step.args
    if step.op in _FILL_WHEN_SET:
        value = args.get(_FILL_WHEN_SET[step.op])
    elif step.op in _FILL_BY_DEFAULT:
        if args.get("border_mode", "constant") != "constant":
            return None
        value = args.get(_FILL_BY_DEFAULT[step.op], 0.0)
    elif step.op in _FILL_WHEN_PADDING:
        if args.get("out_of_bounds_policy") != "pad":
            return None
        value = args.get(_FILL_WHEN_PADDING[step.op], 0.0)
    else:
        return None
    if value is None or (isinstance(value, (list, tuple)) and not value):
        return None if step.op in _FILL_WHEN_SET else [0.0]
    return [float(v) for v in value] if isinstance(value, (list, tuple)) else [float(value)]


def fill_reach(plan: Plan, filling: Step) -> Step | None:
    """The last step of the chain after `filling` in which each step only moves pixels and is
    the only step reading the one before: where `filling`'s fill is what the graph passes on.
    None where no such step follows (the fill is counted where it is made only). The chain
    stops before a step that fills as well, whose own fill would be counted with this one's."""
    readers: dict[str, list[Step]] = {}
    for step in plan.steps:
        for ref in {ref.node for ref in step.inputs}:
            readers.setdefault(ref, []).append(step)
    reach: Step | None = None
    current = filling
    while True:
        after = readers.get(current.id, [])
        if len(after) != 1:
            return reach
        (step,) = after
        moved = step.op in _MOVE_PIXELS and plan.first_input(step) == Ref(current.id)
        if not moved or step.apply is not None or fill_value(step) is not None:
            return reach
        reach = current = step


def grid_step(image: np.ndarray, channel_axis: int | None) -> int:
    spatial = [size for axis, size in enumerate(image.shape) if axis != channel_axis][:2]
    return 2 if len(spatial) == 2 and min(spatial) >= GRID_FROM else 1


def as_stored(value: list[float], dtype: np.dtype[Any]) -> list[float]:
    """The fill value as an image of `dtype` holds it: DALI rounds and saturates it to an
    integer type (a fill of 1e9 on uint8 pixels is 255, -5 is 0)."""
    if dtype.kind not in "ui":
        return value
    info = np.iinfo(dtype)
    return [float(min(max(round(v), info.min), info.max)) for v in value]


def fill_share(
    image: np.ndarray, channel_axis: int | None, value: list[float], *, step: int = 1
) -> float:
    """The share of pixels of one sample whose every channel equals the fill value, counted on
    every `step`-th row and column (a regular grid estimates a share of area closely)."""
    if image.size == 0:
        return 0.0
    stored: list[float] | list[int] = as_stored(value, image.dtype)
    if image.dtype == np.uint8 and image.ndim in (2, 3):  # most images: one compiled pass
        pixels = image[..., None] if channel_axis is None else np.moveaxis(image, channel_axis, -1)
        if pixels.ndim == 3:
            matching, looked_at = matching_pixels(pixels, np.array(stored), step=step)
            return matching / looked_at if looked_at else 0.0
    if image.dtype.kind in "ui":  # whole numbers in range: compared in the image's own type
        stored = [int(v) for v in stored]  # (a float would cast every pixel to float64 first)
    if step > 1 and image.ndim >= 2:
        spatial = [axis for axis in range(image.ndim) if axis != channel_axis][:2]
        index = [slice(None)] * image.ndim
        for axis in spatial:
            index[axis] = slice(None, None, step)
        image = image[tuple(index)]
    if channel_axis is None:
        return float(np.count_nonzero(image == stored[0])) / image.size
    planes = np.moveaxis(image, channel_axis, 0)
    matches = planes[0] == stored[0]
    for channel in range(1, planes.shape[0]):
        matches &= planes[channel] == stored[channel % len(stored)]
    return float(np.count_nonzero(matches)) / matches.size


@dataclass
class FillStats:
    """Per-sample fill shares a node introduced, summed as it runs."""

    node: str
    op: str
    value: list[float]
    samples: int = 0
    total_share: float = 0.0
    mostly_fill: int = 0  # samples more than half fill
    share_counts: np.ndarray = field(default_factory=lambda: np.zeros(SHARE_BINS, np.int64))
    # the node at the end of the pixel-moving chain after this one (fill_reach), and what of the
    # fill reaches it, per sample; None where no such node follows
    reaches: str | None = None
    reached_samples: int = 0
    reached_total: float = 0.0
    reached_mostly_fill: int = 0

    def add(self, introduced: float) -> None:
        self.samples += 1
        self.total_share += introduced
        self.mostly_fill += int(introduced > HALF)
        self.share_counts[min(int(introduced * SHARE_BINS), SHARE_BINS - 1)] += 1

    def add_reached(self, share: float) -> None:
        self.reached_samples += 1
        self.reached_total += share
        self.reached_mostly_fill += int(share > HALF)

    def state(self) -> list[Leaf]:
        return [
            ints(self.samples, self.mostly_fill, self.reached_samples, self.reached_mostly_fill),
            # float sums: they round in another order
            Summed(np.array([self.total_share, self.reached_total])),
            Summed(self.share_counts),
        ]

    def load_state(self, combined: list[Leaf]) -> None:
        counts = [int(v) for v in summed(combined[0])]
        self.samples, self.mostly_fill, self.reached_samples, self.reached_mostly_fill = counts
        self.total_share, self.reached_total = (float(v) for v in summed(combined[1]))
        self.share_counts = summed(combined[2])

    @property
    def mean_share(self) -> float:
        return self.total_share / self.samples if self.samples else 0.0

    @property
    def mostly_fill_share(self) -> float:
        return self.mostly_fill / self.samples if self.samples else 0.0

    @property
    def reached_mean_share(self) -> float:
        return self.reached_total / self.reached_samples if self.reached_samples else 0.0

    @property
    def reached_mostly_fill_share(self) -> float:
        return self.reached_mostly_fill / self.reached_samples if self.reached_samples else 0.0

    def passed_on(self) -> tuple[str, float, float] | None:
        """(node, mean share, share of samples more than half fill) of the fill that reaches
        the end of the chain after this node; None where none was counted there."""
        if self.reaches is None or not self.reached_samples:
            return None
        return self.reaches, self.reached_mean_share, self.reached_mostly_fill_share

    def to_json(self) -> dict[str, Any]:
        reached = None
        if self.reaches is not None:
            reached = {
                "node": self.reaches,
                "samples": self.reached_samples,
                "mean_share": self.reached_mean_share,
                "samples_more_than_half_fill": self.reached_mostly_fill,
            }
        return {
            "node": self.node,
            "op": self.op,
            "fill_value": self.value,
            "samples": self.samples,
            "mean_share": self.mean_share,
            "samples_more_than_half_fill": self.mostly_fill,
            "share_histogram": [int(c) for c in self.share_counts],
            "reaches": reached,
        }
