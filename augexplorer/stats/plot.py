"""The statistics as one matplotlib figure: each random argument's histogram beside its declared
distribution, the rates with their intervals, fill shares and label counts. matplotlib is
imported here only, when a plot is drawn."""

from __future__ import annotations

import io
import math
from typing import Any, Literal

import numpy as np

from .draws import DrawHistogram
from .report import Stats

COLUMNS = 3
MEASURED, DECLARED = "#4c78a8", "#e15759"

Theme = Literal["light", "dark"]
# matplotlib's own look on white, or light text on a transparent background for a dark page
# (JupyterLab Dark, Voila's dark theme): the page's own colour shows through.
THEMES: dict[Theme, Any] = {  # Any: matplotlib types its rc keys as literals
    "light": {},
    "dark": {
        "figure.facecolor": "none",
        "axes.facecolor": "none",
        "text.color": "#e0e0e0",
        "axes.labelcolor": "#e0e0e0",
        "axes.edgecolor": "#9e9e9e",
        "xtick.color": "#e0e0e0",
        "ytick.color": "#e0e0e0",
        "legend.facecolor": "#2a2a2a",
        "legend.edgecolor": "#616161",
        "legend.labelcolor": "#e0e0e0",
    },
}


def stats_figure(stats: Stats, columns: int = COLUMNS, theme: Theme = "light") -> Any:
    """The figure, `columns` panels a row of 400 pixels each (at the 100 dpi of
    :func:`figure_png`): a page shows it at its own size, its text legible, where it is given
    that width. `theme` "dark" draws it for a dark page."""
    import matplotlib

    # The style applies as the figure and its artists are made, so the whole drawing is inside.
    with matplotlib.rc_context(THEMES[theme]):
        return _figure(stats, columns)


def _figure(stats: Stats, columns: int) -> Any:
    from matplotlib.figure import Figure

    panels: list[Any] = [*stats.draws]
    if stats.rates:
        panels.append("rates")
    panels += [fill for fill in stats.fills]
    panels += [counts for counts in stats.labels if counts.columns]
    rows = max(1, math.ceil(len(panels) / columns))
    figure = Figure(figsize=(4.0 * columns, 3.0 * rows), layout="constrained")
    figure.suptitle(f"{stats.name}: {stats.samples:,} samples", fontsize=10)
    for index, panel in enumerate(panels):
        axes = figure.add_subplot(rows, columns, index + 1)
        if isinstance(panel, DrawHistogram):
            _draw_panel(axes, panel)
        elif panel == "rates":
            _rates_panel(axes, stats)
        elif hasattr(panel, "share_counts"):
            _fill_panel(axes, panel)
        else:
            _labels_panel(axes, panel)
    if not panels:
        figure.add_subplot().text(0.5, 0.5, "nothing random in this graph", ha="center")
    return figure


def _draw_panel(axes: Any, draw: DrawHistogram) -> None:
    total = max(1, draw.total)
    if draw.edges is not None:
        centres = (draw.edges[:-1] + draw.edges[1:]) / 2
        width = float(draw.edges[1] - draw.edges[0])
        axes.bar(centres, draw.counts / total, width=width * 0.9, color=MEASURED, label="drawn")
        axes.step(centres, draw.expected, where="mid", color=DECLARED, label="declared")
    else:
        positions = np.arange(len(draw.values))
        axes.bar(positions, draw.counts / total, color=MEASURED, label="drawn")
        axes.scatter(positions, draw.expected, color=DECLARED, zorder=3, label="declared")
        axes.set_xticks(positions, [f"{v:g}" for v in draw.values])
    axes.set_title(f"{draw.node}.{draw.argument} ~ {draw.declared.short()}", fontsize=9)
    axes.set_ylabel("share of draws", fontsize=8)
    axes.legend(fontsize=7)


def _rates_panel(axes: Any, stats: Stats) -> None:
    import matplotlib

    names = [rate.what for rate in stats.rates]
    measured = [rate.rate for rate in stats.rates]
    intervals = [rate.interval() for rate in stats.rates]
    errors = np.array(
        [
            [m - low for m, (low, _) in zip(measured, intervals, strict=True)],
            [high - m for m, (_, high) in zip(measured, intervals, strict=True)],
        ]
    )
    positions = np.arange(len(names))
    # matplotlib draws error bars black whatever the style: the text's colour reads on both
    ecolor = matplotlib.rcParams["text.color"]
    axes.barh(positions, measured, xerr=errors, color=MEASURED, ecolor=ecolor, label="ran (95%)")
    declared = [(i, r.expected) for i, r in enumerate(stats.rates) if r.expected is not None]
    if declared:
        axes.scatter(
            [d for _, d in declared],
            [i for i, _ in declared],
            color=DECLARED,
            marker="|",
            s=200,
            zorder=3,
            label="declared",
        )
    axes.set_yticks(positions, names, fontsize=7)
    axes.set_xlim(0, 1)
    axes.set_title("how often it ran", fontsize=9)
    axes.legend(fontsize=7)


def _fill_panel(axes: Any, fill: Any) -> None:
    bins = len(fill.share_counts)
    axes.bar(
        np.arange(bins) / bins + 0.5 / bins, fill.share_counts, width=0.9 / bins, color=MEASURED
    )
    axes.set_xlim(0, 1)
    axes.set_xlabel("share of the sample that is fill", fontsize=8)
    title = f"fill after {fill.node} (mean {fill.mean_share:.0%}"
    passed_on = fill.passed_on()
    if passed_on is not None:  # what the crop after it keeps: what training sees
        node, mean, _ = passed_on
        title += f"; {mean:.0%} at {node}"
    axes.set_title(title + ")", fontsize=9)


def _labels_panel(axes: Any, counts: Any) -> None:
    column = counts.columns[0]
    labels = sorted(column)
    axes.bar(
        [counts.name(label) for label in labels],
        [column[label] for label in labels],
        color=MEASURED,
    )
    axes.tick_params(axis="x", labelrotation=45, labelsize=7)
    axes.set_title(f"labels read ({counts.samples:,} samples)", fontsize=9)


def figure_png(figure: Any) -> bytes:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=100)
    return buffer.getvalue()
