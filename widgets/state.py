"""The panel's controller, free of any UI: a live Session, the undo history and autosave.

Every user action is a method that returns the new :class:`PanelState`. The views only draw
states; the browser-free unit tests drive this class directly.
"""

from __future__ import annotations

import dataclasses
import keyword
import random as _random
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from augexplorer.annotations.carry import carry
from augexplorer.annotations.drawable import carry_all, overlay_states
from augexplorer.annotations.wiring import add_operator, placement
from augexplorer.catalog import ArgInfo, Catalog, OpInfo
from augexplorer.catalog.flow import (
    Placement,
    decoder_downstream,
    flow,
    input_problems,
    relocated,
    size_needed_after,
)
from augexplorer.catalog.hints import starting_values
from augexplorer.checks.annotated import ANNOTATED_KIND
from augexplorer.engine import RunResult, Session
from augexplorer.presets import PRESETS, preset, preset_on
from augexplorer.spec import (
    ArgValue,
    Device,
    GraphSpec,
    Node,
    Probability,
    Random,
    Ref,
    Schedule,
    Source,
    load,
    save,
)
from augexplorer.trust import trust_graph, untrusted_nodes
from augexplorer.validate import RESERVED_IDS

from .autosave import Autosave
from .failure import Failure
from .history import History, Record, Step
from .preset_source import BUNDLED_READINGS, source_for_preset
from .schedule_view import DEFAULT_EPOCHS
from .snapshot import Snapshot, take_snapshot
from .source_switch import switched_source


@dataclass(frozen=True)
class PanelState:
    spec: GraphSpec  # the user's graph, kept even when it is invalid
    result: RunResult | None  # the last good result
    failure: Failure | None
    selected: str | None
    can_undo: bool
    can_redo: bool
    seed_locked: bool
    history: tuple[Step, ...]  # what each step of the undo history did
    before: Snapshot | None  # node outputs before the current edit (A/B view)

    @property
    def ok(self) -> bool:
        return self.failure is None


