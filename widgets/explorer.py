"""The notebook panel: composition of the views around one :class:`Controller`.

Every edit updates the graph at once and runs it (coalesced, so a dragged slider runs only its
latest value); errors show on the node and argument they concern while the last good grid stays.
"""

from __future__ import annotations

import html
import os
import warnings
from pathlib import Path
from typing import Any

import ipywidgets as widgets

from augexplorer.catalog import Catalog
from augexplorer.checks.annotated import needs_annotated_source
from augexplorer.engine import RunResult
from augexplorer.engine.warm_up import warm_conditionals_in_background
from augexplorer.errors import AugExplorerError
from augexplorer.schedules import SetUnderSchedule, at_epoch, epoch_count, set_under_schedule
from augexplorer.spec import ArgValue, GraphSpec, Schedule

from .autosave import Autosave
from .autosave_key import autosave_path
from .coalesce import Coalescer
from .compare_view import CompareView, images_for
from .data_notes import DataNotes
from .errors_view import ErrorsView
from .export_view import ExportView
from .file_errors import said_in_panel
from .fix_bar import FixBar
from .graph_view import GraphView
from .grid_view import GridView
from .node_panel import NodeActions, NodePanel
from .notice import Notice
from .op_picker import OpPicker
from .panel_keys import PanelKeys
from .port_door import load_for_panel, ported, summary_html
from .restore_banner import RestoreBanner
from .schedule_view import ScheduleActions, ScheduleView
from .session_open import open_session
from .source_switch import switched_source
from .state import Controller, PanelState
from .stats_view import StatsView
from .timing_view import TimingView, summary
from .toolbar import EDITED, REPLACE, RankRefused, Toolbar
from .variety import Variety


def _section(title: str, *children: widgets.Widget) -> widgets.VBox:
    box = widgets.VBox([widgets.HTML(f"<div class='ax-section-title'>{title}</div>"), *children])
    box.add_class("ax-column")
    return box


# How long the panel around the grid waits after a slider's edit: the grid's pictures cross the
# Jupyter server and reach the page first (25-40 ms on a busy two-core machine).
PANEL_SETTLE_S = 0.1
# How long the open Export tab waits from an edit before making the graph's code again (edits
# in that time join it): ~15 ms a module, formatting included, which a drag need not pay often.
CODE_SETTLE_S = 0.5


