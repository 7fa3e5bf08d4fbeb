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

import numpy as np

from augexplorer.catalog import ArgInfo, Catalog, OpInfo
from augexplorer.engine import RunResult, Session
from augexplorer.presets import preset
from augexplorer.spec import (
    ArgValue,
    Device,
    GraphSpec,
    Node,
    Probability,
    Random,
    Ref,
    Source,
    load,
    save,
)
from augexplorer.trust import trust_graph, untrusted_nodes
from augexplorer.validate import RESERVED_IDS

from .autosave import Autosave
from .failure import Failure
from .history import History


@dataclass(frozen=True)
class Snapshot:
    """Host copies of one output, kept for the A/B view (live outputs are reused by DALI)."""

    arrays: tuple[np.ndarray, ...]
    layout: str
    spec: GraphSpec


@dataclass(frozen=True)
class PanelState:
    spec: GraphSpec  # the user's graph, kept even when it is invalid
    result: RunResult | None  # the last good result
    failure: Failure | None
    selected: str | None
    can_undo: bool
    can_redo: bool
    seed_locked: bool
    before: Snapshot | None  # the final output before the current edit (A/B view)

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
        self._spec = session.spec
        self._base = session.spec  # the graph as started, picked or loaded, before any edit
        self._failure: Failure | None = None
        self._selected: str | None = None
        self._seed_locked = True
        self._dirty = session.result is None
        self._before: Snapshot | None = None
        self._new_entry = False
        self._rng = _random.Random(rng_seed)

    # ---- state ------------------------------------------------------------------------------
    @property
    def state(self) -> PanelState:
        return PanelState(
            spec=self._spec,
            result=self.session.result,
            failure=self._failure,
            selected=self._selected if self._selected in self._spec else None,
            can_undo=self.history.can_undo,
            can_redo=self.history.can_redo,
            seed_locked=self._seed_locked,
            before=self._before,
        )

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
            self._before = _snapshot(previous)
        self._new_entry = False
        try:
            action()
            self._failure = None
        except Exception as error:  # shown on the node; the last good grid stays
            source = self._spec.sources()[0].id if self._spec.sources() else None
            self._failure = Failure.from_exception(error, source)
        return self.state

    # ---- edits ------------------------------------------------------------------------------
    def edit(
        self, spec: GraphSpec, *, merge_key: str | None = None, run: bool = True
    ) -> PanelState:
        """Make `spec` the user's graph: recorded for undo, autosaved, then run (unless `run` is
        False: the caller coalesces rapid edits and calls :meth:`refresh` once)."""
        if not self._seed_locked:
            spec = self.reseeded(spec)
        before = len(self.history), self.history.can_redo
        self.history.push(spec, merge_key)
        if (len(self.history), self.history.can_redo) != before or merge_key is None:
            self._new_entry = True
        return self._set(spec, run)

    def _set(self, spec: GraphSpec, run: bool) -> PanelState:
        self._spec = spec
        self._dirty = True
        self.autosave.save(spec)
        return self.refresh() if run else self.state

    def set_arg(self, node: str, arg: str, value: ArgValue, *, run: bool = True) -> PanelState:
        # One slider drag is one undo step; switching to or from a distribution is its own step.
        old = self._spec.node(node).args.get(arg)
        kind = _kind(value)
        merge_key = f"{node}.{arg}:{kind}" if old is not None and _kind(old) == kind else None
        return self.edit(self._spec.set_arg(node, arg, value), merge_key=merge_key, run=run)

    def unset_arg(self, node: str, arg: str) -> PanelState:
        return self.edit(self._spec.unset_arg(node, arg))

    def set_device(self, node: str, device: Device | None) -> PanelState:
        return self.edit(self._spec.set_device(node, device))

    def set_probability(self, node: str, p: float | None, *, run: bool = True) -> PanelState:
        current = self._spec.node(node)
        seed = current.probability.seed if current.probability is not None else None
        probability = None if p is None else Probability(float(p), seed)
        return self.edit(
            self._spec.set_probability(node, probability), merge_key=f"{node}.apply", run=run
        )

    def add_op(self, op_name: str, after: str | None = None) -> PanelState:
        """Insert a new operator after `after` (the selected node, else the image output)."""
        info = self.catalog.get(op_name)
        if info is None:
            raise KeyError(f"no operator {op_name!r} in the catalog")
        if not info.available:
            raise ValueError(f"{op_name} cannot run here: {info.unavailable_reason}")
        spec = self._spec
        node_id = spec.unique_id(op_name.rsplit(".", 1)[-1])
        node = Node(node_id, op_name, args=starting_args(info))
        if info.max_inputs == 0:
            spec = spec.insert_after(None, node, rewire=False)
        else:
            anchor = after or self._selected or _image_tail(spec)
            spec = spec.insert_after(anchor, node)
        self._selected = node_id
        return self.edit(spec)

    def remove(self, node: str) -> PanelState:
        inputs = self._spec.node(node).inputs
        if self._selected == node:
            self._selected = inputs[0].node if inputs else None
        return self.edit(self._spec.remove(node))

    def move(self, node: str, offset: int) -> PanelState:
        return self.edit(self._spec.move(node, offset))

    def duplicate(self, node: str) -> PanelState:
        spec = self._spec.duplicate(node)
        self._selected = next(i for i in spec.ids() if i not in self._spec)
        return self.edit(spec)

    def rewire(self, node: str, index: int, ref: str) -> PanelState:
        return self.edit(self._spec.rewire(node, index, Ref.parse(ref)))

    def rename(self, node: str, new_id: str) -> PanelState:
        """Give `node` a new name (references to it follow); raises ValueError naming the bad
        name and how to fix it. The renamed node stays selected."""
        new_id = new_id.strip()
        if new_id == node:
            return self.state
        check_node_name(new_id)
        spec = self._spec.rename(node, new_id)
        if self._selected == node:
            self._selected = new_id
        return self.edit(spec)

    def pick_preset(self, name: str) -> PanelState:
        """Start from a preset graph, keeping the current data source and batch size."""
        spec = preset(name)
        sources = self._spec.sources()
        if sources:
            spec = spec.with_source(sources[0])
        spec = dataclasses.replace(spec, batch_size=self._spec.batch_size)
        return self.replace(spec)

    def set_source(self, kind: str, path: str | None = None) -> PanelState:
        old = self._spec.sources()
        # The other settings of the source (shuffle, seed, skipping bad files) stay as they were.
        source = (
            dataclasses.replace(old[0], kind=kind, path=path or None)  # type: ignore[arg-type]
            if old
            else Source("source", kind, path or None)  # type: ignore[arg-type]
        )
        return self.edit(self._spec.with_source(source))

    def set_batch_size(self, batch_size: int, *, run: bool = True) -> PanelState:
        spec = dataclasses.replace(self._spec, batch_size=int(batch_size))
        return self.edit(spec, merge_key="batch_size", run=run)

    def select(self, node: str | None) -> PanelState:
        self._selected = node if node in self._spec else None
        return self.state

    # ---- randomness and data ----------------------------------------------------------------
    def set_seed_locked(self, locked: bool) -> PanelState:
        self._seed_locked = bool(locked)
        return self.state

    def reroll(self) -> PanelState:
        """New draws for every random argument, coin flip and random operator (undoable)."""
        return self.edit(self.reseeded(self._spec))

    def reseeded(self, spec: GraphSpec) -> GraphSpec:
        random_ops = {op.name for op in self.catalog if op.random}
        return spec.reseeded(self._new_seed, random_ops)

    def untrusted(self) -> list[str]:
        """The nodes of the graph whose Python code or side effects have not been trusted."""
        return untrusted_nodes(self._spec)

    def trust(self, node: str | None = None) -> PanelState:
        """Trust the code and side effects of `node` (of every node when None) and run the graph:
        the "Trust and run" button. Not an edit: the graph and its history stay as they are."""
        trust_graph(self._spec, node)
        return self.run()

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

    def save(self, path: str | Path, *, overwrite: bool = False) -> Path:
        return save(self._spec, path, overwrite=overwrite)

    def load(self, path: str | Path) -> PanelState:
        return self.replace(load(path))

    def restore(self, spec: GraphSpec) -> PanelState:
        """Bring back an autosaved graph (undoable like any edit)."""
        return self.replace(spec)

    def replace(self, spec: GraphSpec) -> PanelState:
        """Swap the whole graph for `spec` (undoable like any edit); edits count from here."""
        self._selected = None
        state = self.edit(spec)
        self._base = self._spec
        return state

    # ---- helpers ----------------------------------------------------------------------------
    def op_info(self, node: str) -> OpInfo | None:
        found = self._spec.node(node)
        return self.catalog.get(found.op) if isinstance(found, Node) else None

    def _new_seed(self) -> int:
        return self._rng.randrange(1, 2**31 - 1)