class Controller:
    def __init__(
        self,
        session: Session,
        *,
        autosave: Autosave | None = None,
        rng_seed: int | None = None,
    ) -> None:
        self.session = session
        self.catalog: Catalog = session.catalog
        self.autosave = autosave or Autosave(None)
        self.history = History(session.spec)
        self.autosave.keep_history(self.history.record)  # undo survives a kernel restart
        self._spec = session.spec
        self._base = session.spec  # the graph as started, picked or loaded, before any edit
        self._failure: Failure | None = None
        self._selected: str | None = None
        self._seed_locked = True
        self._dirty = session.result is None
        # Which graph the session's result is of, as the history numbers graphs (a preset
        # picked, a file loaded is another; an autosave of the same graph restored is the same
        # graph), so that a failing new graph never shows the old graph's pictures as its "last
        # good result", whether it came by a pick or by undo and redo across one.
        self._result_graph = self.history.graph if session.result is not None else -1
        self._before: Snapshot | None = None
        self._new_entry = False
        # Arguments the user set in this panel (node, argument): a value set here is chosen,
        # even where it equals an operator's curated starting value (the panel's mark).
        self._chosen: set[tuple[str, str]] = set()
        self._rng = _random.Random(rng_seed)
        self._insertion: tuple[object, str] | None = None  # the last insertion point worked out
        self.last_note = ""  # what adding the last operator had to say (companions, mismatches)

    def start_from(self, spec: GraphSpec) -> None:
        """Open on `spec`, which the session could not open (it does not validate): it is the
        graph on screen, the first step of the undo history and what autosave keeps; the next
        refresh fails on it, showing its problems, and the session's stand-in graph is never
        shown as its result."""
        self.history.reset(spec)
        self._spec = self._base = spec
        self.session.spec = spec
        self._dirty = True

    # ---- state ------------------------------------------------------------------------------
    @property
    def state(self) -> PanelState:
        return PanelState(
            spec=self._spec,
            result=self.session.result if self.result_is_current_graphs else None,
            failure=self._failure,
            selected=self._selected if self._selected in self._spec else None,
            can_undo=self.history.can_undo,
            can_redo=self.history.can_redo,
            seed_locked=self._seed_locked,
            history=tuple(self.history.steps()),
            before=self._before,
        )

    @property
    def result_is_current_graphs(self) -> bool:
        """Whether the session's last good result was run for this graph (before some of its
        edits, maybe), not for the graph a preset or a file replaced."""
        return self.session.result is not None and self._result_graph == self.history.graph

    @property
    def other_graphs_result(self) -> bool:
        """Whether a good result exists but is another graph's (not shown: see ``state``)."""
        return self.session.result is not None and not self.result_is_current_graphs

    @property
    def edited(self) -> bool:
        """Whether the graph holds edits made since it was started, picked or loaded."""
        return self._spec != self._base

    @property
    def pending(self) -> bool:
        """Whether the graph changed since the last run."""
        return self._dirty

    def refresh(self) -> PanelState:
        """Run the latest graph if it changed (the coalesced step after rapid edits)."""
        if not self._dirty:
            return self.state
        self._dirty = False
        return self._run(lambda: self.session.update(self._spec))

    def run(self) -> PanelState:
        """Run again, whatever changed (the Run button)."""
        self._dirty = False
        return self._run(lambda: self.session.update(self._spec))

    def _run(self, action: Any) -> PanelState:
        previous = self.session.result
        if self._new_entry and previous is not None:
            self._before = take_snapshot(previous, self._selected)
        self._new_entry = False
        try:
            action()
            # A preview of another rank or epoch runs the last graph that validated: while the
            # graph on screen is refused, its failure stays, and a stand-in's result (the graph
            # the panel opened on, start_from) is never taken for the user's.
            if self.session.checked_spec == self._spec:
                self._failure = None
                self._result_graph = self.history.graph
        except Exception as error:  # shown on the node; the last good grid stays
            source = self._spec.sources()[0].id if self._spec.sources() else None
            self._failure = Failure.from_exception(error, source)
        return self.state

    # ---- edits ------------------------------------------------------------------------------
    def edit(
        self,
        spec: GraphSpec,
        *,
        merge_key: str | None = None,
        run: bool = True,
        label: str = "edit",
        new_graph: bool = False,
    ) -> PanelState:
        """Make `spec` the user's graph: recorded for undo (as `label`: what the step did;
        `new_graph`: another graph, not an edit of this one), autosaved, then run (unless `run`
        is False: the caller coalesces rapid edits and calls :meth:`refresh` once)."""
        if not self._seed_locked:
            spec = self.reseeded(spec)
        before = len(self.history), self.history.can_redo
        self.history.push(spec, merge_key, label, new_graph=new_graph)
        if (len(self.history), self.history.can_redo) != before or merge_key is None:
            self._new_entry = True
        return self._set(spec, run)

    def _set(self, spec: GraphSpec, run: bool) -> PanelState:
        self._spec = spec
        self._dirty = True
        if run:
            self.autosave.save(spec)
            return self.refresh()
        # coalesced edits (a slider's steps) save a moment later, not between step and pictures
        self.autosave.save_soon(spec)
        return self.state

    def set_arg(self, node: str, arg: str, value: ArgValue, *, run: bool = True) -> PanelState:
        # One slider drag is one undo step; switching to or from a distribution is its own step.
        old = self._spec.node(node).args.get(arg)
        self._chosen.add((node, arg))
        kind = _kind(value)
        merge_key = f"{node}.{arg}:{kind}" if old is not None and _kind(old) == kind else None
        return self.edit(
            self._spec.set_arg(node, arg, value),
            merge_key=merge_key,
            run=run,
            label=f"{node}.{arg} {_shown(value)}",
        )

    def chosen(self, node: str) -> frozenset[str]:
        """The arguments of `node` the user has set in this panel."""
        return frozenset(arg for at, arg in self._chosen if at == node)

    def random_before(self, node: str, arg: str) -> Random | None:
        """The distribution argument `arg` of `node` held before "random" was switched off,
        read back from the undo history: switching it on again brings that range back (it
        made a new one around the middle value, losing U(-35, 20) for U(-26, 11)). None where
        the argument is not a constant, or the constant is no longer the one switching off
        gave (the user set another: a range around it is wanted then)."""
        now = self._arg_of(self._spec, node, arg)
        if now is None or isinstance(now, (Random, Ref)):
            return None
        for spec in self.history.earlier_of_this_graph():  # never another graph's range
            earlier = self._arg_of(spec, node, arg)
            if earlier != now:
                return earlier if isinstance(earlier, Random) else None
        return None

    @staticmethod
    def _arg_of(spec: GraphSpec, node: str, arg: str) -> ArgValue | None:
        if node not in spec:
            return None
        found = spec.node(node)
        return found.args.get(arg) if isinstance(found, Node) else None

    def unset_arg(self, node: str, arg: str) -> PanelState:
        return self.edit(self._spec.unset_arg(node, arg), label=f"{node}.{arg} back to default")

    def set_device(self, node: str, device: Device | None) -> PanelState:
        return self.edit(
            self._spec.set_device(node, device), label=f"{node} on {device or 'auto'} device"
        )

    def set_probability(self, node: str, p: float | None, *, run: bool = True) -> PanelState:
        current = self._spec.node(node)
        seed = current.probability.seed if current.probability is not None else None
        probability = None if p is None else Probability(float(p), seed)
        what = "always applied" if p is None else f"applied with p = {float(p):g}"
        # as set_arg's: one slider drag is one step, switching apply on or off its own step
        # (ticked, then a probability typed: undo takes back the typing first)
        moved = p is not None and current.probability is not None
        return self.edit(
            self._spec.set_probability(node, probability),
            merge_key=f"{node}.apply" if moved else None,
            run=run,
            label=f"{node} {what}",
        )

    def placement(self, op_name: str, after: str | None = None) -> Placement:
        """Where `op_name` would go if added now at `after` (default: the selected node), or why
        it cannot go there."""
        spec = self._spec
        anchor = after or self._selected
        info = self.catalog.get(op_name)
        if info is None:
            return placement(spec, self.catalog, op_name, anchor)
        found = placement(spec, self.catalog, op_name, anchor)
        if not found.ok or found.anchor is None:
            return found
        # the check again with the arguments the node will start with
        args = self._starting_args(info, found.anchor)
        return placement(spec, self.catalog, op_name, anchor, args)

    def add_op(self, op_name: str, after: str | None = None) -> PanelState:
        """Insert a new operator after `after` (the selected node, else the image output); an
        image operator asked for after the source goes after its decoder. Raises ValueError
        saying why when the operator cannot read what flows there, or would break a node after
        it."""
        info = self.catalog.get(op_name)
        if info is None:
            raise KeyError(f"no operator {op_name!r} in the catalog")
        if not info.available:
            raise ValueError(f"{op_name} cannot run here: {info.unavailable_reason}")
        where = self.placement(op_name, after)
        if not where.ok:
            raise ValueError(f"cannot add {op_name} there: {where.reason}")
        # on an annotated graph, the operators that move boxes and masks with it come too
        args = self._starting_args(info, where.anchor)
        added = add_operator(self._spec, self.catalog, op_name, where.anchor, args)
        label = f"added {added.node_id}"
        if where.anchor is not None:
            label += f" after {where.anchor}"
        if added.added:
            label += f" with {', '.join(added.added)}"
        self._selected = added.node_id
        self.last_note = added.note
        return self.edit(added.spec, label=label)

    def _starting_args(self, info: OpInfo, anchor: str | None) -> dict[str, ArgValue]:
        if anchor is None or anchor not in self._spec:
            return starting_args(info)
        layout = flow(self._spec, self.catalog)[anchor].layout
        return starting_args(info, layout, size_needed_after(self._spec, anchor))

    def misplaced(self) -> dict[str, str]:
        """Nodes that cannot read what they are given, with the reason."""
        return input_problems(self._spec, self.catalog)

    def decoder_for(self, node: str) -> str | None:
        """The decoder a misplaced image operator could move after (see
        :func:`~augexplorer.catalog.flow.decoder_downstream`)."""
        return decoder_downstream(self._spec, self.catalog, node)

    def insertion_point(self) -> tuple[object, str]:
        """What the picker's list depends on (the graph's structure and the selection), and a
        line saying where a new operator goes."""
        spec = self._spec
        anchor = self._selected if self._selected in spec else None
        key = (anchor, tuple(_structure(node) for node in spec.nodes))
        if self._insertion is not None and self._insertion[0] == key:
            return self._insertion  # an argument edit (a slider drag) changes nothing here
        self._insertion = key, self._insertion_line(spec, anchor)
        return self._insertion

    def _insertion_line(self, spec: GraphSpec, anchor: str | None) -> str:
        final = spec.final_output()
        target = anchor or (final.node if final is not None else None)
        if target is None:
            return "Adds a node of its own"
        data = flow(spec, self.catalog).get(target)
        shown = f" ({data.describe()})" if data is not None else ""
        which = "the selected node" if anchor else "the image output"
        return f"Adds after {target}, {which}{shown}"

    def move_after_decoder(self, node: str) -> PanelState:
        """The fix for an image operator reading encoded files: move it after the decoder."""
        decoder = self.decoder_for(node)
        if decoder is None:
            raise ValueError(f"{node} does not read encoded files, or no decoder reads them")
        return self.edit(
            relocated(self._spec, node, decoder), label=f"moved {node} after {decoder}"
        )

    def remove(self, node: str) -> PanelState:
        inputs = self._spec.node(node).inputs
        if self._selected == node:
            self._selected = inputs[0].node if inputs else None
        return self.edit(self._spec.remove(node), label=f"removed {node}")

    def move(self, node: str, offset: int) -> PanelState:
        direction = "up" if offset < 0 else "down"
        return self.edit(self._spec.move(node, offset), label=f"moved {node} {direction}")

    def duplicate(self, node: str) -> PanelState:
        spec = self._spec.duplicate(node)
        self._selected = next(i for i in spec.ids() if i not in self._spec)
        return self.edit(spec, label=f"duplicated {node} as {self._selected}")

    def rewire(self, node: str, index: int, ref: str) -> PanelState:
        return self.edit(
            self._spec.rewire(node, index, Ref.parse(ref)), label=f"{node} input {index} ← {ref}"
        )

    def rename(self, node: str, new_id: str) -> PanelState:
        """Give `node` a new name (references to it follow); raises ValueError naming the bad
        name and how to fix it. The renamed node stays selected."""
        new_id = new_id.strip()
        if new_id == node:
            return self.state
        check_node_name(new_id)
        spec = self._spec.rename(node, new_id, self._random_ops())
        if self._selected == node:
            self._selected = new_id
        return self.edit(spec, label=f"renamed {node} to {new_id}")

    def pick_preset(self, name: str) -> PanelState:
        """Start from a preset graph, keeping the current data source (the bundled photos read
        as the preset reads them: :func:`~.preset_source.source_for_preset`) and batch size."""
        spec = self._preset_here(name)
        label = f"preset {name}"
        sources, now = self._spec.sources(), spec.sources()
        if sources and now and now[0].kind != sources[0].kind:
            label += f" on {BUNDLED_READINGS.get(now[0].kind, now[0].kind)}"
        return self.replace(spec, label=label)

    @property
    def preset_edited(self) -> bool:
        """Whether the graph is a preset (by its name) with edits, which picking that preset
        again would take back. Its data source, batch size and seeds are no edits of the preset
        (new draws are not a new graph; without the seed lock every edit draws anew)."""
        name = self._spec.name
        if name not in PRESETS:
            return False
        return self._preset_here(name, picked=False).unseeded() != self._spec.unseeded()

    def _preset_here(self, name: str, *, picked: bool = True) -> GraphSpec:
        """Preset `name` on the current data source, at the current batch size, carrying every
        kind of annotation that source reads (:func:`~augexplorer.presets.preset_on`); `picked`:
        the bundled photos read as the preset reads them (a data switch the user made after
        the pick is no edit of the preset)."""
        sources = self._spec.sources()
        if not sources:
            spec = preset(name)
        else:
            source = source_for_preset(sources[0], name) if picked else sources[0]
            spec = preset_on(name, source)
        return dataclasses.replace(spec, batch_size=self._spec.batch_size)

    def carry_annotations(self, node: str, kind: str) -> PanelState:
        """Wire the operators that move `kind` (an overlay's kind: boxes, polygons, masks,
        keypoints) with the images through every geometric step up to `node`: the fix beside
        a switch the graph left off. Raises ValueError saying why where nothing can carry it."""
        states = overlay_states(self._spec, node)
        state = states.get(kind) if states is not None else None
        if state is None or not state.carry_kinds:
            raise ValueError(state.reason if state and state.reason else f"{kind} are drawn here")
        return self.edit(carry(self._spec, node, state.carry_kinds), label=state.fix.lower())

    def use_annotated_source(self) -> PanelState:
        """Read the bundled annotated photos (COCO): the fix for a graph that reads annotations
        from a folder (an annotated preset picked on one). A preset picked as it is reads them
        as the preset does, every kind carried through its geometry; another graph reads what
        the panel's COCO source reads, carried where companions exist."""
        spec = self._annotated(switched_source(self._spec, ANNOTATED_KIND, None))
        return self.edit(spec, label="source: the bundled COCO annotations")

    def set_skip_bad(self, skip: bool) -> PanelState:
        """Leave out (or read again) files that are not images: the fix the error for corrupt
        files suggests, as a switch on the source."""
        old = self._spec.sources()
        if not old:
            raise ValueError("the graph has no data source")
        source = dataclasses.replace(old[0], skip_bad=bool(skip))
        what = "skip bad files" if skip else "read every file (bad ones fail)"
        return self.edit(self._spec.with_source(source), label=f"{source.id}: {what}")

    def set_source(
        self, kind: str, path: str | None = None, file_root: str | None = None
    ) -> PanelState:
        """Read other data: `kind` from `path` (a COCO file's images from `file_root`). The
        other settings of the source (shuffle, seed, skipping bad files) stay as they were.
        Annotated data carries every kind it reads through the graph's geometry where
        companions can (an unedited preset reads it as the preset does)."""
        spec = self._annotated(switched_source(self._spec, kind, path, file_root))
        return self.edit(spec, label=f"source: {kind}{' ' + path if path else ''}")

    def _annotated(self, switched: GraphSpec) -> GraphSpec:
        """`switched` (the graph on other data) with every kind of annotation its source reads
        carried where companions can carry it: a kind read is a kind drawn, and trained on."""
        source = switched.sources()[0] if switched.sources() else None
        if source is None or not source.reads_coco:
            return switched
        name = self._spec.name
        own = preset(name).sources() if name in PRESETS else []
        if own and own[0].reads_coco and not self.preset_edited:  # an annotated preset
            spec = preset_on(name, source)
            return dataclasses.replace(spec, batch_size=self._spec.batch_size)
        return carry_all(switched)

    def set_batch_size(self, batch_size: int, *, run: bool = True) -> PanelState:
        spec = dataclasses.replace(self._spec, batch_size=int(batch_size))
        return self.edit(spec, merge_key="batch_size", run=run, label=f"batch {int(batch_size)}")

    def select(self, node: str | None) -> PanelState:
        self._selected = node if node in self._spec else None
        return self.state

    # ---- randomness and data ----------------------------------------------------------------
    def set_seed_locked(self, locked: bool) -> PanelState:
        self._seed_locked = bool(locked)
        return self.state

    def reroll(self) -> PanelState:
        """New draws for every random argument, coin flip and random operator (undoable)."""
        return self.edit(self.reseeded(self._spec), label="new random draws")

    def reseeded(self, spec: GraphSpec) -> GraphSpec:
        return spec.reseeded(self._new_seed, self._random_ops())

    def _random_ops(self) -> set[str]:
        return {op.name for op in self.catalog if op.random}

    def untrusted(self) -> list[str]:
        """The nodes of the graph whose Python code or side effects have not been trusted."""
        return untrusted_nodes(self._spec)

    def trust(self, node: str | None = None) -> PanelState:
        """Trust the code and side effects of `node` (of every node when None) and run the graph:
        the "Trust and run" button. Not an edit: the graph and its history stay as they are."""
        trust_graph(self._spec, node)
        return self.run()

    def set_schedule(self, target: str, schedule: Schedule | None) -> PanelState:
        """Make the number `target` names follow `schedule` over the run (None: a plain value
        again). A graph's first schedule declares a run of the default length."""
        spec = self._spec.with_schedule(target, schedule)
        if schedule is not None and spec.epochs is None:
            spec = spec.with_epochs(DEFAULT_EPOCHS)
        what = f"{target} {schedule.describe()}" if schedule else f"{target} no longer scheduled"
        return self.edit(spec, label=what)

    def set_epochs(self, epochs: int) -> PanelState:
        """Declare the run's length (schedules are drawn over it). Each length typed is an undo
        step of its own, however soon after the last: the box sends a value once it is typed
        (Enter, or leaving the box), never key by key."""
        return self.edit(
            self._spec.with_epochs(epochs),
            label=f"a run of {epochs} epoch{'' if epochs == 1 else 's'}",
        )

    @property
    def epoch(self) -> int:
        """The epoch previewed (Session.set_epoch)."""
        return self.session.epoch

    def preview_epoch(self, epoch: int) -> PanelState:
        """Show the batch as epoch `epoch` draws it (the schedules' values there, the same
        seeds); the graph and its history stay as they are."""
        if self._dirty:  # the graph as edited first: the epoch is previewed of it
            self.refresh()
        return self._run(lambda: self.session.set_epoch(epoch))

    def preview_rank(self, rank: int, world_size: int | None) -> PanelState:
        """Show what torchrun process `rank` of `world_size` gets (Session.set_rank); the graph
        and its history stay as they are."""
        return self._run(lambda: self.session.set_rank(rank, world_size))

    def next_batch(self) -> PanelState:
        if self._failure is not None and self._failure.kind == "invalid":
            return self.state  # the old graph would run; fix the graph first
        return self._run(self.session.next_batch)

    # ---- history and files ------------------------------------------------------------------
    def undo(self) -> PanelState:
        self._new_entry = True
        return self._set(self.history.undo(), run=True)

    def redo(self) -> PanelState:
        self._new_entry = True
        return self._set(self.history.redo(), run=True)

    def go_to_step(self, index: int) -> PanelState:
        """Back (or forward) to step `index` of the history, as undo or redo would."""
        self._new_entry = True
        return self._set(self.history.goto(index), run=True)

    def save(self, path: str | Path, *, overwrite: bool = False) -> Path:
        return save(self._spec, path, overwrite=overwrite)

    def load(self, path: str | Path) -> PanelState:
        return self.replace(load(path), label=f"loaded {path}", from_file=True)

    def restore(self, spec: GraphSpec, history: Record | None = None) -> PanelState:
        """Bring back an autosaved graph (undoable like any edit), with the undo `history`
        saved with it, if any: undo goes back through its steps, then to the graph shown
        before."""
        if history is None or history.current != spec:
            return self.replace(spec, label="restored the autosaved graph")
        self._selected = None
        self._new_entry = True
        state = self._set(self.history.take_up(history), run=True)
        self._base = self._spec
        return state

    def take_up_history(self, history: Record | None) -> None:
        """The graph on screen was autosaved with its undo `history` (before a kernel restart):
        undo goes back through it, as if the kernel had not restarted."""
        if history is not None and history.current == self._spec:
            self.history.take_up(history)

    def replace(self, spec: GraphSpec, label: str = "", *, from_file: bool = False) -> PanelState:
        """Swap the whole graph for `spec` (undoable like any edit); edits count from here.
        A graph of another name is another graph: the result so far is not its own, and a
        failing new graph shows none rather than the old pictures. So is a file's graph of the
        same name that differs (`from_file`): it may hold anything (a saved graph edited by
        hand must not show the replaced graph's pictures as its last good output)."""
        self._selected = None
        self._chosen.clear()  # another graph's nodes, though some names may be the same
        other = spec.name != self._spec.name or (from_file and spec != self._spec)
        state = self.edit(
            spec, label=label or f"replaced the graph with {spec.name}", new_graph=other
        )
        self._base = self._spec
        return state

    # ---- helpers ----------------------------------------------------------------------------
    def op_info(self, node: str) -> OpInfo | None:
        found = self._spec.node(node)
        return self.catalog.get(found.op) if isinstance(found, Node) else None

    def _new_seed(self) -> int:
        return self._rng.randrange(1, 2**31 - 1)