class Explorer(widgets.VBox):
    """Edit a DALI augmentation graph live: ``Explorer()`` (bundled samples, the basic preset) or
    ``Explorer("randaugment", data="path/to/folder")``, or a torchvision or albumentations
    pipeline ported: ``Explorer(port=train_transform)`` (the Compose object, read from its
    attributes without calling it) or ``Explorer(port="train.py")`` (read, never run).

    `autosave`: True (the default) autosaves to a file of this notebook's own under
    ``.augexplorer/``, so another notebook is never offered its graph; a name
    (``autosave="my-experiment"``) or a path picks the file; None turns autosave off.
    """

    def __init__(
        self,
        spec: GraphSpec | str | os.PathLike[str] | None = None,
        data: Any = None,
        *,
        batch_size: int | None = None,
        autosave: str | Path | bool | None = True,
        catalog: Catalog | None = None,
        port: Any = None,
    ) -> None:
        port_summary = None
        # what was ported (a live Compose or its file), for "compare with the original"
        self.original: Any = port
        if port is not None:  # a torchvision or albumentations Compose, or its file: ported
            result = ported(port)
            spec, port_summary = result.spec, summary_html(result)
        opened = open_session(spec, data, batch_size, catalog)
        session, unread = opened.session, opened.unread
        self.controller = Controller(session, autosave=Autosave(autosave_path(autosave)))
        if opened.refused is not None:
            self.controller.start_from(opened.refused)
        store = self.controller.autosave
        # the graph asked for, unreadable path included: an autosave of it is nothing to offer
        start = switched_source(session.spec, *unread) if unread else self.controller.state.spec
        offer = store.offer(start)
        if offer is None:
            self.controller.take_up_history(store.history_with(start))  # the same graph
            store.save(start)  # a damaged file was moved aside first: nothing is lost
        self.toolbar = Toolbar()
        if port_summary:
            self.toolbar.file_message.value = port_summary
        self.graph = GraphView()
        self.picker = OpPicker(session.catalog, self._add_op, self.controller.placement)
        self.node_panel = NodePanel(session.catalog, self._node_actions())
        self.errors = ErrorsView()
        self.fixes = FixBar(
            skip_bad=lambda: self._now(lambda: self.controller.set_skip_bad(True)),
            move_after_decoder=lambda node: self._now(
                lambda: self.controller.move_after_decoder(node)
            ),
            use_annotated_source=lambda: self._now(self.controller.use_annotated_source),
        )
        self.data_notes = DataNotes(on_bad_found=lambda: self._now(self.controller.run))
        self.schedules = ScheduleView(
            ScheduleActions(
                set_epochs=lambda n: self._later(lambda: self.controller.set_epochs(n)),
                preview_epoch=lambda e: self._now(lambda: self.controller.preview_epoch(e)),
                set_schedule=lambda t, s: self._now(lambda: self.controller.set_schedule(t, s)),
            )
        )
        self.variety = Variety(session.catalog)
        self.grid = GridView(self.variety)
        self.grid.on_carry = lambda node, kind: self._now(
            lambda: self.controller.carry_annotations(node, kind)
        )
        self.timing = TimingView()
        self.export_view = ExportView(
            lambda: self.controller.state.spec, self._run_failure, self._training_problem
        )
        self.stats_view = StatsView(
            lambda: self.controller.session,
            lambda: self.controller.state.spec,
            self.graph_title,
            settle=self.flush,
        )
        self.compare_view = CompareView(
            lambda: self.original,
            lambda: self.controller.state.spec,
            lambda count: images_for(self.controller.session, count),
        )
        self.banner = RestoreBanner(
            offer, store.damage, self._restore_autosave, self._keep_graph, current=start
        )
        self.notice = Notice(self.undo)
        self._coalescer = Coalescer(self._flush, at_once=True)
        # After a slider's edit the grid goes out alone; the rest of the panel follows once it
        # settles, so that its messages do not compete with the pictures' on their way.
        self._panel = Coalescer(self._draw_panel_later, delay_s=0.08, settle_s=PANEL_SETTLE_S)
        self._code = Coalescer(
            self.export_view.refresh, delay_s=CODE_SETTLE_S, settle_s=CODE_SETTLE_S
        )
        self._syncing = False
        self._wire()
        tabs = widgets.Tab([self.timing, self.export_view, self.stats_view, self.compare_view])
        tabs.set_title(0, "Timing")
        tabs.set_title(1, "Export")
        tabs.set_title(2, "Statistics")
        tabs.set_title(3, "Compare")
        tabs.add_class("ax-tabs")
        self.tabs = tabs
        tabs.observe(lambda ch: self.export_view.set_visible(ch["new"] == 1), "selected_index")
        graph = _section("Graph", self.graph)
        node = _section("Selected node", self.node_panel, self.schedules.editor)
        node.add_class("ax-node-section")
        adding = _section("Add operator", self.picker)
        run = _section("Training run", self.schedules)
        # The images come first: the editing column keeps a fixed width and the output takes
        # the rest; on a narrow page the output wraps below, at full width. The selected node's
        # controls sit right under the graph, where the click that selected it was.
        editing = widgets.VBox(
            [graph, node, adding, run], layout={"flex": "0 0 400px", "width": "400px"}
        )
        editing.add_class("ax-editing")
        self.editing = editing
        output = _section("Output", self.errors, self.fixes, self.data_notes, self.grid)
        output.layout = widgets.Layout(flex="1 1 420px", min_width="0")
        output.add_class("ax-output")
        body = widgets.HBox([editing, output], layout={"align_items": "flex-start"})
        body.add_class("ax-body")
        # Ctrl+Z / Ctrl+Shift+Z in the panel, as the toolbar's undo and redo buttons
        self.panel_keys = PanelKeys(
            lambda: self._now(self.controller.undo), lambda: self._now(self.controller.redo)
        )
        super().__init__([self.toolbar, self.banner, self.notice, body, tabs, self.panel_keys])
        self.add_class("ax-explorer")
        if unread is not None:
            self.controller.set_source(*unread)  # fails: the failure is shown, not raised
        self._render(self.controller.refresh())
        # The first "apply with probability" of a process waits on DALI's AutoGraph converting
        # the builder (1.4-3.5 s on two cores): done now, off the edit's path, once the grid shows.
        warm_conditionals_in_background()

    # ---- public API (runs at once; the UI coalesces) ------------------------------------------
    @property
    def spec(self) -> GraphSpec:
        return self.controller.state.spec

    @property
    def result(self) -> RunResult | None:
        return self.controller.state.result

    @property
    def state(self) -> PanelState:
        return self.controller.state

    def __repr__(self) -> str:
        # what a page that renders no widgets shows (GitHub, nbconvert without widget state):
        # one line, not ipywidgets' tree of the panel's children
        spec = self.controller.state.spec
        # (ipywidgets cuts a text at 110 characters)
        return (
            f"Explorer: the {self.graph_title()!r} graph, {len(spec.operators())} nodes, batch "
            f"{spec.batch_size} (its panel shows where widgets run)"
        )

    def graph_title(self) -> str:
        """The graph's name as the panel says it: a preset with edits is "basic, edited"."""
        name = self.controller.state.spec.name or "graph"
        return f"{name}, edited" if self.controller.preset_edited else name

    def set_arg(self, node: str, arg: str, value: ArgValue) -> PanelState:
        """Set argument `arg` of `node`; where a schedule drives it, a warning says that the
        schedule's value is what each epoch draws with (the panel's control says so itself)."""
        note = set_under_schedule(self.controller.state.spec, node, arg, value)
        if note is not None:
            warnings.warn(SetUnderSchedule(note), stacklevel=2)
        return self._render(self.controller.set_arg(node, arg, value))

    def select(self, node: str | None) -> PanelState:
        return self._render(self.controller.select(node))

    def add(self, op: str, after: str | None = None) -> PanelState:
        return self._render(self.controller.add_op(op, after))

    def rename(self, node: str, new_id: str) -> PanelState:
        return self._render(self.controller.rename(node, new_id))

    def set_schedule(self, target: str, schedule: Schedule | None) -> PanelState:
        """Make a number follow the run: ``set_schedule("rotate.angle.high",
        Schedule.linear(5, 30))``; None makes it a plain value again."""
        return self._render(self.controller.set_schedule(target, schedule))

    def set_epoch(self, epoch: int) -> PanelState:
        """Preview epoch `epoch` of the run (the schedules' values there, the same seeds)."""
        return self._render(self.controller.preview_epoch(epoch))

    def trust(self, node: str | None = None) -> PanelState:
        """Trust the Python code of `node` (every node's when None), after reading it, and run."""
        return self._render(self.controller.trust(node))

    def undo(self) -> PanelState:
        return self._render(self.controller.undo())

    def redo(self) -> PanelState:
        return self._render(self.controller.redo())

    def flush(self) -> PanelState:
        """Run whatever edits are waiting (they normally run a moment after the last one)."""
        self._coalescer.flush()
        self._panel.flush()
        self.timing.draw()
        self._code.flush()
        self.controller.autosave.flush()
        return self.controller.state

    # ---- wiring -----------------------------------------------------------------------------
    def _node_actions(self) -> NodeActions:
        c = self.controller
        return NodeActions(
            set_arg=lambda n, a, v: self._later(lambda: c.set_arg(n, a, v, run=False)),
            unset_arg=lambda n, a: self._later(lambda: c.unset_arg(n, a) and None),
            set_device=lambda n, d: self._now(lambda: c.set_device(n, d)),  # type: ignore[arg-type]
            set_probability=lambda n, p: self._later(lambda: c.set_probability(n, p, run=False)),
            rewire=lambda n, i, r: self._now(lambda: c.rewire(n, i, r)),
            move=lambda n, o: self._now(lambda: c.move(n, o)),
            duplicate=lambda n: self._now(lambda: c.duplicate(n)),
            remove=lambda n: self._now(lambda: c.remove(n)),
            rename=self._rename,
            trust=lambda n: self._now(lambda: c.trust(n)),
            move_after_decoder=lambda n: self._now(lambda: c.move_after_decoder(n)),
            set_skip_bad=lambda skip: self._now(lambda: c.set_skip_bad(skip)),
            select=lambda n: self._now(lambda: c.select(n)),
            chosen=c.chosen,
            random_before=c.random_before,
        )

    def _rename(self, node: str, new_id: str) -> str | None:
        if self._syncing:
            return None
        try:
            state = self.controller.rename(node, new_id)
        except (ValueError, KeyError) as error:
            return str(error.args[0]) if isinstance(error, KeyError) else str(error)
        self._render(state)
        return None

    def _wire(self) -> None:
        t, c = self.toolbar, self.controller
        t.run.on_click(lambda _: self._now(c.run))
        t.reroll.on_click(lambda _: self._now(c.reroll))
        t.next_batch.on_click(lambda _: self._now(c.next_batch))
        t.undo.on_click(lambda _: self._now(c.undo))
        t.redo.on_click(lambda _: self._now(c.redo))
        t.history.observe(lambda ch: self._now(lambda: c.go_to_step(ch["new"])), "value")
        t.save.on_click(lambda _: self._save())
        t.load.on_click(lambda _: self._load())
        t.seed_lock.observe(lambda ch: c.set_seed_locked(ch["new"]), "value")
        t.preset.observe(self._preset_picked, "value")
        t.rank.observe(lambda _: self._preview_rank(), "value")
        t.world.observe(lambda _: self._preview_rank(), "value")
        t.source.observe(self._source_picked, "value")
        t.path.observe(lambda ch: self._source_picked(), "value")
        t.file_root.observe(lambda ch: self._source_picked(), "value")
        t.batch.observe(self._batch_changed, "value")
        self.graph.observe(self._node_clicked, "selected")

    def _later(self, stage: Any) -> None:
        """Record an edit now; run it (with any that follow at once) a moment later."""
        if self._syncing:
            return
        try:
            stage()
        except (AugExplorerError, ValueError, KeyError) as error:
            self._say(str(error))
            return
        self._coalescer.request()

    def _now(self, action: Any) -> None:
        if self._syncing:
            return
        self.timing.expect()
        rendered = False
        try:
            try:
                state = action()
            except (AugExplorerError, ValueError, KeyError) as error:
                self._say(str(error))
                self._show_graph_in_toolbar()  # a preset or source picked and refused: not shown
                return
            self._render(state if isinstance(state, PanelState) else self.controller.state)
            rendered = True
        finally:
            if not rendered:  # nothing new shown (refused, or failed): the chart stands
                self.timing.show(self.controller.state.result)

    def _flush(self) -> None:
        self.timing.expect()
        self._redraw_grid(self.controller.refresh())
        self._panel.request()

    def _add_op(self, op: str) -> str:
        """Add `op`; what adding it had to say (companions wired, annotations that no longer
        match) comes back for the picker to show."""
        self.controller.last_note = ""
        self._now(lambda: self.controller.add_op(op))
        return self.controller.last_note

    def _node_clicked(self, change: dict[str, Any]) -> None:
        if not self._syncing:
            self._render(self.controller.select(change["new"] or None))

    def _preset_picked(self, change: dict[str, Any]) -> None:
        name = change["new"]
        if name and name != EDITED and not self._syncing:
            self._replace(lambda: self.controller.pick_preset(name), f"the preset “{name}”")
            self._compare_with(None)  # a preset is no port of the pipeline given

    def _replace(self, action: Any, what: str) -> None:
        """Run `action`, which swaps the whole graph; an edited graph it replaced is announced
        with an Undo button, so no work goes without a word."""
        old = self.controller.state.spec
        edited = self.controller.edited
        self.grid.forget_typed()  # what was said of a size typed for the old graph goes too
        self.schedules.forget_typed()
        self._now(action)
        new = self.controller.state.spec
        if new is not old:  # text typed for the replaced graph's arguments goes too
            self.node_panel.forget_typed()
        if new is not old and "ax-errors" in self.toolbar.file_message.value:
            self.toolbar.file_message.value = ""  # a save refused for the graph replaced
        if edited and new is not old and new != old:
            self.notice.show(f"Replaced your edited graph “{old.name}” with {what}.", new)

    def _source_picked(self, change: Any = None) -> None:
        t = self.toolbar
        kind = t.source.value
        t.show_source_fields(kind)
        picked = isinstance(change, dict) and change.get("owner") is t.source
        if picked and not self._syncing and {"coco", "yolo"} & {change["old"], change["new"]}:
            # A folder is no annotations file, nor the reverse: the path starts empty.
            self._syncing = True
            try:
                t.path.value = ""
                t.file_root.value = ""
            finally:
                self._syncing = False
        # The bundled samples and the bundled annotated samples need no path.
        if self._syncing or (kind not in ("samples", "coco") and not t.path.value.strip()):
            return
        path = t.path.value.strip() or None
        root = t.file_root.value.strip() or None if kind == "coco" else None
        self._now(lambda: self.controller.set_source(kind, path, root))

    def _batch_changed(self, _: Any) -> None:
        if self._syncing:
            return
        try:
            size = self.toolbar.read_batch()
        except ValueError as error:  # the text stays typed, with the reason beside it
            self.toolbar.say_batch(str(error), self.controller.state.spec.batch_size)
            return
        self.toolbar.say_batch(None)
        self._later(lambda: self.controller.set_batch_size(size, run=False))

    def _save(self) -> None:
        t = self.toolbar
        try:
            path = self.controller.save(t.spec_path.value, overwrite=t.overwrite.value)
            t.file_message.value = f"<span class='ax-muted'>saved {html.escape(str(path))}</span>"
        except (AugExplorerError, OSError) as error:
            said = said_in_panel(error, REPLACE)
            t.file_message.value = f"<span class='ax-errors'>{html.escape(said)}</span>"

    def _preview_rank(self) -> None:
        """Show what the torchrun process typed in the toolbar gets (not part of the graph)."""
        try:
            rank, world_size = self.toolbar.read_rank()
        except RankRefused as refused:  # the text stays typed, the reason under the bar
            session = self.controller.session
            self.toolbar.say_rank(refused, session.rank, session.world_size)
            return
        self.toolbar.say_rank(None)
        self._now(lambda: self.controller.preview_rank(rank, world_size))

    def _load(self) -> None:
        t = self.toolbar
        path = t.spec_path.value
        try:
            spec, port_summary, said = load_for_panel(path)
        except (AugExplorerError, OSError) as error:
            t.file_message.value = f"<span class='ax-errors'>{html.escape(str(error))}</span>"
            return
        label = f"loaded {Path(path).name}"  # the history names the file, not the graph
        self._replace(
            lambda: self.controller.replace(spec, label, from_file=True), f"the file {path}"
        )
        # a pipeline file is the original to compare with from now on; any other graph has none
        self._compare_with(path if port_summary else None)
        t.file_message.value = port_summary or (
            f"<span class='ax-muted'>loaded {html.escape(path)}</span>"
            + (f" · <span class='ax-errors'>{html.escape(said)}</span>" if said else "")
        )

    def _compare_with(self, original: Any) -> None:
        self.original = original
        self.compare_view.refresh()

    def _run_failure(self) -> str | None:
        """What fails when the graph runs here now (a DALI error, data that cannot be read)."""
        failure = self.controller.state.failure
        if failure is None or failure.kind not in ("run", "data"):
            return None
        return "; ".join(failure.lines())

    def _training_problem(self) -> str | None:
        """What training's loader would fail on in the batch shown (images of several shapes)."""
        result = self.controller.state.result
        return result.shapes_differ() if result is not None else None

    def _show_graph_in_toolbar(self) -> None:
        """The toolbar's preset, source and batch back to the graph on screen, quietly."""
        state = self.controller.state
        self._syncing = True
        try:
            self.toolbar.show(state.spec, state.history, edited=self.controller.preset_edited)
        finally:
            self._syncing = False

    def _say(self, text: str) -> None:
        self.toolbar.status.value = f"<span class='ax-errors'>{html.escape(text)}</span>"

    # ---- autosave offer ---------------------------------------------------------------------
    def _restore_autosave(self, spec: GraphSpec) -> None:
        store = self.controller.autosave
        store.accept()  # the offered file holds this graph: no copy needed
        self._now(lambda: self.controller.restore(spec, store.history_with(spec)))

    def _keep_graph(self) -> None:
        store = self.controller.autosave
        store.save(self.controller.state.spec)
        if store.kept_offer is not None:
            self.toolbar.file_message.value = (
                f"<span class='ax-muted'>the autosaved graph you did not restore is kept as "
                f"{html.escape(str(store.kept_offer))}</span>"
            )

    # ---- drawing ----------------------------------------------------------------------------
    def _render(self, state: PanelState) -> PanelState:
        # The grid goes out first: it is what the user waits for after moving a slider.
        self._redraw_grid(state)
        self._panel.cancel()
        self._draw_panel(state)
        return state

    def _draw_panel_later(self) -> None:
        self._draw_panel(self.controller.state)

    def _draw_panel(self, state: PanelState) -> None:
        """Everything around the grid: graph, selected node, toolbar, picker, notes, status."""
        self._syncing = True
        try:
            # as the previewed epoch draws it: scheduled values at that epoch
            epoch = min(self.controller.epoch, epoch_count(state.spec) - 1)
            shown = at_epoch(state.spec, epoch, self.controller.catalog)
            self.graph.show(shown, state.result, state.failure)
            self.graph.selected = state.selected or ""
            self.node_panel.show(state.spec, state.selected, state.failure)
            # The layout for a selected node (graph_view.css) keys on a class, not on a `:has()`
            # rule: that rule restyled the whole column (~770 elements, 12-15 ms) on each key
            # press of a slider in it.
            editing = self.node_panel.shows_node
            (self.editing.add_class if editing else self.editing.remove_class)("ax-editing-node")
            self.schedules.show(state.spec, state.selected, self.controller.epoch)
            self.errors.show(
                state.failure,
                shown=state.result is not None,
                other_graph=self.controller.other_graphs_result,
            )
            self._show_fixes(state)
            self.data_notes.show(state.result)
            self.toolbar.undo.disabled = not state.can_undo
            self.toolbar.redo.disabled = not state.can_redo
            self.toolbar.show(state.spec, state.history, edited=self.controller.preset_edited)
            self.picker.show(*self.controller.insertion_point())
            self.export_view.follow()
            self.export_view.graph_changed()
            self.stats_view.follow()
        finally:
            self._syncing = False
        self.notice.follow(state.spec)
        self._status(state)

    def _show_fixes(self, state: PanelState) -> None:
        if state.failure is None:
            self.fixes.show(None, False, {})
            return
        sources = state.spec.sources()
        c = self.controller
        moves = {node: c.decoder_for(node) for node in c.misplaced()}
        self.fixes.show(
            state.failure,
            skipping=bool(sources) and sources[0].skip_bad,
            misplaced={node: decoder for node, decoder in moves.items() if decoder},
            needs_annotations=needs_annotated_source(state.spec),
        )

    def _redraw_grid(self, state: PanelState | None = None) -> None:
        state = state or self.controller.state
        try:
            self.grid.show(state.result, state.selected, state.before, state.failure)
        except Exception as error:  # a picture that cannot be drawn must not break editing
            self.grid.note.value = f"<span class='ax-errors'>{html.escape(str(error))}</span>"
        # The timing chart, marked pending as the edit began to run, is drawn once edits rest.
        self.timing.show(state.result)

    def _status(self, state: PanelState) -> None:
        result = state.result
        if self.export_view.visible:
            self._code.request()
        if result is None:
            self.toolbar.status.value = ""
            return
        total, rate = summary(result)
        ran = len(result.ran())
        note = " · <span class='ax-errors'>graph has problems</span>" if state.failure else ""
        autosave = self.controller.autosave.last_error
        if autosave:
            note += f" · <span class='ax-errors'>{html.escape(autosave)}</span>"
        # each operator timed alone: the summed time bounds the batch's from above, its rate
        # from below (the Timing tab says it in words)
        self.toolbar.status.value = (
            f"ran {ran}/{len(result.steps)} steps · <span title='each operator timed alone: at "
            f"most this long, at least this fast'>≤{total:.0f} ms/batch · ≥{rate:.0f} img/s"
            f"</span>{note}"
        )
