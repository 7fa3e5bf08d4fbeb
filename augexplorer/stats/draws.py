"""Histograms of the values a random argument drew, beside the distribution it declares.

Continuous distributions are counted in fixed bins (values outside the bins are counted as
below/above), discrete ones (coin flips, choices) per value, so memory does not grow with draws.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from statistics import NormalDist

import numpy as np

from ..spec import Random
from .moments import RunningMoments
from .state import Leaf, Summed, ints, moments_of, summed

BINS = 20
NORMAL_SPAN = 4.0  # a normal draw is binned over mean +- 4 standard deviations


@dataclass
class DrawHistogram:
    """The values drawn for `node`.`argument` (every component of a vector draw)."""

    node: str
    argument: str
    declared: Random
    edges: np.ndarray | None  # bin edges for a continuous distribution, else None
    values: tuple[float, ...]  # the possible values of a discrete distribution
    expected: np.ndarray  # the declared share of each bin or value
    counts: np.ndarray
    below: int = 0
    above: int = 0
    other: int = 0  # discrete draws that are none of the declared values (never, if all is right)
    moments: RunningMoments = field(default_factory=RunningMoments)

    @classmethod
    def for_random(cls, node: str, argument: str, declared: Random) -> DrawHistogram:
        edges: np.ndarray | None = None
        values: tuple[float, ...] = ()
        if declared.dist == "uniform":
            edges = np.linspace(declared.low, declared.high, BINS + 1)
            expected = np.full(BINS, 1.0 / BINS)
        elif declared.dist == "normal":
            span = NORMAL_SPAN * max(declared.stddev, 1e-12)
            edges = np.linspace(declared.mean - span, declared.mean + span, BINS + 1)
            cdf = NormalDist(declared.mean, max(declared.stddev, 1e-12)).cdf
            expected = np.diff([cdf(float(edge)) for edge in edges])
        elif declared.dist == "coin_flip":
            values = (0.0, 1.0)
            expected = np.array([1.0 - declared.probability, declared.probability])
        else:
            values = tuple(float(v) for v in declared.values)
            weights = np.asarray(declared.p or [1.0] * len(values), dtype=np.float64)
            expected = weights / weights.sum() if weights.sum() > 0 else weights
        size = BINS if edges is not None else len(values)
        return cls(
            node, argument, declared, edges, values, expected, np.zeros(size, dtype=np.int64)
        )

    @property
    def total(self) -> int:
        return int(self.counts.sum()) + self.below + self.above + self.other

    def add(self, drawn: np.ndarray) -> None:
        flat = np.asarray(drawn, dtype=np.float64).reshape(-1)
        if not flat.size:
            return
        self.moments.add(flat)
        if self.edges is not None:
            low, high = self.edges[0], self.edges[-1]
            self.below += int(np.count_nonzero(flat < low))
            self.above += int(np.count_nonzero(flat > high))
            inside = flat[(flat >= low) & (flat <= high)]
            self.counts += np.histogram(inside, bins=self.edges)[0]
            return
        matches = np.isclose(flat[:, None], np.asarray(self.values)[None, :])
        self.counts += matches.sum(axis=0)
        self.other += int(np.count_nonzero(~matches.any(axis=1)))

    def state(self) -> list[Leaf]:
        return [Summed(self.counts), ints(self.below, self.above, self.other), self.moments]

    def load_state(self, combined: list[Leaf]) -> None:
        self.counts = summed(combined[0])
        self.below, self.above, self.other = (int(v) for v in summed(combined[1]))
        self.moments = moments_of(combined[2])

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {
            "node": self.node,
            "argument": self.argument,
            "declared": self.declared.describe(),
            "draws": self.total,
            "counts": [int(c) for c in self.counts],
            "expected_share": [float(e) for e in self.expected],
            "mean": float(self.moments.mean[0]) if self.moments.channels else None,
            "std": float(self.moments.std[0]) if self.moments.channels else None,
            "min": float(self.moments.min[0]) if self.moments.channels else None,
            "max": float(self.moments.max[0]) if self.moments.channels else None,
        }
        if self.edges is not None:
            out.update(edges=[float(e) for e in self.edges], below=self.below, above=self.above)
        else:
            out.update(values=list(self.values), other=self.other)
        return out