def starting_args(info: OpInfo, layout: str = "", min_size: float = 0.0) -> dict[str, ArgValue]:
    """Values for a new node that reads images of `layout`: the curated starters (a visible
    effect), then required arguments from the slider hints; other required ones stay unset and
    the node shows which argument needs a value. Sizes it sets are at least `min_size`."""
    args: dict[str, ArgValue] = dict(starting_values(info.name, layout, min_size))
    for arg in info.args:
        if arg.required and arg.hint is not None and arg.name not in args:
            args[arg.name] = _hint_start(arg)
    return args


def _hint_start(arg: ArgInfo) -> ArgValue:
    assert arg.hint is not None
    value = min(max(0.0, arg.hint.low), arg.hint.high)
    return int(value) if arg.is_integer else float(value)


def _shown(value: ArgValue) -> str:
    """An argument's value as a history line shows it."""
    if isinstance(value, Random):
        weights = value.p if value.dist == "choice" else None
        if weights and len(set(weights)) > 1:  # edits of the weights alone must read apart
            return f"~ {value.short()} weighted {', '.join(f'{w:g}' for w in weights)}"
        return f"~ {value.short()}"
    if isinstance(value, Ref):
        return f"← {value}"
    if isinstance(value, float):
        return f"= {value:g}"
    text = repr(value) if isinstance(value, str) else str(value)
    return f"= {text if len(text) <= 40 else text[:39] + '…'}"


