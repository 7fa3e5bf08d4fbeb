"""What was learnt about a folder (its listing, its bad files, each image's decoded size), kept
under ``$XDG_CACHE_HOME/augexplorer/folders`` (default ``~/.cache/augexplorer``) so that opening
it again reads one small file instead of a million directory entries and headers.

The listing depends only on the folder and its class folders' entries, so it is stamped with
their modification times, taken before they are read: adding, removing or renaming a file or a
folder changes them, and the listing is made anew, reading again only the class folders whose
time moved (:func:`kept_classes`); the header results of the listing kept before
(:func:`load_earlier`) are carried onto it by path (:mod:`augexplorer.header_carry`), so that
only the files added since are read. A file changed in place changes no folder's
time, so the header results are kept with each file's stamp (its size and times,
:func:`augexplorer.file_survey.file_stamp`): the next survey stats every file in the background
and looks again at those whose stamp changed. The files of every batch are looked at again
before they are decoded as well (:meth:`augexplorer.file_survey.FileSurvey.check_now`).
"""

from __future__ import annotations

import bisect
import hashlib
import io
import json
import os
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .files import atomic_write_bytes
from .folder_listing import KeptClass, Listing
from .path_table import SEPARATOR, PathTable, RunLabels

VERSION = 1
CHECKED_VERSION = 2  # header results with each file's stamp


def cache_folder(root: str) -> Path:
    """Where what was learnt about folder `root` is kept."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    key = hashlib.sha256(os.path.abspath(root).encode("utf-8", "surrogateescape")).hexdigest()
    return Path(base) / "augexplorer" / "folders" / key[:24]


def folder_stamps(root: str, classes: list[str]) -> dict[str, int] | None:
    """The modification time of `root` and of each class folder, or None if one is gone."""
    try:
        stamps = {"": os.stat(root).st_mtime_ns}
        for name in classes:
            stamps[name] = os.stat(os.path.join(root, name)).st_mtime_ns
    except OSError:
        return None
    return stamps


def stamps_before_listing(root: str) -> dict[str, int] | None:
    """The stamps of `root` and of every folder in it that may be a class, taken before the
    listing is made, so that a change made while it is being made is a change next time."""
    try:
        with os.scandir(root) as entries:
            folders = sorted(entry.name for entry in entries if entry.is_dir())
    except OSError:
        return None
    return folder_stamps(root, folders)


@dataclass
class Known:
    """A folder's cached listing, and the header results if every file was looked at."""

    listing: Listing
    stamps: dict[str, int]
    bad: dict[str, str] | None = None  # path -> reason
    reader_list: str | None = None  # the listing as a DALI file list (save_reader_list)
    sizes: np.ndarray | None = None  # decoded bytes of each listed file
    file_stamps: np.ndarray | None = None  # each listed file's stamp when it was looked at


def load(root: str) -> Known | None:
    """The cached listing of `root` if no folder in it changed since it was made, else None."""
    saved = _read_saved(root, cache_folder(root))
    if saved is None or folder_stamps(root, saved["classes"]) != saved["stamps"]:
        return None
    listing = _saved_listing(saved)
    known = Known(listing, saved["stamps"])
    folder = cache_folder(root)
    reader_list = folder / f"files-{_stamp_key(saved['stamps'])}.txt"
    if reader_list.is_file():
        known.reader_list = str(reader_list)
    checked = _read_checked(folder, saved["stamps"], len(listing.files))
    if checked is not None:
        known.bad, known.sizes, known.file_stamps = checked
    return known


@dataclass
class Earlier:
    """The header results of the listing kept last for a folder, whatever changed in it since:
    each file's decoded size and stamp, in the order of `files`, and the bad ones."""

    files: PathTable
    sizes: np.ndarray
    file_stamps: np.ndarray
    bad: dict[str, str]


def load_earlier(root: str, folder: Path | None = None) -> Earlier | None:
    """What the last survey of `root` found (:class:`Earlier`), kept in `folder` (default
    :func:`cache_folder`), for a survey of its new listing to read again only the files added
    or changed since (:mod:`augexplorer.header_carry`); None where no listing of it, or no
    results for that listing, are kept."""
    folder = folder or cache_folder(root)
    saved = _read_saved(root, folder)
    if saved is None:
        return None
    checked = _read_checked(folder, saved["stamps"], None)
    if checked is None:
        return None
    bad, sizes, file_stamps = checked
    files = _saved_listing(saved).files
    if len(files) != len(sizes):
        return None
    return Earlier(files, sizes, file_stamps, bad)


