"""Undo and redo over immutable graph snapshots.

Specs are immutable values, so a history is just a list of them and a cursor, each with a line
saying what the step did. Consecutive edits that share a merge key and follow each other within
a moment (one slider being dragged) collapse into one step, so undo takes back the whole drag
rather than each intermediate value; values typed one after another stay steps of their own.
Each step also knows which graph it is of (a number): a preset picked or a file loaded starts
another graph, and undo or redo across that step moves to the other graph, whose pictures are
not this one's.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from augexplorer.spec import GraphSpec

# A drag sends its values milliseconds apart (a held arrow key every ~30 ms); a person typing a
# new value into the box takes longer than this.
MERGE_WINDOW_S = 1.0


@dataclass(frozen=True)
class Step:
    """One entry of the history as the panel lists it."""

    index: int
    label: str
    current: bool  # the state on screen
    undone: bool  # after the current one: redo brings it back


@dataclass(frozen=True)
class Record:
    """The history as it stands (every step's graph and label, and which one is on screen), to
    be autosaved and taken up again after a kernel restart."""

    graphs: tuple[GraphSpec, ...]
    labels: tuple[str, ...]
    cursor: int

    @property
    def current(self) -> GraphSpec:
        return self.graphs[self.cursor]


class History:
    def __init__(
        self,
        initial: GraphSpec,
        limit: int = 200,
        label: str = "",
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._clock = clock
        self._pushed_at = -float("inf")
        self._snapshots: list[GraphSpec] = [initial]
        self._labels: list[str] = [label or f"start: {initial.name}"]
        self._cursor = 0
        self._limit = limit
        self._merge_key: str | None = None
        # which graph each step is of: a number per graph swapped in (a preset, a file)
        self._graphs: list[int] = [0]
        self._next_graph = 1

    @property
    def current(self) -> GraphSpec:
        return self._snapshots[self._cursor]

    @property
    def graph(self) -> int:
        """Which graph the step on screen is of: the same number over a graph's edits, another
        after a step that swapped in another graph (``push(..., new_graph=True)``)."""
        return self._graphs[self._cursor]

    def earlier_of_this_graph(self) -> list[GraphSpec]:
        """The graphs of the steps before the one on screen, newest first, as far back as
        they are edits of the same graph (a preset or file swapped in ends them)."""
        earlier: list[GraphSpec] = []
        for index in range(self._cursor - 1, -1, -1):
            if self._graphs[index] != self.graph:
                break
            earlier.append(self._snapshots[index])
        return earlier

    def _new_graph(self) -> int:
        self._next_graph += 1
        return self._next_graph - 1

    @property
    def can_undo(self) -> bool:
        return self._cursor > 0

    @property
    def can_redo(self) -> bool:
        return self._cursor < len(self._snapshots) - 1

    def __len__(self) -> int:
        return len(self._snapshots)

    def steps(self) -> list[Step]:
        """Every step, oldest first, with what it did."""
        return [
            Step(i, label, i == self._cursor, i > self._cursor)
            for i, label in enumerate(self._labels)
        ]

    def push(
        self,
        spec: GraphSpec,
        merge_key: str | None = None,
        label: str = "edit",
        *,
        new_graph: bool = False,
    ) -> None:
        """Record `spec` as the newest state; drops anything that was undone. `label` says what
        the step did (a merged step keeps the newest label: the drag's final value);
        `new_graph`: `spec` is another graph than the one it replaces (see :attr:`graph`)."""
        if spec == self.current:
            return
        self._drop_redo()
        now = self._clock()
        recent = now - self._pushed_at <= MERGE_WINDOW_S
        self._pushed_at = now
        merge = merge_key is not None and merge_key == self._merge_key and recent
        if merge and self._cursor > 0 and not new_graph:
            self._snapshots[self._cursor] = spec
            self._labels[self._cursor] = label
        else:
            self._snapshots.append(spec)
            self._labels.append(label)
            self._graphs.append(self._new_graph() if new_graph else self.graph)
            self._cursor += 1
        self._merge_key = merge_key
        overflow = len(self._snapshots) - self._limit
        if overflow > 0:
            self._drop_oldest(overflow)

    def _drop_redo(self) -> None:
        del self._snapshots[self._cursor + 1 :]
        del self._labels[self._cursor + 1 :]
        del self._graphs[self._cursor + 1 :]

    def _drop_oldest(self, count: int) -> None:
        del self._snapshots[:count]
        del self._labels[:count]
        del self._graphs[:count]
        self._cursor -= count

    def record(self) -> Record:
        """A snapshot of the history (the graphs are immutable: nothing is copied but lists)."""
        return Record(tuple(self._snapshots), tuple(self._labels), self._cursor)

    def take_up(self, earlier: Record) -> GraphSpec:
        """Go on with `earlier` (a history autosaved before a kernel restart) after the steps up
        to the one on screen: undo goes back through its steps, then to what was on screen
        before. Its first step, where it is the graph on screen, is that same step. Returns the
        graph now current: `earlier`'s own."""
        same_start = earlier.graphs[0] == self.current
        skip = 1 if same_start else 0
        offset = self._cursor if same_start else self._cursor + 1
        labels = list(earlier.labels[skip:])
        if not same_start:
            labels[0] = f"restored the autosaved history: {labels[0]}"
        self._drop_redo()
        # The saved steps keep no graph numbers: a step whose graph is named otherwise than the
        # one before it is another graph, as a graph picked or loaded under another name is.
        previous = self.current
        for spec in earlier.graphs[skip:]:
            same = spec.name == previous.name
            self._graphs.append(self._graphs[-1] if same else self._new_graph())
            previous = spec
        self._snapshots += earlier.graphs[skip:]
        self._labels += labels
        self._cursor = offset + earlier.cursor
        self._merge_key = None
        self._pushed_at = -float("inf")
        # Over the limit: the oldest steps go first, then redo steps, never the current one.
        self._drop_oldest(min(max(0, len(self._snapshots) - self._limit), self._cursor))
        del self._snapshots[self._limit :]
        del self._labels[self._limit :]
        del self._graphs[self._limit :]
        return self.current

    def undo(self) -> GraphSpec:
        if self.can_undo:
            self._cursor -= 1
        self._merge_key = None
        return self.current

    def redo(self) -> GraphSpec:
        if self.can_redo:
            self._cursor += 1
        self._merge_key = None
        return self.current

    def goto(self, index: int) -> GraphSpec:
        """Jump to step `index` (as many undos or redos as it takes)."""
        self._cursor = min(max(0, index), len(self._snapshots) - 1)
        self._merge_key = None
        return self.current

    def reset(self, spec: GraphSpec) -> None:
        """Start over from `spec` (a loaded file or a picked preset stays undoable: see push)."""
        self._snapshots = [spec]
        self._labels = [f"start: {spec.name}"]
        self._graphs = [self._new_graph()]
        self._cursor = 0
        self._merge_key = None
