"""Every file of a big source looked at in the background, after its first grid is shown.

A source of many files opens on its listing alone (:func:`augexplorer.data.open_source` with
``check_all=False``); the files of each batch are looked at before they are decoded
(:meth:`FileSurvey.check_now`), and a daemon thread looks at all the others, one header each, so
that every bad file is found and named without making the first grid wait. What it finds (bad
files with their reasons, each good file's decoded size) can be handed to a callback once it is
done, for the folder cache (:mod:`augexplorer.folder_cache`).

Each file's stamp (:func:`file_stamp`: its size and times from one ``stat``, taken before its
header is read) is kept with what was found, so that a survey given the results of an earlier
one looks again only at the files changed since: a file rewritten in place changes no folder's
time, and would otherwise keep its old size or reason for good.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from .batch_memory import decoded_bytes
from .image_header import ImageHeader

Inspect = Callable[[str], "ImageHeader | str"]
UNKNOWN = -1  # a decoded size or stamp not known yet (the file not looked at yet, or bad)


def file_stamp(path: str) -> int:
    """What changes when the file at `path` is written, replaced or resized: a hash of its size,
    inode and modification and change times (the change time moves on any write, even one
    that sets the modification time back); ``UNKNOWN`` where it cannot be stat'ed (a hash of
    integers is never -1, and the same in every process)."""
    try:
        info = os.stat(path)
    except OSError:
        return UNKNOWN
    return hash((info.st_size, info.st_ino, info.st_mtime_ns, info.st_ctime_ns))


@dataclass(frozen=True)
class Progress:
    """How far the background look has come: `checked` of `total` files, `bad` found so far,
    and the seconds it is expected to take still (None until there is a rate to go by)."""

    checked: int
    total: int
    bad: int
    eta_s: float | None

    @property
    def done(self) -> bool:
        return self.checked >= self.total

    def line(self) -> str:
        if self.done:
            return f"all {self.total:,} images checked, {self.bad:,} bad"
        eta = "" if self.eta_s is None else f", about {self.eta_s:.0f} s to go"
        return (
            f"checking images in the background: {self.checked:,} of {self.total:,}"
            f" ({self.bad:,} bad so far{eta})"
        )


@dataclass
class Looked:
    """What a look at a batch's files found: the bad ones (path, reason), and the good ones
    (each sample's, a file read twice counted twice) with their decoded sizes in bytes."""

    bad: list[tuple[str, str]]
    good: list[str]
    sizes: list[int]


class FileSurvey:
    """Looks at each of `files` once with `inspect` (a header, never pixels), in a daemon
    thread started by :meth:`start`. Results found before (the folder cache) may be given:
    `known_bad` (path -> reason), `sizes` (the decoded size of each file, ``UNKNOWN`` where
    bad) and `stamps` (each file's :func:`file_stamp` when it was looked at). Given all three,
    the survey only stats each file and looks again at those whose stamp changed; a known bad
    file that changed is taken off the bad ones at once (a few stats), so that skip_bad does
    not leave out a file since mended. `reason_prefix` gives the words before a file's reason
    (a file list's line number); `on_start` runs in the thread before the files are looked at,
    `on_done` after (after a look again, only if a file had changed)."""

    def __init__(
        self,
        files: Sequence[str],
        inspect: Inspect,
        *,
        known_bad: Mapping[str, str] | None = None,
        sizes: np.ndarray | None = None,
        stamps: np.ndarray | None = None,
        reason_prefix: Callable[[int], str] | None = None,
        on_start: Callable[[], None] | None = None,
        on_done: Callable[[FileSurvey], None] | None = None,
    ) -> None:
        self.files = files
        self._inspect = inspect
        self._prefix = reason_prefix
        self._on_start = on_start
        self._on_done = on_done
        self._lock = threading.Lock()
        self._bad: dict[str, str] = {}
        # a look again at results found before: only files whose stamp changed are looked at
        self.again = (
            sizes is not None
            and stamps is not None
            and len(sizes) == len(stamps) == len(files)
            and known_bad is not None
        )
        self._sizes: np.ndarray = np.full(len(files), UNKNOWN, dtype=np.int64)
        self._stamps: np.ndarray = np.full(len(files), UNKNOWN, dtype=np.int64)
        if self.again and sizes is not None and stamps is not None and known_bad is not None:
            self._sizes, self._stamps = sizes, stamps
            self._bad = self._still_bad(known_bad)
        self._changed = False  # whether a look again found a changed file
        self._checked = 0
        self._started_at: float | None = None
        self._stop = threading.Event()
        self._finished = threading.Event()
        self._thread: threading.Thread | None = None
        if not len(files):
            self._finished.set()

    def _still_bad(self, known_bad: Mapping[str, str]) -> dict[str, str]:
        """The known bad files not changed since they were found bad (a stat each, and a
        look for each one's place among the files; bad files are few)."""
        still: dict[str, str] = {}
        for path, reason in known_bad.items():
            try:
                index = self.files.index(path)  # a search in C for a big folder's PathTable
            except ValueError:
                continue
            if file_stamp(path) == self._stamps[index] != UNKNOWN:
                still[path] = reason
        return still

    def carry(self, sizes: np.ndarray, stamps: np.ndarray, known_bad: Mapping[str, str]) -> None:
        """Take results found for an earlier listing of the same files (a folder changed since:
        :mod:`augexplorer.header_carry`), each file's in this survey's order, ``UNKNOWN`` for a
        file new since; the survey then looks again as if given them when made: it reads the
        header only of files whose stamp differs or is unknown. Called before the look starts
        (from `on_start`); a file found bad meanwhile on demand keeps its reason."""
        if len(sizes) != len(self.files) or len(stamps) != len(self.files):
            raise ValueError(
                f"carried results for {len(sizes)} files, the survey has {len(self.files)}"
            )
        self._sizes, self._stamps = sizes, stamps
        self.again = True
        still = self._still_bad(known_bad)
        with self._lock:
            self._bad = {**still, **self._bad}  # what a batch's look found now is newer

    # ---- the background look -----------------------------------------------------------------
    def start(self) -> FileSurvey:
        """Start looking (once); returns self."""
        if self._on_start is not None and self._finished.is_set():
            self._on_start()  # nothing to look at: only the work to do first
        elif self._thread is None and not self._finished.is_set():
            self._started_at = time.perf_counter()
            self._thread = threading.Thread(
                target=self._look_at_all, name="augexplorer-file-survey", daemon=True
            )
            self._thread.start()
        return self

    def stop(self) -> None:
        """Stop looking (the source was closed or replaced); what was found is kept."""
        self._stop.set()

    def _look_at_all(self) -> None:
        if self._on_start is not None:
            self._on_start()  # such as keeping the listing in the cache, behind the grid
        stamps = self._stamps
        for index, path in enumerate(self.files):
            if self._stop.is_set():
                return
            stamp = file_stamp(path)  # before the look: a change during it is a change later
            if not self.again or stamp != stamps[index] or stamp == UNKNOWN:
                self._record(index, path, self._inspect(path))
                stamps[index] = stamp
                self._changed = True
            self._checked = index + 1
        try:
            if self._on_done is not None and (self._changed or not self.again):
                self._on_done(self)  # before done: whoever waits finds it kept
        finally:
            self._finished.set()

    def _record(self, index: int, path: str, found: ImageHeader | str) -> None:
        if isinstance(found, str):
            prefix = self._prefix(index) if self._prefix is not None else ""
            self._sizes[index] = UNKNOWN
            with self._lock:
                if self.again:
                    self._bad[path] = prefix + found  # a file changed: its reason may have
                else:
                    self._bad.setdefault(path, prefix + found)
        else:
            self._sizes[index] = decoded_bytes(found.width, found.height)
            if self.again:
                with self._lock:
                    self._bad.pop(path, None)  # mended since it was found bad

    # ---- on demand ---------------------------------------------------------------------------
    def check_now(self, paths: Sequence[str]) -> list[tuple[str, str]]:
        """Look at `paths` now (a batch about to be decoded), whatever the background has
        reached; returns the bad ones with their reasons. A file is looked at anew even if it
        was looked at before: it may have changed since."""
        return self.look_now(paths).bad

    def look_now(self, paths: Sequence[str]) -> Looked:
        """:meth:`check_now`, with the decoded size of each good one of `paths` as well."""
        looked = Looked([], [], [])
        for path in paths:
            found = self._inspect(path)
            if isinstance(found, str):
                if path not in (bad for bad, _ in looked.bad):
                    looked.bad.append((path, self._bad_reason(path, found)))
            else:
                looked.good.append(path)
                looked.sizes.append(decoded_bytes(found.width, found.height))
        return looked

    def _bad_reason(self, path: str, found: str) -> str:
        with self._lock:
            if path in self._bad:
                return self._bad[path]
        prefix = ""
        if self._prefix is not None:
            try:
                prefix = self._prefix(self.files.index(path))
            except ValueError:
                prefix = ""
        with self._lock:
            return self._bad.setdefault(path, prefix + found)

    # ---- what is known -----------------------------------------------------------------------
    @property
    def done(self) -> bool:
        return self._finished.is_set()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until every file was looked at (or `timeout` seconds); whether it is done."""
        return self._finished.wait(timeout)

    def bad(self) -> list[tuple[str, str]]:
        """The bad files found so far, (path, reason), in the order they were found."""
        with self._lock:
            return list(self._bad.items())

    def progress(self) -> Progress:
        checked, total = self._checked, len(self.files)
        eta = None
        if self._started_at is not None and 0 < checked < total:
            rate = checked / (time.perf_counter() - self._started_at)
            eta = (total - checked) / rate
        with self._lock:
            bad = len(self._bad)
        return Progress(checked, total, bad, eta)

    def decoded_sizes(self) -> np.ndarray | None:
        """The decoded size of each file, once every file was looked at (bad ones ``UNKNOWN``);
        during a look again, the sizes found before, each changed file's as found anew."""
        return self._sizes if self.again or self._checked >= len(self.files) else None

    def stamps(self) -> np.ndarray | None:
        """Each file's :func:`file_stamp` when it was looked at, once every file was; during
        a look again, the stamps found before, each changed file's as found anew."""
        return self._stamps if self.again or self._checked >= len(self.files) else None
