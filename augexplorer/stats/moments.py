"""Running per-channel count, mean, variance, min and max, combined batch by batch in float64.

Each added block arrives as its own count, mean and sum of squared deviations (M2); blocks are
merged with the parallel form of Welford's update (Chan, Golub and LeVeque), which stays exact
where a single running sum of squares would lose digits over millions of values.
"""

from __future__ import annotations

from typing import Any

import numpy as np


class RunningMoments:
    """Moments of values arriving in blocks, per channel; memory is O(channels)."""

    def __init__(self) -> None:
        self.count = np.zeros(0, dtype=np.int64)
        self._mean = np.zeros(0)
        self._m2 = np.zeros(0)
        self._min = np.zeros(0)
        self._max = np.zeros(0)

    @property
    def channels(self) -> int:
        return int(self.count.size)

    def add(self, rows: np.ndarray) -> None:
        """Add a block of values, one row per channel: shape (channels, n), or 1-D for one
        channel. Rows should be contiguous (channel-first): every reduction then runs along
        memory, which is several times faster than reducing a strided channel axis."""
        block = np.asarray(rows)
        block = block.reshape(1, -1) if block.ndim < 2 else block.reshape(block.shape[0], -1)
        count = block.shape[1]
        if count == 0:
            return
        wide = block.astype(np.float64, copy=False)
        total = wide @ np.ones(count)  # by BLAS
        mean = total / count
        m2 = np.einsum("ij,ij->i", wide, wide) - total * mean
        self.add_summary(
            np.full(mean.size, count), mean, np.maximum(m2, 0.0), block.min(1), block.max(1)
        )

    def add_summary(
        self,
        count: np.ndarray,
        mean: np.ndarray,
        m2: np.ndarray,
        low: np.ndarray,
        high: np.ndarray,
    ) -> None:
        """Merge a block already reduced to per-channel count, mean, M2, min and max."""
        count = np.asarray(count, dtype=np.int64)
        self._grow(count.size)
        width = count.size
        old = self.count[:width].astype(np.float64)
        new = count.astype(np.float64)
        both = old + new
        safe = np.where(both > 0, both, 1.0)
        delta = np.asarray(mean, dtype=np.float64) - self._mean[:width]
        self._mean[:width] += delta * new / safe
        self._m2[:width] += np.asarray(m2, dtype=np.float64) + delta**2 * old * new / safe
        seen = count > 0
        self._min[:width] = np.where(seen, np.minimum(self._min[:width], low), self._min[:width])
        self._max[:width] = np.where(seen, np.maximum(self._max[:width], high), self._max[:width])
        self.count[:width] += count

    def state(self) -> list[RunningMoments]:
        """As a tally of its own (:mod:`augexplorer.stats.state`): itself, one leaf."""
        return [self]

    def load_state(self, combined: list[Any]) -> None:
        (merged,) = combined
        self.count, self._mean, self._m2 = merged.count, merged._mean, merged._m2
        self._min, self._max = merged._min, merged._max

    def summary(self, width: int | None = None) -> tuple[np.ndarray, ...]:
        """Per-channel count, mean, M2, min and max, widened to `width` channels with empty
        ones (count 0, min +inf, max -inf): the state processes combine."""
        if width is not None:
            self._grow(width)
        return self.count, self._mean, self._m2, self._min, self._max

    @classmethod
    def from_summary(
        cls,
        count: np.ndarray,
        mean: np.ndarray,
        m2: np.ndarray,
        low: np.ndarray,
        high: np.ndarray,
    ) -> RunningMoments:
        """Moments holding exactly these per-channel figures (a merge would round the mean)."""
        made = cls()
        made.count = np.asarray(count, dtype=np.int64).copy()
        made._mean = np.asarray(mean, dtype=np.float64).copy()
        made._m2 = np.asarray(m2, dtype=np.float64).copy()
        made._min = np.asarray(low, dtype=np.float64).copy()
        made._max = np.asarray(high, dtype=np.float64).copy()
        return made

    def _grow(self, width: int) -> None:
        extra = width - self.channels
        if extra <= 0:
            return
        self.count = np.concatenate([self.count, np.zeros(extra, dtype=np.int64)])
        self._mean = np.concatenate([self._mean, np.zeros(extra)])
        self._m2 = np.concatenate([self._m2, np.zeros(extra)])
        self._min = np.concatenate([self._min, np.full(extra, np.inf)])
        self._max = np.concatenate([self._max, np.full(extra, -np.inf)])

    @property
    def mean(self) -> np.ndarray:
        return np.where(self.count > 0, self._mean, np.nan)

    @property
    def std(self) -> np.ndarray:
        """Population standard deviation (ddof=0), as numpy's default."""
        safe = np.where(self.count > 0, self.count, 1)
        return np.where(self.count > 0, np.sqrt(self._m2 / safe), np.nan)

    @property
    def min(self) -> np.ndarray:
        return np.where(self.count > 0, self._min, np.nan)

    @property
    def max(self) -> np.ndarray:
        return np.where(self.count > 0, self._max, np.nan)

    def to_json(self) -> dict[str, list[float]]:
        return {
            "count": [int(c) for c in self.count],
            "mean": _floats(self.mean),
            "std": _floats(self.std),
            "min": _floats(self.min),
            "max": _floats(self.max),
        }


def _floats(values: np.ndarray) -> list[float]:
    return [float(v) for v in values]


def moments_from_histograms(histograms: np.ndarray) -> RunningMoments:
    """Exact moments of integer values 0..bins-1 counted per channel, shape (channels, bins)."""
    moments = RunningMoments()
    counts = histograms.sum(axis=1)
    values = np.arange(histograms.shape[1], dtype=np.float64)
    safe = np.where(counts > 0, counts, 1)
    mean = (histograms @ values) / safe
    m2 = (histograms * (values[None, :] - mean[:, None]) ** 2).sum(axis=1)
    nonzero = histograms > 0
    low = np.array([np.flatnonzero(row)[0] if row.any() else 0 for row in nonzero], dtype=float)
    high = np.array([np.flatnonzero(row)[-1] if row.any() else 0 for row in nonzero], dtype=float)
    moments.add_summary(counts, mean, m2, low, high)
    return moments
