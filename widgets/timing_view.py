"""Per-operator timing as a bar chart: matplotlib, drawn once per run to PNG bytes."""

from __future__ import annotations

import io

import ipywidgets as widgets

from augexplorer.engine import RunResult

NOTE = (
    "Each operator is timed alone on its cached inputs, so the sum is an upper bound on the "
    "fused pipeline's time."
)


def summary(result: RunResult) -> tuple[float, float]:
    """(total batch milliseconds, images per second) from the per-operator times."""
    total = sum(result.node_times().values())
    batch = result.plan.spec.batch_size
    return total, (batch * 1000.0 / total if total > 0 else 0.0)


def chart_png(result: RunResult) -> bytes:
    from matplotlib.figure import Figure  # imported here: the engine stays plotting-free

    times = result.node_times()
    ran = {result.steps[s].step.origin for s in result.ran()}
    names = list(times)[::-1]
    values = [times[n] for n in names]
    colors = ["#3b6fd8" if n in ran else "#a9bde8" for n in names]
    figure = Figure(figsize=(5.2, 0.32 * len(names) + 0.9), dpi=96)
    axes = figure.add_subplot()
    bars = axes.barh(names, values, color=colors)
    axes.bar_label(bars, labels=[f"{v:.1f}" for v in values], padding=3, fontsize=8)
    total, rate = summary(result)
    axes.set_title(
        f"batch of {result.plan.spec.batch_size}: {total:.0f} ms, {rate:.0f} images/s (upper bound)",
        fontsize=9,
    )
    axes.set_xlabel("ms per batch (dark: ran this time, light: cached)", fontsize=8)
    axes.tick_params(labelsize=8)
    axes.spines[["top", "right"]].set_visible(False)
    axes.set_xlim(0, max(values, default=1.0) * 1.25 + 0.1)
    figure.tight_layout()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    return buffer.getvalue()


class TimingView(widgets.VBox):
    def __init__(self) -> None:
        self.image = widgets.Image(format="png", layout={"max_width": "560px"})
        self.image.add_class("ax-timing-chart")
        self.note = widgets.HTML(f"<span class='ax-muted'>{NOTE}</span>")
        super().__init__([self.image, self.note])
        self.add_class("ax-timing")
        self.drawn_for: RunResult | None = None

    def show(self, result: RunResult | None) -> None:
        if result is None or result is self.drawn_for:
            return
        self.image.value = chart_png(result)
        self.drawn_for = result
