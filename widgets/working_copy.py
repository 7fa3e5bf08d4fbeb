"""Working copies of the repository's notebooks, so that running them leaves the tracked ones alone.

JupyterLab saves what a run shows (outputs, widget state, the kernel's name) into the notebook it
opened. Opened from ``notebooks/`` that dirties tracked files; ``make lab`` therefore opens a copy
in an ignored folder. A copy is refreshed when the tracked notebook changed since it was copied,
but never once the user has edited (or run) it: theirs is kept and they are told where the newer
original is. What was copied is remembered by content hash in ``COPIED_RECORD``.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

COPIED_RECORD = ".copied.json"  # relative name -> sha256 of the tracked file when it was copied
WORKSPACE = Path(".augexplorer")  # ignored by git (.gitignore)


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _tracked_files(folder: Path) -> list[Path]:
    """The notebooks and the pictures they show: what a working copy needs."""
    notebooks = sorted(folder.glob("*.ipynb"))
    images = sorted(p for p in (folder / "images").rglob("*") if p.is_file())
    return [*notebooks, *images]


def refresh_working_copy(tracked: Path, copy: Path) -> list[str]:
    """Bring `copy` up to date with the notebooks folder `tracked`; returns what to tell the user
    (one line per copy kept although its original changed)."""
    copy.mkdir(parents=True, exist_ok=True)
    record_path = copy / COPIED_RECORD
    record: dict[str, str] = (
        json.loads(record_path.read_text(encoding="utf-8")) if record_path.exists() else {}
    )
    notes: list[str] = []
    for source in _tracked_files(tracked):
        name = source.relative_to(tracked).as_posix()
        target = copy / name
        original = _digest(source)
        if target.exists():
            if record.get(name) == original:
                continue  # the original has not changed since it was copied
            if _digest(target) != record.get(name):
                notes.append(
                    f"augexplorer: kept your edited {target}; the updated original is {source} "
                    f"(delete the copy to get the new one)."
                )
                continue
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
        record[name] = original
    record_path.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return notes


def working_copy_of(notebook: Path, base: Path) -> tuple[Path, list[str]]:
    """The copy of `notebook` to open, its folder copied under `base`/.augexplorer (or under the
    home folder when `base` cannot be written, as for a user running a checkout owned by root),
    and what to tell the user."""
    tracked = notebook.parent
    for root in (base, Path.home()):
        folder = root / WORKSPACE / tracked.resolve().name
        try:
            notes = refresh_working_copy(tracked, folder)
        except PermissionError:
            continue
        return folder / notebook.name, notes
    raise PermissionError(
        f"cannot write a working copy of {tracked} under {base} or {Path.home()}: "
        "make one of them writable, or open the notebook directly with "
        "`python -m augexplorer_widgets.lab NOTEBOOK`"
    )
