"""The Statistics tab: what the graph does over many batches (``augexplorer.stats``), over a
sample of the dataset drawn evenly over its classes, or over all of it (each image once).

Statistics never run inside the edit loop: the Run button starts them in a background thread on a
snapshot of the graph, with a progress bar and a Cancel button, while the panel stays usable.
The figures and warnings show as HTML; the plots as a PNG drawn by matplotlib when the run ends.

Figures are true only of the graph and the data they were counted on: they are titled with the
graph's name as the panel gives it ("basic, edited") and the data read, and once the graph shown
is another (a preset picked, an edit, other data) a line above them says so and what changed.
"""

from __future__ import annotations

import html
import threading
from collections.abc import Callable
from typing import Any

import ipywidgets as widgets

from augexplorer.engine import Session
from augexplorer.errors import AugExplorerError
from augexplorer.spec import GraphSpec
from augexplorer.stats import Provenance, Stats, collect_stats, collect_stats_all
from augexplorer.stats.plot import Theme, figure_png, stats_figure

from .graph_changes import graph_changes
from .number_field import NumberField, RefusedLine

DEFAULT_BATCHES = 32
DEFAULT_SAMPLE = 256  # images of a sample drawn evenly over the classes
MAX_BATCHES, MAX_SAMPLE = 100_000, 100_000_000
# what a run counts: batches with fresh draws, a sample of the dataset, or all of it
SCOPES = (
    ("batches, fresh draws each", "batches"),
    ("a sample of N images, even over the classes", "sample"),
    ("all images, each once", "all"),
)
# Two 400-pixel panels a row: the output column at 1280 px holds the figure at its own size.
PLOT_COLUMNS = 2
NOTE = (
    "Runs the graph over many batches with fresh draws each batch, as training would, and sums "
    "up what it drew, how often each branch ran, what each node put out and which labels it "
    "read: over batches, over a sample of the dataset drawn evenly over its classes, or over "
    "every image once. It runs beside the panel; edits made meanwhile are not in its figures."
)


