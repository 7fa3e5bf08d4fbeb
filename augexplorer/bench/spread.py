"""What several rounds of two loaders allow us to say: a rate is higher only where the slowest
round of one beats the fastest of the other; where their ranges overlap, the run names no winner.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

Verdict = Literal["faster", "slower", "overlap"]

WORDS: dict[Verdict, str] = {
    "faster": "faster in every round",
    "slower": "slower in every round",
    "overlap": "the ranges overlap: no winner in this run",
}


def compare_rounds(rates: Sequence[float], baseline: Sequence[float]) -> Verdict:
    """`rates` (images/s, one per round) against `baseline`'s: "faster" where every round of
    `rates` beats every round of `baseline`, "slower" where every one trails, else "overlap"."""
    for name, values in (("rates", rates), ("baseline", baseline)):
        if not values:
            raise ValueError(f"{name} holds no rounds (fix: give the rates of at least one round)")
    if min(rates) > max(baseline):
        return "faster"
    if max(rates) < min(baseline):
        return "slower"
    return "overlap"
