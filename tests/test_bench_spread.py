"""`compare_rounds`: a verdict only where the rounds' ranges stay apart."""

from __future__ import annotations

import pytest

from augexplorer.bench.spread import WORDS, compare_rounds


@pytest.mark.parametrize(
    ("rates", "baseline", "verdict"),
    [
        ((300.0, 320.0, 310.0), (200.0, 250.0, 290.0), "faster"),
        ((100.0, 120.0), (150.0, 400.0), "slower"),
        ((300.0, 320.0), (200.0, 300.0), "overlap"),  # a tie at the edge is no win
        ((100.0, 500.0), (200.0, 300.0), "overlap"),  # one range inside the other
        ((250.0,), (250.0,), "overlap"),
    ],
)
def test_verdict_follows_the_ranges(
    rates: tuple[float, ...], baseline: tuple[float, ...], verdict: str
) -> None:
    assert compare_rounds(rates, baseline) == verdict
    assert verdict in WORDS


def test_the_verdict_is_symmetric() -> None:
    assert compare_rounds((1.0, 2.0), (3.0, 4.0)) == "slower"
    assert compare_rounds((3.0, 4.0), (1.0, 2.0)) == "faster"


@pytest.mark.parametrize("empty", ["rates", "baseline"])
def test_no_rounds_is_refused_by_name(empty: str) -> None:
    rates, baseline = ((), (1.0,)) if empty == "rates" else ((1.0,), ())
    with pytest.raises(ValueError, match=f"{empty} holds no rounds"):
        compare_rounds(rates, baseline)
