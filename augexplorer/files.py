"""Atomic writes that never replace a file unless asked."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from .errors import FileExistsRefused


def atomic_write_bytes(path: Path, data: bytes, *, overwrite: bool = False) -> Path:
    """Write `data` to `path` through a temporary file and a rename, so a crash leaves either the
    old file or the new one, never half of one."""
    path = Path(path)
    if path.exists() and not overwrite:
        raise FileExistsRefused(
            f"{path} already exists; pass overwrite=True (--overwrite) to replace it, or pick another name"
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temp_name, path)
    except BaseException:
        Path(temp_name).unlink(missing_ok=True)
        raise
    return path


def atomic_write_text(path: Path, text: str, *, overwrite: bool = False) -> Path:
    return atomic_write_bytes(path, text.encode("utf-8"), overwrite=overwrite)
