"""Undo and redo over immutable graph snapshots.

Specs are immutable values, so a history is just a list of them and a cursor. Consecutive edits
that share a merge key (one slider being dragged) collapse into one step, so undo takes back the
whole drag rather than each intermediate value.
"""

from __future__ import annotations

from augexplorer.spec import GraphSpec


class History:
    def __init__(self, initial: GraphSpec, limit: int = 200) -> None:
        self._snapshots: list[GraphSpec] = [initial]
        self._cursor = 0
        self._limit = limit
        self._merge_key: str | None = None

    @property
    def current(self) -> GraphSpec:
        return self._snapshots[self._cursor]

    @property
    def can_undo(self) -> bool:
        return self._cursor > 0

    @property
    def can_redo(self) -> bool:
        return self._cursor < len(self._snapshots) - 1

    def __len__(self) -> int:
        return len(self._snapshots)

    def push(self, spec: GraphSpec, merge_key: str | None = None) -> None:
        """Record `spec` as the newest state; drops anything that was undone."""
        if spec == self.current:
            return
        del self._snapshots[self._cursor + 1 :]
        if merge_key is not None and merge_key == self._merge_key and self._cursor > 0:
            self._snapshots[self._cursor] = spec
        else:
            self._snapshots.append(spec)
            self._cursor += 1
        self._merge_key = merge_key
        overflow = len(self._snapshots) - self._limit
        if overflow > 0:
            del self._snapshots[:overflow]
            self._cursor -= overflow

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

    def reset(self, spec: GraphSpec) -> None:
        """Start over from `spec` (a loaded file or a picked preset stays undoable: see push)."""
        self._snapshots = [spec]
        self._cursor = 0
        self._merge_key = None