def kept_classes(root: str, stamps: dict[str, int]) -> Callable[[str], KeptClass | None] | None:
    """The class folders of the listing of `root` kept last whose modification time is still
    as it was (`stamps`, taken now, before listing), by name, for the listing made anew to take
    instead of reading them again (:func:`augexplorer.folder_listing.list_folder`): a file
    added to one class folder of a thousand reads one; None where no listing of `root` is
    kept."""
    saved = _read_saved(root, cache_folder(root))
    if saved is None:
        return None
    before: dict[str, int] = saved["stamps"]
    # each class's names, one a line, as kept (a listing without classes keeps one run of
    # the root's own images, and no class to take)
    names_of: dict[str, str] = {
        name: text
        for name, (_, text) in zip(saved["classes"], saved["names"], strict=False)
        if name in stamps and before.get(name) == stamps[name]
    }
    if not names_of:
        return None
    left_out: dict[str, tuple[list[tuple[str, str]], list[tuple[str, str]]]] = {
        name: ([], []) for name in names_of
    }
    for kind, entries in ((0, saved["ignored"]), (1, saved["bad"])):
        for path, reason in entries:
            name = _class_of(root, path)
            if name in left_out:
                left_out[name][kind].append((path, reason))

    def kept(name: str) -> KeptClass | None:
        if name not in names_of:
            return None
        block = names_of[name].encode("utf-8", "surrogateescape").replace(b"\n", SEPARATOR)
        ignored, bad = left_out[name]
        return KeptClass(block, ignored, bad)

    return kept


def _class_of(root: str, path: str) -> str | None:
    """The class folder of `root` that `path` (an entry the rule left out) is in, or is."""
    top = os.path.join(root, "")
    if not path.startswith(top):
        return None
    rest = path[len(top) :]
    return rest.split(os.sep, 1)[0] if os.sep in rest else rest


def _read_saved(root: str, folder: Path) -> dict[str, Any] | None:
    """The listing of `root` kept in `folder` as written (its stamps not compared), or None."""
    try:
        saved: dict[str, Any] = json.loads((folder / "listing.json").read_text("utf-8"))
    except (OSError, ValueError):
        return None
    if saved.get("version") != VERSION or saved.get("root") != root:
        return None
    return saved


def _saved_listing(saved: dict[str, Any]) -> Listing:
    classes: list[str] = saved["classes"]
    runs = [
        (prefix, label, names.encode("utf-8", "surrogateescape").replace(b"\n", SEPARATOR))
        for label, (prefix, names) in enumerate(saved["names"])
        if names
    ]
    return Listing(
        classes=classes,
        files=PathTable.from_blocks((prefix, block) for prefix, _, block in runs),
        labels=RunLabels(
            [label for _, label, _ in runs],
            np.cumsum([0, *(block.count(SEPARATOR) + 1 for _, _, block in runs)]),
        ),
        ignored=[(path, reason) for path, reason in saved["ignored"]],
        bad=[(path, reason) for path, reason in saved["bad"]],
    )


def _read_checked(
    folder: Path, stamps: dict[str, int], count: int | None
) -> tuple[dict[str, str], np.ndarray, np.ndarray] | None:
    """The header results kept for the listing made under `stamps` (bad, sizes, file stamps),
    or None where there are none, or not `count` of them (when given)."""
    try:
        with np.load(folder / f"checked-{_stamp_key(stamps)}.npz", allow_pickle=False) as found:
            if int(found["version"]) != CHECKED_VERSION:
                return None
            sizes, file_stamps = found["sizes"], found["stamps"]
            bad: dict[str, str] = json.loads(str(found["bad"]))
    except (OSError, ValueError, KeyError):
        return None
    if len(sizes) != len(file_stamps) or (count is not None and len(sizes) != count):
        return None
    return bad, sizes, file_stamps


def _stamp_key(stamps: dict[str, int]) -> str:
    """A name for the header results of the listing made under `stamps`: results of an older
    listing (a survey that finished after the folder changed) never pass for a newer one's."""
    text = json.dumps(stamps, sort_keys=True)
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()[:16]


def save_listing(
    root: str, stamps: dict[str, int], listing: Listing, folder: Path | None = None
) -> bool:
    """Keep `listing`, made after `stamps` were taken, in `folder` (default
    :func:`cache_folder`, which a caller writing later from a thread reads when it opens the
    source); whether it was kept: quietly not where the cache cannot be written (a read-only
    home), a name cannot be kept (one holding a line break) or a class folder came while it
    was being made."""
    kept = {name: stamp for name, stamp in stamps.items() if name == "" or name in listing.classes}
    if len(kept) != len(listing.classes) + 1:
        return False  # a class folder came while listing: list it anew next time
    stamps = kept
    prefixes = [os.path.join(root, name, "") for name in listing.classes] or [
        os.path.join(root, "")
    ]
    names = [""] * len(prefixes)  # each class's names, one per line
    blocks = listing.files.run_blocks()
    for label, (run_folder, block) in zip(listing.labels.run_labels, blocks, strict=True):
        if names[label] or run_folder != prefixes[label] or b"\n" in block:
            return False  # a name holding a line break, or a listing not in class order
        names[label] = block.replace(SEPARATOR, b"\n").decode("utf-8", "surrogateescape")
    saved = {
        "version": VERSION,
        "root": root,
        "stamps": stamps,
        "classes": listing.classes,
        "names": [[prefix, text] for prefix, text in zip(prefixes, names, strict=True)],
        "ignored": listing.ignored,
        "bad": listing.bad,
    }
    return _write(
        (folder or cache_folder(root)) / "listing.json", json.dumps(saved).encode("utf-8")
    )