class StatsView(widgets.VBox):
    """`get_session`: the session whose graph runs; `get_spec`: the graph shown (the user's,
    which may fail to run where the session keeps the last that ran; default: the session's);
    `get_title`: its name as the panel says it (default: the graph's name); `settle`: runs the
    edits still waiting, before a count starts (the panel's flush)."""

    def __init__(
        self,
        get_session: Callable[[], Session],
        get_spec: Callable[[], GraphSpec] | None = None,
        get_title: Callable[[], str] | None = None,
        settle: Callable[[], object] | None = None,
    ) -> None:
        self._get_session = get_session
        self._settle = settle
        self._get_spec = get_spec or (lambda: get_session().spec)
        self._get_title = get_title or (lambda: self._get_spec().name or "graph")
        # Counts typed in boxes read here (number_field.py): a count that is not a whole
        # number in range stays typed, the reason under it, and a run counts the last good one.
        self.refused = RefusedLine("ax-stats-refused")
        self.batches = NumberField(
            DEFAULT_BATCHES,
            description="batches",
            what="the number of batches",
            integer=True,
            low=1,
            high=MAX_BATCHES,
            width="180px",
            line=self.refused,
        )
        self.batches.box.add_class("ax-stats-batches")
        self.scope = widgets.Dropdown(
            options=SCOPES, value="batches", description="count", layout={"width": "360px"}
        )
        self.images = NumberField(
            DEFAULT_SAMPLE,
            description="N images",
            what="the number of images",
            integer=True,
            low=1,
            high=MAX_SAMPLE,
            width="200px",
            line=self.refused,
        )
        self.images.box.add_class("ax-stats-images")
        self.images.box.layout.display = "none"
        self.scope.observe(lambda _change: self._show_scope(), names="value")
        self.run_button = widgets.Button(description="Run statistics", icon="bar-chart")
        self.cancel_button = widgets.Button(description="Cancel", icon="stop", disabled=True)
        self.progress = widgets.IntProgress(value=0, min=0, max=1, layout={"width": "240px"})
        self.status = widgets.HTML("")
        self.status.add_class("ax-stats-status")
        # figures of another graph or data than the one shown: says so, above them
        self.stale = widgets.HTML("")
        self.stale.add_class("ax-stats-stale-line")
        self.report = widgets.HTML("")
        self.report.add_class("ax-stats-report")
        # Drawn for a light and for a dark page; the page's theme shows one (graph_view.css), so
        # switching themes after a run needs no redraw.
        self.plot, self.plot_dark = _plot_image("light"), _plot_image("dark")
        self._plots: dict[Theme, widgets.Image] = {"light": self.plot, "dark": self.plot_dark}
        self.run_button.on_click(lambda _button: self.start())
        self.cancel_button.on_click(lambda _button: self.cancel())
        controls = widgets.HBox(
            [
                self.scope,
                self.batches.box,
                self.images.box,
                self.run_button,
                self.cancel_button,
                self.progress,
            ]
        )
        controls.add_class("ax-tab-controls")  # wraps on a narrow page (graph_view.css)
        note = widgets.HTML(f"<span class='ax-muted'>{NOTE}</span>")
        super().__init__(
            [
                controls,
                self.refused,
                self.status,
                self.stale,
                self.report,
                self.plot,
                self.plot_dark,
                note,
            ]
        )
        self.add_class("ax-stats")
        self.stats: Stats | None = None
        self.thread: threading.Thread | None = None
        self._cancel = threading.Event()
        # the graph shown (and its data) when the run started, and what it was called
        self._counting: tuple[GraphSpec, Any, str] | None = None
        self._counted: tuple[GraphSpec, Any, str] | None = None  # ... of the figures shown
        self._followed: tuple[GraphSpec, Any] | None = None

    @property
    def running(self) -> bool:
        return self.thread is not None and self.thread.is_alive()

    def _show_scope(self) -> None:
        """The count a scope takes: batches for batches, N for a sample, none for all."""
        scope = self.scope.value
        for field, shown in ((self.batches, scope == "batches"), (self.images, scope == "sample")):
            field.box.layout.display = "" if shown else "none"
            if not shown:  # a box put away: what was refused in it goes, and why
                field.show(field.value)

    def start(self) -> None:
        """Start statistics over the current graph in a background thread (once at a time)."""
        if self.running:
            return
        if self._settle is not None:
            self._settle()
        session = self._get_session()
        if self._get_spec() != session.checked_spec:  # refused: the session runs another graph
            self.status.value = (
                "<span class='ax-error'>The graph shown does not run: fix the problems under "
                "Output, then count it (its figures would be those of another graph).</span>"
            )
            return
        # a snapshot, taken here: later edits change the session, never this run
        spec, arrays = session.plan.spec, session.arrays
        title = self._get_title()
        self._counting = (self._get_spec(), arrays, title)
        options: dict[str, Any] = {
            "device_id": session.device_id,
            "num_threads": session.num_threads,
            "name": title,
        }
        scope = str(self.scope.value)
        if scope == "batches":
            options["batches"] = int(self.batches.value)
        else:  # one process: the panel's, whatever a launcher left in the environment
            options.update(rank=0, world_size=1)
            if scope == "sample":
                options["sample"] = int(self.images.value)
        self._cancel = threading.Event()
        self.progress.max, self.progress.value = options.get("batches", 1), 0
        self.run_button.disabled, self.cancel_button.disabled = True, False
        self.status.value = "<span class='ax-muted'>running...</span>"
        self.thread = threading.Thread(
            target=self._work,
            args=(spec, arrays, scope, options),
            name="augexplorer-stats",
            daemon=True,
        )
        self.thread.start()

    def cancel(self) -> None:
        """Stop after the batch being counted; the figures so far are shown."""
        self._cancel.set()
        self.cancel_button.disabled = True

    def wait(self, timeout: float | None = None) -> None:
        if self.thread is not None:
            self.thread.join(timeout)

    def _work(self, spec: Any, arrays: Any, scope: str, options: dict[str, Any]) -> None:
        count = collect_stats if scope == "batches" else collect_stats_all
        try:
            stats = count(spec, arrays, progress=self._progress, cancel=self._cancel, **options)
        except AugExplorerError as error:
            self._finish(None, f"statistics failed: {error}")
        except Exception as error:  # never a traceback in the panel
            self._finish(None, f"statistics failed: {type(error).__name__}: {error}")
        else:
            self._finish(stats, None)

    def _progress(self, done: int, total: int) -> None:
        self.progress.max, self.progress.value = total, done

    def _finish(self, stats: Stats | None, failure: str | None) -> None:
        self.run_button.disabled, self.cancel_button.disabled = False, True
        if stats is None:
            self.status.value = f"<span class='ax-error'>{html.escape(failure or '')}</span>"
            return
        self.stats = stats
        self._counted, self._followed = self._counting, None
        self.follow()
        done = f"{stats.samples:,} samples in {stats.seconds:.1f} s"
        if stats.cancelled:
            done = f"cancelled after {stats.batches} of {stats.requested} batches: " + done
        self.status.value = f"<span class='ax-muted'>{html.escape(done)}</span>"
        self.report.value = report_html(stats)
        for theme, plot in self._plots.items():
            plot.value = _plot_png(stats, theme)
            plot.layout.display = "" if plot.value else "none"

    def follow(self) -> None:
        """The graph shown may have changed: figures counted on another graph or other data
        say so (cheap when nothing changed: the panel calls this on every redraw)."""
        if self._counted is None:
            return
        session = self._get_session()
        spec, arrays = self._get_spec(), session.arrays
        followed = self._followed
        if followed is not None and followed[1] is arrays and followed[0] == spec:
            return
        self._followed = (spec, arrays)
        self.stale.value = stale_line(self._counted, spec, arrays, self._get_title)