# Visible starting values for operators whose DALI defaults do nothing (or fail) on an image.
STARTERS: dict[str, dict[str, ArgValue]] = {
    "gaussian_blur": {"sigma": 2.0},
    "rotate": {"angle": 15.0},
    "noise.gaussian": {"stddev": 20.0},
    "noise.salt_and_pepper": {"prob": 0.05},
    "crop": {"crop": [200.0, 200.0]},
    "resize": {"resize_shorter": 224.0},
    "resize_crop_mirror": {"resize_shorter": 256.0, "crop": [224.0, 224.0]},
    "warp_affine": {"matrix": [1.0, 0.2, 0.0, 0.1, 1.0, 0.0]},  # a visible shear
    "experimental.warp_perspective": {
        "matrix": [1.0, 0.1, 0.0, 0.05, 1.0, 0.0, 0.0004, 0.0002, 1.0]
    },
    "random_resized_crop": {"size": [224.0, 224.0]},
    "water": {"ampl_x": 10.0, "ampl_y": 10.0},
    "brightness": {"brightness": 1.4},
    "contrast": {"contrast": 1.5},
    "saturation": {"saturation": 1.8},
    "hue": {"hue": 30.0},
    "transforms.rotation": {"angle": 15.0},
}


def starting_args(info: OpInfo) -> dict[str, ArgValue]:
    """Values for a new node: the curated starters, then required arguments from the slider
    hints; other required ones stay unset and the node shows which argument needs a value."""
    args = dict(STARTERS.get(info.name, {}))
    for arg in info.args:
        if arg.required and arg.hint is not None and arg.name not in args:
            args[arg.name] = _hint_start(arg)
    return args


def _hint_start(arg: ArgInfo) -> ArgValue:
    assert arg.hint is not None
    value = min(max(0.0, arg.hint.low), arg.hint.high)
    return int(value) if arg.is_integer else float(value)


def _kind(value: ArgValue) -> str:
    if isinstance(value, Random):
        return f"random.{value.dist}"
    return "ref" if isinstance(value, Ref) else "constant"


def _image_tail(spec: GraphSpec) -> str | None:
    final = spec.final_output()
    return final.node if final is not None else None


def _snapshot(result: RunResult) -> Snapshot:
    ref = result.final
    return Snapshot(tuple(result.arrays(ref)), result.layout(ref), result.plan.spec)


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
