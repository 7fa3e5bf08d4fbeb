"""The Compare tab's table shows a rate (how often a transform applied, a RandomApply's coin)
as each side's rate with its 95% interval and the verdict, as `augexplorer compare` prints it,
not as the mean and spread of zeros and ones."""

from __future__ import annotations

from augexplorer_widgets.compare_view import figures_html

from augexplorer.port.compare import StepComparison
from augexplorer.port.compare_figures import DrawFigures, rate_figures


def _row(*draws: DrawFigures) -> str:
    return figures_html(
        [StepComparison("RandomApply([ColorJitter], p=0.8)", 3, "x", (), None, draws)]
    )


def test_a_rate_shows_both_intervals_and_the_verdict() -> None:
    agreeing = rate_figures("applied", 181, 240, [1.0] * 178 + [0.0] * 62, 0.8)
    html = _row(agreeing)
    low, high = agreeing.ours_interval or (0.0, 0.0)
    assert f"applied (p=0.8): 0.754 [{low:.3g}, {high:.3g}]" in html
    assert (
        html.endswith("</table>") and "; agree" in html and "&plusmn;" not in html.split("</tr>")[1]
    )


def test_a_rate_far_from_the_users_p_says_differ() -> None:
    off = rate_figures("applied", 48, 240, [1.0] * 190 + [0.0] * 50, 0.8)
    assert "differ" in _row(off)


def test_other_draws_keep_their_means_and_spreads() -> None:
    angle = DrawFigures("angle", 240, 0.1, 5.8, 240, -0.2, 5.7, 0.05, 0.61)
    assert "angle: 0.1&plusmn;5.8 / -0.2&plusmn;5.7, KS p 0.61" in _row(angle)
