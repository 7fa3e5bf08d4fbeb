"""Atomic writes that never replace a file unless asked, and say plainly why a path cannot be
written (a folder, a path under a file, no permission) instead of raising a raw OSError."""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from pathlib import Path

from .errors import AugExplorerError, FileExistsRefused


class CannotWrite(AugExplorerError, OSError):
    """A path we were asked to write that cannot be written; names the path and the fix."""

    def __init__(self, path: Path, reason: str, fix: str) -> None:
        self.path = path
        self.reason = reason
        self.fix = fix
        AugExplorerError.__init__(self, f"cannot write {path}: {reason} (fix: {fix})")
        self.filename = str(path)

    def __str__(self) -> str:  # OSError's own would show "[Errno None]" once filename is set
        return str(self.args[0])


def check_writable(path: str | Path, *, overwrite: bool = False) -> Path:
    """Refuse, before any work is done, a `path` that :func:`atomic_write_bytes` could not write:
    an existing folder, an existing file without `overwrite`, a path under a regular file, or a
    folder this process cannot create files in. Returns `path` as a :class:`Path`."""
    path = Path(path)
    if path.is_dir():
        raise CannotWrite(path, "it is a folder", "give the path of a file, inside it or elsewhere")
    if path.exists() and not overwrite:
        raise FileExistsRefused(path)
    folder = _nearest_existing(path.parent)
    if not folder.is_dir():
        raise CannotWrite(
            path,
            f"{folder} is a file, not a folder",
            f"choose a path that does not go through the file {folder}",
        )
    if not os.access(folder, os.W_OK | os.X_OK):
        raise CannotWrite(path, f"no permission to write in {folder}", _WRITABLE_FIX)
    return path


def atomic_write_bytes(path: Path, data: bytes, *, overwrite: bool = False) -> Path:
    """Write `data` to `path` through a temporary file and a rename, so a crash leaves either the
    old file or the new one, never half of one. The file gets the permissions the user's umask
    gives a new file (or keeps those of the file it replaces), as any other program's would."""
    path = check_writable(path, overwrite=overwrite)
    mode = _mode_for(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temp_name = tempfile.mkstemp(
            dir=path.parent, prefix=f".{path.name}.", suffix=".tmp"
        )
    except OSError as error:
        raise _cannot_write(path, error) from None
    try:
        with os.fdopen(handle, "wb") as stream:
            os.fchmod(stream.fileno(), mode)  # mkstemp makes it 0600
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temp_name, path)
    except BaseException as error:
        Path(temp_name).unlink(missing_ok=True)
        if isinstance(error, OSError):
            raise _cannot_write(path, error) from None
        raise
    return path


def atomic_write_text(path: Path, text: str, *, overwrite: bool = False) -> Path:
    return atomic_write_bytes(path, text.encode("utf-8"), overwrite=overwrite)


def current_umask() -> int:
    """The process umask, read without changing it where Linux reports it (os.umask can only
    be read by setting it, which would race with other threads creating files)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


_WRITABLE_FIX = "choose a folder you can write to, or change its permissions"


def _mode_for(path: Path) -> int:
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except OSError:
        return 0o666 & ~current_umask()


def _nearest_existing(folder: Path) -> Path:
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    return folder


def _cannot_write(path: Path, error: OSError) -> CannotWrite:
    if error.errno in (errno.EACCES, errno.EPERM):
        return CannotWrite(path, "permission denied", _WRITABLE_FIX)
    if error.errno == errno.EROFS:
        return CannotWrite(path, "the file system is read-only", _WRITABLE_FIX)
    if error.errno in (errno.ENOTDIR, errno.EEXIST):
        return CannotWrite(
            path, "a part of the path is a file, not a folder", "choose another path"
        )
    if error.errno == errno.ENOSPC:
        return CannotWrite(
            path, "no space left on the device", "free some space, or write elsewhere"
        )
    if error.errno == errno.ENAMETOOLONG:
        return CannotWrite(path, "the name is too long", "choose a shorter name")
    return CannotWrite(path, error.strerror or str(error), "choose another path")