def stale_line(
    counted: tuple[GraphSpec, Any, str], spec: GraphSpec, arrays: Any, title: Callable[[], str]
) -> str:
    """The line over figures counted on `counted` (graph, arrays, title) while `spec` fed
    `arrays` is shown: "" where they are its figures."""
    old, old_arrays, old_title = counted
    other_data = Provenance.of(old, old_arrays).other_data(spec, arrays)
    changes = graph_changes(old, spec)
    if not changes and not other_data:
        return ""
    said = []
    if old.name != spec.name:
        said.append("another graph")
    elif changes and changes != "other data":
        said.append(f"an edit: {changes}")
    if other_data:
        said.append("other data")
    now = title()
    return (
        "<span class='ax-stats-stale'>Out of date: these figures are of "
        f"“{html.escape(old_title)}”, not of the graph shown (“{html.escape(now)}”: "
        f"{html.escape(', '.join(said))}). Run statistics again to count it.</span>"
    )


def _plot_image(theme: Theme) -> widgets.Image:
    # Hidden while empty: an Image with no picture shows the browser's broken-image icon.
    image = widgets.Image(format="png", layout={"max_width": "100%", "display": "none"})
    image.add_class(f"ax-plot-{theme}")
    return image


def _plot_png(stats: Stats, theme: Theme) -> bytes:
    try:
        return figure_png(stats_figure(stats, columns=PLOT_COLUMNS, theme=theme))
    except ImportError:  # matplotlib missing: the figures above still stand
        return b""


def report_html(stats: Stats) -> str:
    warnings = "".join(
        f"<li data-node='{html.escape(w.node)}'>{html.escape(str(w))}</li>" for w in stats.warnings
    )
    listed = (
        f"<ul class='ax-stats-warnings'>{warnings}</ul>"
        if warnings
        else "<div class='ax-muted'>no warnings</div>"
    )
    summary = stats.summary(warnings=False)  # listed above
    return f"{listed}<pre class='ax-stats-summary'>{html.escape(summary)}</pre>"