# Arguments that change what a node writes (layout, type, size): the picker's list follows them.
_SHAPING_ARGS = frozenset(
    {"dtype", "output_layout", "perm", "transpose_layout", "crop", "crop_h", "crop_w"}
    | {"out_of_bounds_policy", "output_type"}
)


def _structure(node: Source | Node) -> tuple[object, ...]:
    args = tuple(sorted((k, repr(v)) for k, v in node.args.items() if k in _SHAPING_ARGS))
    return (node.id, node.op, node.inputs, args)


def _kind(value: ArgValue) -> str:
    if isinstance(value, Random):
        return f"random.{value.dist}"
    return "ref" if isinstance(value, Ref) else "constant"


def check_node_name(name: str) -> None:
    """Node names become variable names in the exported module: Python identifiers that do not
    shadow what the module itself uses. Raises ValueError naming the problem and a fix."""
    if not name:
        raise ValueError("a node needs a name; type one, e.g. 'blur'")
    if not name.isidentifier() or not name.isascii() or len(name) > 64:
        suggestion = re.sub(r"\W+", "_", name).strip("_")[:64] or "node"
        if suggestion[0].isdigit():
            suggestion = f"n_{suggestion}"
        raise ValueError(
            f"{name!r} is not a valid node name: use letters, digits and _ (not starting with a "
            f"digit, at most 64), e.g. {suggestion!r}"
        )
    if keyword.iskeyword(name) or name in RESERVED_IDS:
        raise ValueError(
            f"{name!r} is taken by Python or the exported module; try {name + '_node'!r}"
        )
