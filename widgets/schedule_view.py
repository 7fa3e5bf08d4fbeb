"""The panel's training-run box: the run's length, the epoch previewed, a small plot of every
scheduled value over the run; and the editor that schedules a number of the selected node
(:attr:`ScheduleView.editor`, which the panel shows under the node's own controls).

Moving the epoch changes no seed: the grid then shows only what the schedules change. The plot
is inline SVG, one row per scheduled value (each on its own scale), the previewed epoch marked.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from dataclasses import dataclass

import ipywidgets as widgets

from augexplorer.schedules import epoch_count, held_value, schedulable, values_over_run
from augexplorer.spec import CURVES, GraphSpec, Schedule, ScheduleTarget
from augexplorer.spec.schema import MAX_EPOCHS

from .hover import describe
from .number_field import NumberField, RefusedLine

DEFAULT_EPOCHS = 90  # a run's length until the user says otherwise (a common ImageNet run)
PLOT_WIDTH, ROW_HEIGHT = 260, 34
PLOT_HEIGHT = ROW_HEIGHT - 12  # the line's height in its row, room left for the next name
CURVE_TIP = (
    "how the value moves over the run: linear or cosine from start to end between the begin "
    "and finish epochs; warmup rises over the first `finish` epochs; constant holds start"
)


@dataclass(frozen=True)
class ScheduleActions:
    """What the box asks of the panel: each call edits the graph or the epoch previewed."""

    set_epochs: Callable[[int], None]
    preview_epoch: Callable[[int], None]
    set_schedule: Callable[[str, Schedule | None], None]


class ScheduleView(widgets.VBox):
    def __init__(self, actions: ScheduleActions) -> None:
        self.actions = actions
        self._syncing = False
        self._spec: GraphSpec | None = None
        self._node: str | None = None
        # what the editor's fields were last filled from: a redraw that changes none of it
        # (another node edited, a new batch) leaves what the user typed in them
        self._filled_from: tuple[object, ...] | None = None
        # Number boxes read here (number_field.py), not BoundedIntText / FloatText: the page
        # turned "2.5" epochs into 25 and 0 into 1, and dropped what it could not read, unsaid.
        # What was typed and not applied stays in its box, the reason on a line under it.
        self.refused = RefusedLine("ax-schedule-refused")
        self.epochs = NumberField(
            DEFAULT_EPOCHS,
            description="epochs",
            tooltip="the training run's length, which schedules span",
            what="the number of epochs",
            integer=True,
            low=1,
            high=MAX_EPOCHS,
            width="150px",
            line=self.refused,
            on_value=self._epochs_typed,
        )
        self.epochs.box.add_class("ax-epochs")
        self.epoch = widgets.IntSlider(
            value=0,
            min=0,
            max=DEFAULT_EPOCHS - 1,
            description="epoch",
            continuous_update=False,
            layout={"width": "100%", "max_width": "330px"},
        )
        describe(self.epoch, "epoch", "the epoch previewed: the grid shows the batch it draws")
        self.epoch.add_class("ax-epoch")
        self.plot = widgets.HTML()
        self.plot.add_class("ax-schedule-plot")
        self.target = widgets.Dropdown(description="value", layout={"width": "330px"})
        describe(self.target, "value", "the number of the selected node to schedule")
        self.curve = widgets.Dropdown(
            options=[c for c in CURVES if c not in ("steps", "table")],
            value="linear",
            description="curve",
            layout={"width": "200px"},
        )
        describe(self.curve, "curve", CURVE_TIP)
        # The editor's numbers are taken by Schedule: a refused one leaves the last good one
        # in force there, as the line under them says.
        self.editor_refused = RefusedLine("ax-schedule-editor-refused")
        self.start = NumberField(
            0.0,
            description="start",
            what="the start value",
            width="160px",
            line=self.editor_refused,
        )
        self.end = NumberField(
            0.0,
            description="end",
            what="the end value",
            width="160px",
            line=self.editor_refused,
        )
        self.begin = NumberField(
            0,
            description="from",
            tooltip="the epoch the change begins at",
            what="the epoch “from”",
            integer=True,
            low=0,
            high=MAX_EPOCHS,
            width="160px",
            line=self.editor_refused,
        )
        self.finish = NumberField(
            0,
            description="to",
            tooltip="the epoch it reaches its end value (warmup: its length)",
            what="the epoch “to”",
            integer=True,
            low=0,
            high=MAX_EPOCHS,
            width="160px",
            line=self.editor_refused,
        )
        for field, hook in (
            (self.start, "ax-schedule-start"),
            (self.end, "ax-schedule-end"),
            (self.begin, "ax-schedule-begin"),
            (self.finish, "ax-schedule-finish"),
        ):
            field.box.add_class(hook)
        self.apply = widgets.Button(description="Schedule", button_style="primary")
        self.remove = widgets.Button(description="Remove schedule")
        self.note = widgets.HTML()
        self.editor = widgets.VBox(
            [
                widgets.HTML("<div class='ax-section-title'>Follow the run</div>"),
                self.target,
                widgets.HBox([self.curve]),
                widgets.HBox([self.start.box, self.end.box]),
                widgets.HBox([self.begin.box, self.finish.box]),
                self.editor_refused,
                widgets.HBox([self.apply, self.remove]),
                self.note,
            ]
        )
        # shown with the selected node's controls (the panel places it), where its numbers are
        self.editor.add_class("ax-schedule-editor")
        super().__init__([widgets.HBox([self.epochs.box]), self.refused, self.epoch, self.plot])
        self.add_class("ax-schedules")
        self.epoch.observe(self._epoch_moved, "value")
        self.target.observe(lambda _: self._fill_editor(), "value")
        self.apply.on_click(lambda _: self._schedule())
        self.remove.on_click(lambda _: self._unschedule())

    # ---- showing ------------------------------------------------------------------------------
    def show(self, spec: GraphSpec, selected: str | None, epoch: int) -> None:
        """Show `spec`'s run at `epoch`, the editor for node `selected`."""
        self._syncing = True
        try:
            self._spec = spec
            last = epoch_count(spec) - 1
            # the run's length shown where it changed; refused text typed over the same
            # length stays, with its reason, through a redraw for another edit
            self.epochs.follow(spec.epochs or DEFAULT_EPOCHS)
            self.epoch.max = max(last, 0)
            self.epoch.value = min(epoch, last)
            self.epoch.disabled = not spec.schedules
            self.plot.value = schedule_plot(spec, min(epoch, last))
            targets = schedulable(spec, selected) if selected else []
            if selected != self._node or [str(t) for t in targets] != list(self.target.options):
                self._node = selected
                self.target.options = [str(t) for t in targets]
                # a scheduled value first: what a user comes back to edit
                scheduled = [str(t) for t in targets if t in spec.schedules]
                first = scheduled or [str(t) for t in targets]
                self.target.value = first[0] if first else None
            self.editor.layout.display = "" if targets else "none"
            self._fill_editor()
        finally:
            self._syncing = False

    def _fill_editor(self) -> None:
        """The editor holds the chosen value's schedule, or a flat one at its current value."""
        spec, text = self._spec, self.target.value
        if spec is None or not text:
            return
        target = ScheduleTarget.parse(text)
        schedule = spec.schedules.get(target)
        filled_from = (target, schedule, held_value(spec, target), spec.epochs)
        if filled_from == self._filled_from:
            return
        self._filled_from = filled_from
        syncing, self._syncing = self._syncing, True
        try:
            if schedule is None or schedule.curve in ("steps", "table"):
                held = held_value(spec, target)
                value = 0.0 if held is None else held
                self.start.show(value)
                self.end.show(value)
                self.curve.value = "linear"
                self.begin.show(0)
                self.finish.show(max((spec.epochs or DEFAULT_EPOCHS) - 1, 0))
            else:
                self.curve.value = schedule.curve
                self.start.show(schedule.start)
                self.end.show(schedule.end)
                begin, finish = schedule.span(spec.epochs or DEFAULT_EPOCHS)
                self.begin.show(begin)
                self.finish.show(finish)
            self.remove.disabled = schedule is None
            self.note.value = (
                f"<span class='ax-muted'>{html.escape(schedule.describe())}</span>"
                if schedule is not None
                else ""
            )
        finally:
            self._syncing = syncing

    # ---- editing ------------------------------------------------------------------------------
    def edited_schedule(self) -> Schedule:
        """The schedule the editor's fields describe."""
        curve = self.curve.value
        if curve == "constant":
            return Schedule.constant(self.start.value)
        begin, finish = int(self.begin.value), int(self.finish.value)  # whole: read so
        if curve == "warmup":
            return Schedule.warmup(self.start.value, self.end.value, finish)
        kind = Schedule.cosine if curve == "cosine" else Schedule.linear
        return kind(self.start.value, self.end.value, begin=begin, finish=finish)

    def _schedule(self) -> None:
        if self.target.value:
            self.actions.set_schedule(self.target.value, self.edited_schedule())

    def _unschedule(self) -> None:
        if self.target.value:
            self.actions.set_schedule(self.target.value, None)

    def forget_typed(self) -> None:
        """Another graph came in (a preset, a file): text typed earlier that was not applied,
        and what was said about it, go; the next redraw fills the editor again."""
        self.epochs.show(self.epochs.value)
        self._filled_from = None

    def _epochs_typed(self, epochs: float) -> None:
        # a good number typed (one commit of the box: Enter or leaving it) is one edit
        if not self._syncing:
            self.actions.set_epochs(int(epochs))

    def _epoch_moved(self, change: dict[str, object]) -> None:
        if not self._syncing and isinstance(change["new"], int):
            self.actions.preview_epoch(change["new"])


