"""Autosave the graph after every edit, atomically, so a kernel restart loses nothing.

A slider's steps save a moment later (:meth:`Autosave.save_soon`), once the step's pictures are
out: a synchronous, fsynced write would sit between every step and its pictures. What waits is
written when the kernel exits and before any panel reads the same file.

The undo history is saved with the graph (its last steps: see :mod:`.history_file`), so that
undo goes on after a restart where the graph is restored.

Nothing autosaved is ever destroyed by the panel: a damaged autosave is kept aside before the
first write (see :mod:`.autosave_recovery`), and so is a graph that was offered for restore and
not taken.
"""

from __future__ import annotations

import atexit
import datetime as _dt
import json
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from augexplorer.files import atomic_write_text
from augexplorer.spec import GraphSpec, to_json

from .autosave_key import SHARED
from .autosave_recovery import Damaged, Saved, keep_aside, read_autosave
from .coalesce import Coalescer
from .history import Record
from .history_file import HISTORY_START, HistoryWriter

DEFAULT_PATH = SHARED

# How long an edit's save waits (and, in a drag, how far apart saves are): the kernel loses at
# most this much of a drag if it dies mid-drag.
SAVE_SETTLE_S = 0.1

__all__ = ["DEFAULT_PATH", "Autosave", "Damage", "Saved"]


@dataclass(frozen=True)
class Damage:
    """A damaged autosave: what was wrong, where the file is now, what could be read of it."""

    reason: str
    path: Path  # where the autosave was
    kept_at: Path | None  # where the damaged file was moved; None when it could not be moved
    recovered: Saved | None


class Autosave:
    """Writes the spec to `path` (through a temporary file and a rename) and reads it back."""

    def __init__(self, path: str | Path | None = DEFAULT_PATH) -> None:
        self.path = Path(path) if path is not None else None
        self.last_error: str | None = None
        self.damage: Damage | None = None
        self.kept_offer: Path | None = None  # where an offered graph that was not taken went
        self._offered = False  # the file holds a graph offered for restore: keep it on save
        self._unsaved: GraphSpec | None = None
        self._read: Saved | None = None  # what the file held when it was read
        self._history: Callable[[], Record] | None = None
        self._history_writer = HistoryWriter()
        self._soon = Coalescer(self._save_unsaved, delay_s=SAVE_SETTLE_S, settle_s=SAVE_SETTLE_S)

    @property
    def enabled(self) -> bool:
        return self.path is not None

    def keep_history(self, record: Callable[[], Record]) -> None:
        """Save the undo history `record()` gives beside each graph (where it ends at that
        graph)."""
        self._history = record

    def history_with(self, spec: GraphSpec) -> Record | None:
        """The undo history read from the file with `spec`, if `spec` is the graph read."""
        read = self._read
        return read.history if read is not None and read.spec == spec else None

    def save_soon(self, spec: GraphSpec) -> None:
        """Save `spec` a moment from now (at once where no event loop runs); a later edit
        before then replaces it."""
        self._unsaved = spec
        _WAITING.add(self)
        self._soon.request()

    def flush(self) -> None:
        """Write the edit waiting to be saved, if any, now."""
        self._soon.flush()

    def _drop_waiting(self) -> None:
        self._soon.cancel()
        self._unsaved = None

    def _save_unsaved(self) -> None:
        spec, self._unsaved = self._unsaved, None
        if spec is not None:
            self.save(spec)

    def save(self, spec: GraphSpec) -> None:
        """Save `spec` now (an edit waiting for :meth:`save_soon` is replaced by it)."""
        self._drop_waiting()
        if self.path is None:
            return
        if self._offered:
            self._offered = False
            if not self._keep("offered"):
                return
        payload = {
            "saved_at": _dt.datetime.now().isoformat(timespec="seconds"),
            "graph": to_json(spec),
        }
        text = json.dumps(payload, indent=1)
        history = self._history() if self._history is not None else None
        if history is not None and history.current == spec:
            # Each step's graph is encoded once (see HistoryWriter): spliced in as text.
            closing = "\n}"
            assert text.endswith(closing)
            steps = self._history_writer.encode(history)
            text = f"{text.removesuffix(closing)}{HISTORY_START}{steps}{closing}"
        try:
            atomic_write_text(self.path, text, overwrite=True)
            self.last_error = None
        except OSError as error:  # a read-only folder must not break editing
            self.last_error = f"autosave to {self.path} failed: {error}"

    def load(self) -> Saved | None:
        """The autosaved graph, or None when there is none. A damaged file is moved aside at
        once (so no later save can overwrite it) and described in :attr:`damage`; what could
        be read of it is returned, marked with a note."""
        if self.path is not None:
            _flush_waiting(self.path)  # another panel's last step on this file comes first
        if self.path is None or not (self.path.exists() or self.path.is_symlink()):
            return None
        if self.path.is_dir():  # never moved: it is the user's folder, not a damaged autosave
            reason = "it is a folder, not a file"
            self.damage = Damage(reason, self.path, None, None)
            self.last_error = f"the autosave {self.path} could not be read: {reason}"
            self.path = None
            return None
        try:
            self._read = read_autosave(self.path)
            return self._read
        except Damaged as damaged:
            path = self.path
            try:
                kept_at: Path | None = keep_aside(path, "damaged")
                self.last_error = (
                    f"the autosave {path} could not be read: {damaged.reason}; "
                    f"it is kept as {kept_at}"
                )
            except OSError as error:
                kept_at = None
                self.path = None  # writing would overwrite the only copy: stop autosaving
                self.last_error = (
                    f"the autosave {path} could not be read: {damaged.reason}; it could not be "
                    f"moved aside ({error}), so autosave is off: move the file, then restart"
                )
            self.damage = Damage(damaged.reason, path, kept_at, damaged.recovered)
            self._read = damaged.recovered
            return damaged.recovered

    def offer(self, start: GraphSpec) -> Saved | None:
        """The autosave worth offering: one that differs from the graph we start with. Until
        the next save, the offered file is protected: that save first keeps it aside."""
        saved = self.load()
        if saved is None or saved.spec == start:
            return None
        self._offered = self.damage is None
        return saved

    def accept(self) -> None:
        """The offered graph is being restored: the file already holds it, nothing to keep."""
        self._offered = False

    def discard(self) -> None:
        self._drop_waiting()
        if self.path is not None:
            self.path.unlink(missing_ok=True)

    def _keep(self, why: str) -> bool:
        assert self.path is not None
        if not self.path.exists():
            return True
        try:
            self.kept_offer = keep_aside(self.path, why)
            return True
        except OSError as error:
            self.last_error = (
                f"the autosaved graph at {self.path} could not be kept aside ({error}); "
                f"autosave is off so that it is not overwritten"
            )
            self.path = None
            return False


# Autosaves with an edit waiting to be written (weakly: a panel that is gone has nothing to say).
_WAITING: weakref.WeakSet[Autosave] = weakref.WeakSet()


def _flush_waiting(path: Path | None = None) -> None:
    for store in list(_WAITING):
        if path is None or store.path == path:
            store.flush()


atexit.register(_flush_waiting)
