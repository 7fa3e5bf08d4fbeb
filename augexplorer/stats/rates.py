"""How often something happened: a count of successes in trials, with a binomial interval."""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

from .state import Leaf, ints, summed


def wilson_interval(successes: int, trials: int, confidence: float = 0.95) -> tuple[float, float]:
    """The Wilson score interval of a binomial rate: well-behaved near 0 and 1 and for few trials,
    where the plain normal interval is not."""
    if trials <= 0:
        return 0.0, 1.0
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    rate = successes / trials
    denominator = 1 + z * z / trials
    centre = (rate + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(rate * (1 - rate) / trials + z * z / (4 * trials * trials)) / denominator
    # At 0 or every success an end is the rate itself; rounding could put it a hair past.
    return max(0.0, min(rate, centre - half)), min(1.0, max(rate, centre + half))


@dataclass
class Rate:
    """How often `what` happened (`successes` of `trials`) beside the rate the graph declares."""

    what: str  # e.g. "rotate applied", "flip.horizontal = 1"
    node: str
    argument: str  # "probability" for apply-with-probability, else the bound argument
    expected: float | None
    successes: int = 0
    trials: int = 0
    # for a conditional node downstream of other conditional nodes: the rate of samples on which
    # it ran together with all of them (their probabilities multiply)
    together_with: tuple[str, ...] = ()

    def add(self, successes: int, trials: int) -> None:
        self.successes += int(successes)
        self.trials += int(trials)

    def state(self) -> list[Leaf]:
        return [ints(self.successes, self.trials)]

    def load_state(self, combined: list[Leaf]) -> None:
        self.successes, self.trials = (int(v) for v in summed(combined[0]))

    @property
    def rate(self) -> float:
        return self.successes / self.trials if self.trials else math.nan

    def interval(self, confidence: float = 0.95) -> tuple[float, float]:
        return wilson_interval(self.successes, self.trials, confidence)

    def agrees(self, confidence: float = 0.999) -> bool:
        """Whether the declared rate lies inside the measured rate's interval."""
        if self.expected is None or not self.trials:
            return True
        low, high = self.interval(confidence)
        return low <= self.expected <= high

    def to_json(self) -> dict[str, object]:
        low, high = self.interval()
        return {
            "what": self.what,
            "node": self.node,
            "argument": self.argument,
            "expected": self.expected,
            "successes": self.successes,
            "trials": self.trials,
            "rate": None if not self.trials else self.rate,
            "interval_95": [low, high],
            "together_with": list(self.together_with),
        }
