"""Per-operator timing as a bar chart in plain HTML.

HTML bars cost well under a millisecond to build, where a matplotlib figure costs hundreds: the
chart is redrawn after every run, and the kernel must be free for the next slider move.
"""

from __future__ import annotations

import html

import ipywidgets as widgets

from augexplorer.engine import RunResult

NOTE = (
    "Each operator is timed alone on its cached inputs, so the sum is an upper bound on the "
    "fused pipeline's time. Deep blue bars ran for the last edit; pale ones came from the cache."
)


def summary(result: RunResult) -> tuple[float, float]:
    """(total batch milliseconds, images per second) from the per-operator times."""
    total = sum(result.node_times().values())
    batch = result.plan.spec.batch_size
    return total, (batch * 1000.0 / total if total > 0 else 0.0)


def chart_html(result: RunResult) -> str:
    """One row per node: name, a bar scaled to the slowest node, milliseconds."""
    times = result.node_times()
    ran = {result.steps[s].step.origin for s in result.ran()}
    slowest = max(times.values(), default=0.0) or 1.0
    total, rate = summary(result)
    rows = []
    for node, ms in times.items():
        width = max(0.5, 100.0 * ms / slowest)
        kind = "ax-bar-ran" if node in ran else "ax-bar-cached"
        rows.append(
            f"<div class='ax-bar-row' data-node='{html.escape(node)}'>"
            f"<span class='ax-bar-name' title='{html.escape(node)}: {ms:.1f} ms'>"
            f"{html.escape(node)}</span>"
            f"<span class='ax-bar-track'><span class='ax-bar {kind}' style='width:{width:.1f}%'>"
            f"</span></span><span class='ax-bar-ms'>{ms:.1f} ms</span></div>"
        )
    title = (
        f"batch of {result.plan.spec.batch_size}: {total:.0f} ms, {rate:.0f} images/s (upper bound)"
    )
    return f"<div class='ax-chart'><div class='ax-chart-title'>{title}</div>{''.join(rows)}</div>"


class TimingView(widgets.VBox):
    def __init__(self) -> None:
        self.chart = widgets.HTML("")
        self.chart.add_class("ax-timing-chart")
        self.note = widgets.HTML(f"<span class='ax-muted'>{NOTE}</span>")
        super().__init__([self.chart, self.note])
        self.add_class("ax-timing")
        self.drawn_for: RunResult | None = None

    def show(self, result: RunResult | None) -> None:
        if result is None or result is self.drawn_for:
            return
        self.chart.value = chart_html(result)
        self.drawn_for = result
