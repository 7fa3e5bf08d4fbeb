"""The parity figures of "compare with the original": pixel differences of one transform run
alone on both sides with fixed parameters, and what each side drew of a random transform's
parameters, the DALI side's as the statistics machinery counted them (:mod:`augexplorer.stats`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..stats import DrawHistogram, RunningMoments
from ..stats.rates import wilson_interval


@dataclass(frozen=True)
class PixelFigures:
    """How far the port's outputs are from the original's, over every value of every image:
    mean and max absolute difference, and PSNR (dB, None where both are identical) for a
    signal of `peak` (255 for uint8 outputs, 1 for 0-1 floats, else the original's range)."""

    mean_abs: float
    max_abs: float
    psnr: float | None
    peak: float
    images: int

    def describe(self) -> str:
        psnr = "identical" if self.psnr is None else f"PSNR {self.psnr:.1f} dB"
        return (
            f"mean abs {self.mean_abs:.3g}, max abs {self.max_abs:.3g} (of {self.peak:g}), "
            f"{psnr} over {self.images} images"
        )


def pixel_figures(ours: Sequence[np.ndarray], theirs: Sequence[np.ndarray]) -> PixelFigures:
    """Figures over the image pairs; raises ValueError naming the first pair whose shapes
    differ (a port that makes another size has no pixel-for-pixel figure)."""
    if len(ours) != len(theirs) or not ours:
        raise ValueError(f"{len(ours)} ported outputs against {len(theirs)} original ones")
    total = count = 0.0
    largest = squared = 0.0
    for index, (a, b) in enumerate(zip(ours, theirs, strict=True)):
        if a.shape != b.shape:
            raise ValueError(f"image {index}: the port makes {a.shape}, the original {b.shape}")
        diff = np.abs(a.astype(np.float64) - b.astype(np.float64))
        total += float(diff.sum())
        squared += float((diff**2).sum())
        count += diff.size
        largest = max(largest, float(diff.max(initial=0.0)))
    peak = _peak(theirs)
    mse = squared / count
    psnr = None if mse == 0 else 10 * math.log10(peak**2 / mse)
    return PixelFigures(total / count, largest, psnr, peak, len(ours))


def _peak(arrays: Sequence[np.ndarray]) -> float:
    if all(a.dtype == np.uint8 for a in arrays):
        return 255.0
    low = min(float(a.min()) for a in arrays)
    high = max(float(a.max()) for a in arrays)
    return 1.0 if low >= 0.0 and high <= 1.0 else max(high - low, 1e-12)


@dataclass(frozen=True)
class DrawFigures:
    """One drawn quantity (``angle``, crop ``area``) on both sides, in DALI's units: moments,
    and where the DALI side kept a histogram the two-sample Kolmogorov-Smirnov distance between
    the binned distributions, with its asymptotic p-value."""

    quantity: str
    ours_n: int
    ours_mean: float
    ours_std: float
    theirs_n: int
    theirs_mean: float
    theirs_std: float
    ks: float | None = None
    p: float | None = None
    # a rate (how often a transform applied): the user's probability and each side's 95%
    # Wilson interval, shown beside the verdict
    expected: float | None = None
    ours_interval: tuple[float, float] | None = None
    theirs_interval: tuple[float, float] | None = None

    def describe(self) -> str:
        if self.ours_interval is not None and self.theirs_interval is not None:
            return self._describe_rate(self.ours_interval, self.theirs_interval)
        test = (
            f", KS {self.ks:.3f} (p {self.p:.2g}): {self.verdict()}" if self.ks is not None else ""
        )
        if self.ks is None and self.p is not None:
            test = f", p {self.p:.2g}"
        return (
            f"{self.quantity}: DALI {self.ours_mean:.4g} +- {self.ours_std:.3g} "
            f"({self.ours_n} draws), original {self.theirs_mean:.4g} +- {self.theirs_std:.3g} "
            f"({self.theirs_n}){test}"
        )

    def verdict(self) -> str:
        """For a rate: whether the two sides apply alike, and at the user's probability, judged
        at 99.9% as the statistics judge a declared rate (at 95%, one comparison in ten of two
        right sides would read "differ"): "differ" where the two-proportion test rejects or a
        side's interval leaves out the probability; "agree" otherwise. For two distributions
        (a KS test): "differ" where the test rejects at the same confidence, else "agree".
        "" where there is no test."""
        if self.ks is not None and self.p is not None:
            # two distributions, judged at the same confidence as a rate
            if self.p < 1 - VERDICT_CONFIDENCE:
                return f"differ: KS {self.ks:.3f} (p {self.p:.2g})"
            return "agree"
        if self.ours_interval is None or self.theirs_interval is None:
            return ""
        sides = (
            ("DALI", self.ours_mean, self.ours_n),
            ("original", self.theirs_mean, self.theirs_n),
        )
        off = [
            side
            for side, rate, n in sides
            if self.expected is not None
            and not _holds(wilson_interval(round(rate * n), n, VERDICT_CONFIDENCE), self.expected)
        ]
        if self.p is not None and self.p < 1 - VERDICT_CONFIDENCE:
            return f"differ: the two sides' rates (p {self.p:.2g})"
        if off:
            return f"differ: {' and '.join(off)} not at p={self.expected:g}"
        return "agree"

    def _describe_rate(self, ours: tuple[float, float], theirs: tuple[float, float]) -> str:
        given = f"p={self.expected:g}; " if self.expected is not None else ""
        test = f", p {self.p:.2g}" if self.p is not None else ""
        return (
            f"{self.quantity} ({given}95% intervals): DALI {self.ours_mean:.3g} [{ours[0]:.3g}, {ours[1]:.3g}] "
            f"({self.ours_n} samples), original {self.theirs_mean:.3g} "
            f"[{theirs[0]:.3g}, {theirs[1]:.3g}] ({self.theirs_n}){test}: {self.verdict()}"
        )


def histogram_figures(quantity: str, drawn: DrawHistogram, theirs: Sequence[float]) -> DrawFigures:
    """A DALI argument's histogram against the original's draws (in DALI's units)."""
    values = np.asarray(theirs, dtype=np.float64)
    ks = p = None
    if drawn.edges is not None:
        low, high = drawn.edges[0], drawn.edges[-1]
        inside = np.histogram(values[(values >= low) & (values <= high)], bins=drawn.edges)[0]
        theirs_bins = [np.count_nonzero(values < low), *inside, np.count_nonzero(values > high)]
        ours_bins = [drawn.below, *drawn.counts, drawn.above]
    else:
        points = np.asarray(drawn.values)
        theirs_bins = [int(np.isclose(values, v).sum()) for v in points]
        ours_bins = list(drawn.counts)
    if sum(ours_bins) and sum(theirs_bins):
        ks, p = binned_ks(np.asarray(ours_bins, float), np.asarray(theirs_bins, float))
    return _figures(quantity, drawn.moments, values, ks, p)


def sample_figures(quantity: str, ours: Sequence[float], theirs: Sequence[float]) -> DrawFigures:
    """Values the DALI side drew, read sample by sample (a drawing node's output, crop
    windows), against the original's: moments and the two-sample KS test on the values
    themselves."""
    mine = np.asarray(ours, dtype=np.float64)
    values = np.asarray(theirs, dtype=np.float64)
    ks = p = None
    if mine.size and values.size:
        ks, p = sample_ks(mine, values)
    moments = RunningMoments()
    if mine.size:
        moments.add(mine)
    return _figures(quantity, moments, values, ks, p)


def _figures(
    quantity: str, ours: RunningMoments, theirs: np.ndarray, ks: float | None, p: float | None
) -> DrawFigures:
    known = bool(ours.channels)
    return DrawFigures(
        quantity,
        int(ours.count[0]) if known else 0,
        float(ours.mean[0]) if known else math.nan,
        float(ours.std[0]) if known else math.nan,
        len(theirs),
        float(theirs.mean()) if theirs.size else math.nan,
        float(theirs.std()) if theirs.size else math.nan,
        ks,
        p,
    )


VERDICT_CONFIDENCE = 0.999


def _holds(interval: tuple[float, float], value: float) -> bool:
    return interval[0] <= value <= interval[1]


def rate_figures(
    quantity: str,
    successes: int,
    trials: int,
    theirs: Sequence[float],
    expected: float | None = None,
) -> DrawFigures:
    """How often something happened on each side (`theirs`: 1 or 0 a sample), with the
    two-proportion z-test's p-value, each side's 95% Wilson interval and the user's
    probability `expected` where known."""
    values = np.asarray(theirs, dtype=np.float64)
    ours_rate = successes / trials
    theirs_rate = float(values.mean())
    pooled = (successes + values.sum()) / (trials + values.size)
    spread = math.sqrt(pooled * (1 - pooled) * (1 / trials + 1 / values.size))
    if spread == 0:
        p = 1.0 if ours_rate == theirs_rate else 0.0
    else:
        z = abs(ours_rate - theirs_rate) / spread
        p = math.erfc(z / math.sqrt(2))
    return DrawFigures(
        quantity,
        trials,
        ours_rate,
        math.sqrt(ours_rate * (1 - ours_rate)),
        int(values.size),
        theirs_rate,
        float(values.std()),
        None,
        p,
        expected,
        wilson_interval(successes, trials),
        wilson_interval(int(values.sum()), int(values.size)),
    )


def binned_ks(ours: np.ndarray, theirs: np.ndarray) -> tuple[float, float]:
    """Two-sample Kolmogorov-Smirnov distance of two counts over the same bins, and its
    asymptotic p-value (binning can only lower the distance: a difference it shows is real)."""
    n, m = ours.sum(), theirs.sum()
    distance = float(np.abs(np.cumsum(ours) / n - np.cumsum(theirs) / m).max())
    return distance, _ks_p(distance, float(n), float(m))


def sample_ks(ours: np.ndarray, theirs: np.ndarray) -> tuple[float, float]:
    """Two-sample Kolmogorov-Smirnov distance of two samples (the largest gap between their
    empirical distribution functions, over every value either holds) and its asymptotic
    p-value."""
    pooled = np.concatenate([ours, theirs])
    below_ours = np.searchsorted(np.sort(ours), pooled, side="right") / ours.size
    below_theirs = np.searchsorted(np.sort(theirs), pooled, side="right") / theirs.size
    distance = float(np.abs(below_ours - below_theirs).max())
    return distance, _ks_p(distance, float(ours.size), float(theirs.size))


def _ks_p(distance: float, n: float, m: float) -> float:
    """The Kolmogorov distribution's tail for a two-sample distance (Stephens' correction)."""
    effective = n * m / (n + m)
    scaled = (math.sqrt(effective) + 0.12 + 0.11 / math.sqrt(effective)) * distance
    if scaled < 1e-3:
        return 1.0
    p = 2 * sum((-1) ** (k - 1) * math.exp(-2 * k * k * scaled * scaled) for k in range(1, 101))
    return float(min(1.0, max(0.0, p)))