def save_reader_list(root: str, stamps: dict[str, int], listing: Listing) -> str | None:
    """Write the listing as a DALI file list ("path label" per line) beside it, for the reader;
    its path, or None where `root` is relative (DALI would read the entries from the cache's
    folder), a name holds a line break, or the cache cannot be written. Written a class at a
    time, so a million lines never stand in memory as one text. Lists of other listings are
    removed."""
    if not os.path.isabs(root):
        return None
    kept = {name: stamp for name, stamp in stamps.items() if name == "" or name in listing.classes}
    folder = cache_folder(root)
    key = _stamp_key(kept)
    path = folder / f"files-{key}.txt"
    if not _write_file_list(path, listing.files, listing.labels):
        return None
    for older in folder.glob("files-*.txt"):
        if not older.name.startswith(f"files-{key}"):  # lists of an older listing
            older.unlink(missing_ok=True)
    return str(path)


def save_kept_list(
    reader_list: str, files: Sequence[str], labels: Sequence[int], gone: set[str]
) -> str | None:
    """A DALI file list of `files` and `labels`: those of `reader_list` without the paths of
    `gone` (skip_bad), written beside it under a name made of what was left out; None where it
    cannot be written (the reader is then given `files`)."""
    digest = hashlib.sha256("\n".join(sorted(gone)).encode("utf-8", "surrogateescape"))
    path = Path(reader_list).with_name(
        f"{Path(reader_list).stem}-kept-{digest.hexdigest()[:16]}.txt"
    )
    if path.is_file() or _write_file_list(path, files, labels):
        return str(path)
    return None


def _write_file_list(path: Path, files: Sequence[str], labels: Sequence[int]) -> bool:
    """Write "path label" lines a class at a time, so a million lines never stand in memory as
    one text; False where a name holds a line break or the file cannot be written."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temp = tempfile.mkstemp(dir=path.parent, prefix=".files-", suffix=".tmp")
    except OSError:
        return False
    try:
        with os.fdopen(handle, "wb") as stream:
            for lines in _file_list_chunks(files, labels):
                stream.write(lines)
        os.replace(temp, path)  # whole or not at all, for another process reading it
    except (OSError, ValueError):
        Path(temp).unlink(missing_ok=True)
        return False
    return True


def _file_list_chunks(files: Sequence[str], labels: Sequence[int]) -> Iterator[bytes]:
    """ "path label" lines, a class's run of files at a time (made in C for a
    :class:`PathTable`); ValueError where a name holds a line break."""
    if isinstance(files, PathTable):
        chunks = files.file_list(labels)
        if chunks is not None:
            yield from chunks
            return
    for start, end in _runs(labels):
        ending = f" {labels[start]}\n"
        lines = ending.join(files[start:end]) + ending
        if lines.count("\n") != end - start or "\r" in lines:
            raise ValueError("a name holds a line break")
        yield lines.encode("utf-8", "surrogateescape")


def _runs(labels: Sequence[int]) -> Iterator[tuple[int, int]]:
    """(start, end) of each run of one label: a listing's labels come one run per class folder,
    so a class's files are handled at once, never a line at a time (unless they do not)."""
    if isinstance(labels, RunLabels):
        bounds = labels.bounds
        yield from ((int(bounds[i]), int(bounds[i + 1])) for i in range(len(bounds) - 1))
        return
    start = 0
    while start < len(labels):
        label = labels[start]
        end = bisect.bisect_right(labels, label, lo=start)
        if end <= start or labels[start:end].count(label) != end - start:
            end = start + 1  # not in runs: one at a time
        yield start, end
        start = end


def save_checked(
    root: str,
    stamps: dict[str, int],
    bad: dict[str, str],
    sizes: np.ndarray,
    file_stamps: np.ndarray,
    folder: Path | None = None,
) -> None:
    """Keep the header results of every file of the listing made under `stamps` (`bad` path ->
    reason, each file's decoded size and its stamp when looked at), beside it; results kept
    for other listings are removed."""
    folder = folder or cache_folder(root)
    name = f"checked-{_stamp_key(stamps)}.npz"
    stream = io.BytesIO()
    np.savez(
        stream,
        version=np.array(CHECKED_VERSION),
        sizes=sizes,
        stamps=file_stamps,
        bad=np.array(json.dumps(bad)),
    )
    if _write(folder / name, stream.getvalue()):
        for older in folder.glob("checked-*.npz"):
            if older.name != name:
                older.unlink(missing_ok=True)


def _write(path: Path, data: bytes) -> bool:
    try:
        atomic_write_bytes(path, data, overwrite=True)
    except OSError:
        return False
    return True
