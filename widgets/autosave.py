"""Autosave the graph after every edit, atomically, so a kernel restart loses nothing."""

from __future__ import annotations

import datetime as _dt
import json
from dataclasses import dataclass
from pathlib import Path

from augexplorer.errors import SpecFormatError
from augexplorer.files import atomic_write_text
from augexplorer.spec import GraphSpec, from_json, to_json

DEFAULT_PATH = Path(".augexplorer") / "autosave.json"


@dataclass(frozen=True)
class Saved:
    spec: GraphSpec
    saved_at: str  # local time, for the restore offer


class Autosave:
    """Writes the spec to `path` (through a temporary file and a rename) and reads it back."""

    def __init__(self, path: str | Path | None = DEFAULT_PATH) -> None:
        self.path = Path(path) if path is not None else None
        self.last_error: str | None = None

    @property
    def enabled(self) -> bool:
        return self.path is not None

    def save(self, spec: GraphSpec) -> None:
        if self.path is None:
            return
        payload = {
            "saved_at": _dt.datetime.now().isoformat(timespec="seconds"),
            "graph": to_json(spec),
        }
        try:
            atomic_write_text(self.path, json.dumps(payload, indent=1), overwrite=True)
            self.last_error = None
        except OSError as error:  # a read-only folder must not break editing
            self.last_error = f"autosave to {self.path} failed: {error}"

    def load(self) -> Saved | None:
        """The autosaved graph, or None when there is none (or it cannot be read)."""
        if self.path is None or not self.path.is_file():
            return None
        try:
            payload = json.loads(self.path.read_text(encoding="utf-8"))
            spec = from_json(payload["graph"])
            return Saved(spec, str(payload.get("saved_at", "")))
        except (OSError, ValueError, KeyError, TypeError, SpecFormatError) as error:
            self.last_error = f"the autosave {self.path} could not be read: {error}"
            return None

    def offer(self, start: GraphSpec) -> Saved | None:
        """The autosave worth offering: one that differs from the graph we start with."""
        saved = self.load()
        if saved is None or saved.spec == start:
            return None
        return saved

    def discard(self) -> None:
        if self.path is not None:
            self.path.unlink(missing_ok=True)