def schedule_plot(spec: GraphSpec, epoch: int) -> str:
    """Inline SVG: a row per scheduled value over the run, each on its own scale, with its
    name, its range and its value at `epoch`, and a line at `epoch` across every row."""
    if not spec.schedules:
        # No "below" or "above": the editor sits with the selected node's controls, in another
        # place at each panel width, so it is named by its title instead.
        return (
            "<div class='ax-muted'>No value follows the run yet: select a node and schedule one "
            "of its numbers in its “Follow the run” box, under its arguments.</div>"
        )
    runs = values_over_run(spec)
    last = max(epoch_count(spec) - 1, 1)
    height = ROW_HEIGHT * len(runs)
    label_width = 110
    width = label_width + PLOT_WIDTH

    def x(at: int) -> float:
        return label_width + PLOT_WIDTH * at / last

    rows = []
    for row, (target, values) in enumerate(runs.items()):
        low, high = min(values), max(values)
        span = (high - low) or 1.0
        top = row * ROW_HEIGHT + 4

        def y(value: float, top: int = top, low: float = low, span: float = span) -> float:
            return top + PLOT_HEIGHT * (1 - (value - low) / span)

        points = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in enumerate(values))
        now = values[min(epoch, len(values) - 1)]
        name = html.escape(str(target))
        rows.append(
            f"<text x='0' y='{top + 10}' class='ax-plot-name'>{name}</text>"
            f"<text x='0' y='{top + 22}' class='ax-plot-range'>{low:.3g}..{high:.3g}</text>"
            f"<polyline points='{points}' class='ax-plot-line'/>"
            f"<circle cx='{x(epoch):.1f}' cy='{y(now):.1f}' r='3' class='ax-plot-now'>"
            f"<title>{name} = {now:.4g} at epoch {epoch}</title></circle>"
        )
    marker = (
        f"<line x1='{x(epoch):.1f}' x2='{x(epoch):.1f}' y1='0' y2='{height}' "
        "class='ax-plot-epoch'/>"
    )
    return (
        f"<svg class='ax-schedule-svg' style='max-width: {width}px' "
        f"viewBox='0 0 {width} {height}' role='img' "
        f"aria-label='scheduled values over {last + 1} epochs, epoch {epoch} marked'>"
        + marker
        + "".join(rows)
        + "</svg>"
    )
