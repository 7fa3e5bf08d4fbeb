"""What one node output looks like over many samples: shapes, dtype, per-channel moments and the
share of values clipped at the ends of the dtype's range.

uint8 outputs are counted in one 256-bin histogram per channel (exact mean, std, min, max and
clipped shares), a whole batch at once where its pixels lie in one buffer
(:mod:`augexplorer.stats.counting`); other dtypes keep running moments.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .counting import channel_counts
from .moments import RunningMoments, moments_from_histograms
from .state import Gathered, Leaf, Summed, gathered, ints, moments_of, summed

DISTINCT_SHAPES = 16  # distinct shapes listed before "and more"


def channel_axis(layout: str, ndim: int) -> int | None:
    """Where the channels are: the layout's C, else the last axis of a 3-D array."""
    if layout and len(layout) == ndim:
        return layout.find("C") if "C" in layout else None
    return ndim - 1 if ndim == 3 else None


def spatial_axes(layout: str, ndim: int) -> tuple[int, int] | None:
    """The (height, width) axes, or None for an output that is not an image."""
    if layout and len(layout) == ndim and "H" in layout and "W" in layout:
        return layout.find("H"), layout.find("W")
    if ndim < 2:
        return None
    channel = channel_axis(layout, ndim)
    rest = [axis for axis in range(ndim) if axis != channel]
    return (rest[0], rest[1]) if len(rest) >= 2 else None


def channel_rows(array: np.ndarray, channel: int | None) -> np.ndarray:
    """The values as one contiguous row per channel, shape (channels, n)."""
    if channel is None:
        return array.reshape(1, -1)
    planes = np.moveaxis(array, channel, 0)
    return np.ascontiguousarray(planes).reshape(planes.shape[0], -1)


def uint8_counts(array: np.ndarray, channel: int | None) -> np.ndarray:
    """Per-channel 256-bin counts of one uint8 array, shape (channels, 256)."""
    if channel is None:
        return channel_counts(array.reshape(-1), 1)
    pixels = np.moveaxis(array, channel, -1)
    return channel_counts(np.ascontiguousarray(pixels).reshape(-1), int(pixels.shape[-1]))


def _pixel_stream(samples: list[np.ndarray], layout: str) -> tuple[np.ndarray, int] | None:
    """A uint8 batch whose values lie in one buffer, pixel after pixel with the channels last
    (as DALI's HWC images do): that buffer and the channels; else None."""
    flat = getattr(samples, "flat", None)
    if flat is None or flat.dtype != np.uint8 or not samples:
        return None
    ndim = samples[0].ndim
    channel = channel_axis(layout, ndim)
    if channel is None:
        channels = 1
    elif channel == ndim - 1:
        channels = int(samples[0].shape[channel])
    else:
        return None
    if channels < 1:
        return None
    for array in samples:
        if array.ndim != ndim or (channel is not None and array.shape[channel] != channels):
            return None
    return flat, channels


