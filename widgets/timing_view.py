"""Per-operator timing as a bar chart in plain HTML.

HTML bars cost well under a millisecond to build, where a matplotlib figure costs hundreds. The
chart of a new run is drawn once the runs rest (a slider let go, or a single step's grid on its
way), not after each run of a drag: its message and the page's layout of it would compete with the
grid's pictures for the same cores. Meanwhile the chart still shows the last run drawn, marked
pending (dimmed, its title saying so), so timing is not read as the new pictures' own. The mark
goes out as an edit starts to run: the page applies it while the kernel runs the graph, ahead of
the pictures without delaying them (sent with the pictures, ahead of them it held them up in the
page; behind them, a page that decoded them fast drew them beside a chart not yet marked)."""

from __future__ import annotations

import asyncio
import html

import anywidget
import ipywidgets as widgets

from augexplorer.engine import RunResult

from .coalesce import running_loop
from .graph_layout import folded_transforms
from .graph_view import STATIC

NOTE = (
    "Each operator is timed alone on its cached inputs, so the sum is an upper bound on the "
    "fused pipeline's time. Deep blue bars ran for the last edit; pale ones came from the cache."
)


def summary(result: RunResult) -> tuple[float, float]:
    """(total batch milliseconds, images per second) from the per-operator times."""
    total = sum(result.node_times().values())
    batch = result.plan.spec.batch_size
    return total, (batch * 1000.0 / total if total > 0 else 0.0)


# No new run for this long: the runs rest and the chart of the last one is drawn. Longer than the
# grid's own rest (drag_preview.REST_S, 80 ms): the full pictures after a drag go first.
REST_S = 0.15
PENDING_CLASS = "ax-timing-pending"
PENDING_NOTE = "timing of the previous run: the new run's follows when the edits rest"
# Marking the chart pending is a class on the chart's element, not a new chart: the page would
# otherwise rebuild the chart's HTML and lay it out just as the new pictures arrive to be decoded.
# The look of that class is a style sheet that goes once, with the note under the chart: a style
# element arriving with every chart would have the page match its whole document's styles again.
PENDING_STYLE = (
    f"<style>.{PENDING_CLASS} .ax-chart {{ opacity: 0.45; }} "
    f'.{PENDING_CLASS} .ax-chart-title::after {{ content: " · {PENDING_NOTE}"; '
    "font-style: italic; font-weight: normal; }</style>"
)


def chart_html(result: RunResult) -> str:
    """One row per node: name, a bar scaled to the slowest row, milliseconds. A ported
    transform of several nodes (folded in the graph view) is one row of their summed time,
    which opens on its nodes' rows."""
    times = result.node_times()
    ran = {result.steps[s].step.origin for s in result.ran()}
    folds = folded_transforms(result.plan.spec)
    members: dict[str, list[str]] = {}
    for node in times:
        if node in folds:
            members.setdefault(folds[node]["id"], []).append(node)
    sums = {fold: sum(times[node] for node in nodes) for fold, nodes in members.items()}
    unfolded = [ms for node, ms in times.items() if node not in folds]
    slowest = max([*unfolded, *sums.values()], default=0.0) or 1.0

    def row(name: str, ms: float, did_run: bool, attrs: str, tag: str = "div") -> str:
        width = max(0.5, 100.0 * ms / slowest)
        kind = "ax-bar-ran" if did_run else "ax-bar-cached"
        return (
            f"<{tag} class='ax-bar-row' {attrs}>"
            f"<span class='ax-bar-name' title='{html.escape(name)}: {ms:.1f} ms'>"
            f"{html.escape(name)}</span>"
            f"<span class='ax-bar-track'><span class='ax-bar {kind}' style='width:{width:.1f}%'>"
            f"</span></span><span class='ax-bar-ms'>{ms:.1f} ms</span></{tag}>"
        )

    rows = []
    for node, ms in times.items():
        fold = folds.get(node)
        if fold is None:
            rows.append(row(node, ms, node in ran, f"data-node='{html.escape(node)}'"))
            continue
        nodes = members[fold["id"]]
        if node != nodes[0]:
            continue  # in its transform's row
        called = f"{fold['header']} ({len(nodes)} nodes)"
        port = f"data-port='{html.escape(fold['id'])}'"
        inner = "".join(
            row(member, times[member], member in ran, f"data-node='{html.escape(member)}'")
            for member in nodes
        )
        summed = row(called, sums[fold["id"]], any(n in ran for n in nodes), port, "summary")
        rows.append(f"<details class='ax-bar-fold' {port}>{summed}{inner}</details>")
    total, rate = summary(result)
    # The summed time is an upper bound, so the rate it gives is a lower one.
    title = (
        f"batch of {result.plan.spec.batch_size}: at most {total:.0f} ms, "
        f"at least {rate:.0f} images/s"
    )
    return f"<div class='ax-chart'><div class='ax-chart-title'>{title}</div>{''.join(rows)}</div>"


class FoldsKept(anywidget.AnyWidget):
    """Nothing to show: its page module opens again, in each new chart, the transforms' rows a
    person opened (the chart is new HTML every run, its folds closed)."""

    _esm = STATIC / "timing_folds.js"

    def __init__(self) -> None:
        super().__init__()
        self.layout.display = "contents"  # takes no room in the view


class TimingView(widgets.VBox):
    def __init__(self) -> None:
        self.chart = widgets.HTML("")
        self.chart.add_class("ax-timing-chart")
        self.note = widgets.HTML(f"{PENDING_STYLE}<span class='ax-muted'>{NOTE}</span>")
        super().__init__([self.chart, self.note, FoldsKept()])
        self.add_class("ax-timing")
        self.drawn_for: RunResult | None = None  # the run the chart shows
        self.pending = False  # a newer run than `drawn_for` is shown elsewhere
        self.draws = 0  # charts drawn (tests, benchmarks)
        self._latest: RunResult | None = None
        self._rest: asyncio.TimerHandle | None = None

    def expect(self) -> None:
        """An edit is about to run: mark the chart pending now. Where no event loop runs the
        chart is drawn as each run is shown, and there is nothing to mark."""
        if self.drawn_for is not None and running_loop() is not None:
            self._mark(True)

    def show(self, result: RunResult | None) -> None:
        """`result` is the run the panel shows now: its chart is drawn once runs rest for
        `REST_S` (at once where no event loop runs, as in plain Python), the chart of an older
        run marked pending until then. Call it as the run's pictures go to the page."""
        if result is None:
            return
        if result is self._latest and self._rest is not None:
            return  # already owed: the rest counts from the run's first showing
        self._latest = result
        if result is self.drawn_for:
            self._cancel()
            self._mark(False)
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self.draw()
            return
        if self.drawn_for is not None:
            self._mark(True)
        self._cancel()
        self._rest = loop.call_later(REST_S, self.draw)

    def draw(self) -> None:
        """The chart of the latest run shown, now."""
        self._cancel()
        result = self._latest
        if result is None or (result is self.drawn_for and not self.pending):
            return
        with self.chart.hold_sync():  # the new chart and the mark's removal in one message
            self.chart.value = chart_html(result)
            self._mark(False)
        self.drawn_for = result
        self.draws += 1

    def _mark(self, pending: bool) -> None:
        if pending == self.pending:
            return
        self.pending = pending
        if pending:
            self.chart.add_class(PENDING_CLASS)
        else:
            self.chart.remove_class(PENDING_CLASS)

    def _cancel(self) -> None:
        if self._rest is not None:
            self._rest.cancel()
            self._rest = None