@dataclass
class OutputStats:
    """Everything counted about one node output (`ref`), sample by sample."""

    ref: str
    node: str
    op: str
    layout: str = ""
    dtype: str = ""
    samples: int = 0
    heights: RunningMoments = field(default_factory=RunningMoments)
    widths: RunningMoments = field(default_factory=RunningMoments)
    aspects: RunningMoments = field(default_factory=RunningMoments)  # width / height
    shapes: dict[tuple[int, ...], int] = field(default_factory=dict)
    histograms: np.ndarray | None = None  # uint8: (channels, 256) counts
    float_moments: RunningMoments = field(default_factory=RunningMoments)
    values: int = 0
    clipped_low: int = 0
    clipped_high: int = 0
    clip_range: tuple[float, float] | None = None  # the dtype's ends, for integer dtypes

    def add_batch(
        self, samples: list[np.ndarray], layout: str, same_values: np.ndarray | None = None
    ) -> np.ndarray | None:
        """Count one batch (one array per sample; a :class:`~augexplorer.stats.host.HostViews`
        with its flat buffer lets uint8 pixels be counted in one call for the whole batch).
        `same_values`: the batch's per-channel counts where they are already known (the output
        holds the same values as another, only in other places, as a flip's does); they are
        used when they count as many values as the batch holds. Returns the batch's per-channel
        counts where its uint8 pixels were counted in one piece, else None."""
        stream = _pixel_stream(samples, layout)
        sizes: list[tuple[int, int]] = []
        for array in samples:
            size = self._add_sample(array, layout, count_values=stream is None)
            if size is not None:
                sizes.append(size)
        counts = None
        if stream is not None and stream[0].size:
            flat, channels = stream
            self.values += flat.size
            counts = same_values
            if counts is None or counts.shape[0] != channels or int(counts.sum()) != flat.size:
                counts = channel_counts(flat, channels)
            self._add_counts(counts)
        if sizes:  # one running update per batch: per sample, the bookkeeping would dominate
            heights, widths = np.array(sizes, dtype=np.float64).T
            self.heights.add(heights)
            self.widths.add(widths)
            self.aspects.add(widths / np.where(heights > 0, heights, np.nan))
        return counts

    def add(self, array: np.ndarray, layout: str) -> None:
        """Count one sample."""
        self.add_batch([array], layout)

    def _add_sample(
        self, array: np.ndarray, layout: str, count_values: bool = True
    ) -> tuple[int, int] | None:
        self.samples += 1
        self.layout = self.layout or layout
        self.dtype = self.dtype or str(array.dtype)
        shape = tuple(int(s) for s in array.shape)
        if shape in self.shapes or len(self.shapes) < DISTINCT_SHAPES:
            self.shapes[shape] = self.shapes.get(shape, 0) + 1
        axes = spatial_axes(layout, array.ndim)
        if array.size and count_values:
            self._add_values(array, channel_axis(layout, array.ndim))
        return None if axes is None else (shape[axes[0]], shape[axes[1]])

    def _add_values(self, array: np.ndarray, channel: int | None) -> None:
        self.values += array.size
        if array.dtype == np.uint8:
            self._add_uint8(array, channel)
            return
        rows = channel_rows(array, channel)
        self.float_moments.add(rows)
        if np.issubdtype(array.dtype, np.integer):
            info = np.iinfo(array.dtype)
            self.clip_range = (float(info.min), float(info.max))
            self.clipped_low += int(np.count_nonzero(rows == info.min))
            self.clipped_high += int(np.count_nonzero(rows == info.max))

    def _add_uint8(self, array: np.ndarray, channel: int | None) -> None:
        self.clip_range = (0.0, 255.0)
        self._add_counts(uint8_counts(array, channel))

    def _add_counts(self, counts: np.ndarray) -> None:
        """Add per-channel 256-bin counts, shape (channels, 256)."""
        self.clip_range = (0.0, 255.0)
        if self.histograms is None:
            self.histograms = np.zeros((counts.shape[0], 256), dtype=np.int64)
        elif self.histograms.shape[0] < counts.shape[0]:
            extra = counts.shape[0] - self.histograms.shape[0]
            self.histograms = np.vstack([self.histograms, np.zeros((extra, 256), np.int64)])
        self.histograms[: counts.shape[0]] += counts

    # ---- combined over processes --------------------------------------------------------------
    def state(self) -> list[Leaf]:
        histograms = self.histograms if self.histograms is not None else np.zeros((0, 256))
        first_seen = (self.layout, self.dtype, self.clip_range, self.shapes)
        return [
            ints(self.samples, self.values, self.clipped_low, self.clipped_high),
            Summed(histograms.astype(np.int64)),
            Gathered(first_seen),
            self.heights,
            self.widths,
            self.aspects,
            self.float_moments,
        ]

    def load_state(self, combined: list[Leaf]) -> None:
        self.samples, self.values, self.clipped_low, self.clipped_high = (
            int(v) for v in summed(combined[0])
        )
        histograms = summed(combined[1])
        self.histograms = histograms if histograms.shape[0] else None
        shapes: dict[tuple[int, ...], int] = {}
        self.layout, self.dtype, self.clip_range = "", "", None
        # in rank order, as one process reading the shards one after the other would see them
        for layout, dtype, clip_range, counted in gathered(combined[2]):
            self.layout = self.layout or layout
            self.dtype = self.dtype or dtype
            self.clip_range = self.clip_range or clip_range
            for shape, count in counted.items():
                if shape in shapes or len(shapes) < DISTINCT_SHAPES:
                    shapes[shape] = shapes.get(shape, 0) + count
        self.shapes = shapes
        self.heights, self.widths, self.aspects, self.float_moments = (
            moments_of(leaf) for leaf in combined[3:]
        )

    # ---- figures ------------------------------------------------------------------------------
    @property
    def is_image(self) -> bool:
        return bool(self.heights.channels)

    @property
    def moments(self) -> RunningMoments:
        """Per-channel moments over every value of every sample."""
        if self.histograms is not None:
            return moments_from_histograms(self.histograms)
        return self.float_moments

    @property
    def low_share(self) -> float | None:
        """The share of values at the bottom of the dtype's range (0 for uint8)."""
        if self.histograms is not None:
            return float(self.histograms[:, 0].sum()) / max(1, self.values)
        return self.clipped_low / self.values if self.clip_range and self.values else None

    @property
    def high_share(self) -> float | None:
        """The share of values at the top of the dtype's range (255 for uint8)."""
        if self.histograms is not None:
            return float(self.histograms[:, 255].sum()) / max(1, self.values)
        return self.clipped_high / self.values if self.clip_range and self.values else None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "ref": self.ref,
            "node": self.node,
            "op": self.op,
            "layout": self.layout,
            "dtype": self.dtype,
            "samples": self.samples,
            # most samples first, then by shape: the same listing whatever order they came in
            "shapes": [
                {"shape": list(shape), "samples": count}
                for shape, count in sorted(
                    self.shapes.items(), key=lambda item: (-item[1], item[0])
                )
            ],
            "channels": self.moments.to_json(),
            "low_share": self.low_share,
            "high_share": self.high_share,
        }
        if self.is_image:
            out.update(
                height=self.heights.to_json(),
                width=self.widths.to_json(),
                aspect=self.aspects.to_json(),
            )
        if self.histograms is not None:
            out["histograms"] = self.histograms.tolist()
        return out
