"""The files of a big folder, held as one block of bytes instead of a Python string per file.

A folder's files come in runs: the files of one class folder share its path and its label. A
:class:`PathTable` keeps each run's folder once, every file name in one ``bytes`` block (names
separated by a NUL, which no file name holds) with one offset each in a NumPy array, and each
run's label once (:class:`RunLabels`). A million files then cost their names' bytes and a few
bytes each, not a million ``str`` objects (about 100 bytes each) and two tuples of pointers;
a path is made only when it is asked for.

Both are sequences, equal to a tuple or list of the same items, so code that reads a source's
``files`` and ``labels`` reads them as it reads tuples.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterable, Iterator, Sequence
from typing import overload

import numpy as np

SEPARATOR = b"\0"  # never in a file name, so never in the block but between names
_ENCODING = ("utf-8", "surrogateescape")  # as os.fsencode: every name round-trips


class PathTable(Sequence[str]):
    """Paths ``folders[run] + name``, in order; `runs[run]` is the index of a run's first file
    (a last entry gives the length), `block` the names joined by :data:`SEPARATOR`."""

    __slots__ = ("_block", "_ends", "_folders", "_runs", "_where")

    def __init__(self, folders: Sequence[str], runs: np.ndarray, block: bytes) -> None:
        self._folders = tuple(folders)
        self._runs = np.asarray(runs, dtype=np.int64)
        self._block = block
        # where each name ends (at its separator, or the block's end for the last one)
        ends = np.flatnonzero(np.frombuffer(block, dtype=np.uint8) == 0)
        ends = np.append(ends, len(block)) if block else ends
        small = len(block) < 2**32
        self._ends = ends.astype(np.uint32 if small else np.int64)
        if len(self._ends) != self._runs[-1] or len(self._runs) != len(self._folders) + 1:
            raise ValueError("a path table's runs do not add up to its names")
        self._where = {folder: run for run, folder in enumerate(self._folders)}

    @classmethod
    def from_runs(cls, runs: Iterable[tuple[str, Sequence[str]]]) -> PathTable:
        """The paths of (folder, names) runs: each folder ends in a separator ("/data/cat/"),
        a name holds no NUL (none can)."""
        return cls.from_blocks(
            (folder, "\0".join(names).encode(*_ENCODING))  # one call, not one a name
            for folder, names in runs
            if names
        )

    @classmethod
    def from_blocks(cls, runs: Iterable[tuple[str, bytes]]) -> PathTable:
        """The paths of (folder, block) runs, a block being a run's names encoded as
        ``os.fsencode`` encodes them and joined by :data:`SEPARATOR`; empty blocks are no run."""
        folders: list[str] = []
        counts = [0]
        blocks: list[bytes] = []
        for folder, block in runs:
            if block:
                folders.append(folder)
                counts.append(block.count(SEPARATOR) + 1)
                blocks.append(block)
        return cls(folders, np.cumsum(counts), SEPARATOR.join(blocks))

    # ---- a sequence --------------------------------------------------------------------------
    def __len__(self) -> int:
        return int(self._runs[-1])

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[str, ...]: ...

    def __getitem__(self, index: int | slice) -> str | tuple[str, ...]:
        if isinstance(index, slice):
            return tuple(self[i] for i in range(*index.indices(len(self))))
        index, run = _run_of(self._runs, index, "path table")
        start = int(self._ends[index - 1]) + 1 if index else 0
        name = self._block[start : int(self._ends[index])].decode(*_ENCODING)
        return self._folders[run] + name

    def __iter__(self) -> Iterator[str]:
        for folder, block in self.run_blocks():
            for name in block.decode(*_ENCODING).split("\0"):
                yield folder + name

    def run_blocks(self) -> Iterator[tuple[str, bytes]]:
        """Each run's folder and its names' block (NUL between names)."""
        for run, folder in enumerate(self._folders):
            first, last = int(self._runs[run]), int(self._runs[run + 1])
            start = int(self._ends[first - 1]) + 1 if first else 0
            yield folder, self._block[start : int(self._ends[last - 1])]

    def file_list(self, labels: Sequence[int]) -> Iterator[bytes] | None:
        """This table with `labels` as the lines of a DALI file list ("path label\\n"), a run
        at a time, each made in C; None where `labels` are not :class:`RunLabels` of this
        table's runs, or a name holds a line break (a line could not hold it)."""
        if not isinstance(labels, RunLabels) or not np.array_equal(labels.bounds, self._runs):
            return None
        if b"\n" in self._block or b"\r" in self._block:
            return None
        return (
            folder.encode(*_ENCODING)
            + block.replace(SEPARATOR, b" %d\n" % label + folder.encode(*_ENCODING))
            + b" %d\n" % label
            for (folder, block), label in zip(self.run_blocks(), labels.run_labels, strict=True)
        )

    def __contains__(self, path: object) -> bool:
        return isinstance(path, str) and self._find(path) is not None

    def index(self, path: str, start: int = 0, stop: int | None = None) -> int:
        found = self._find(path) if isinstance(path, str) else None
        if found is None or found < start or (stop is not None and found >= stop):
            raise ValueError(f"{path!r} is not in the path table")
        return found

    def _find(self, path: str) -> int | None:
        """The index of `path`, or None: its run by its folder, then a search of that run's
        names (a run is one folder's files: one search in C, no string per file)."""
        cut = path.rfind(os.sep) + 1
        run = self._where.get(path[:cut])
        if run is None:
            return None
        first, last = int(self._runs[run]), int(self._runs[run + 1])
        start = int(self._ends[first - 1]) + 1 if first else 0
        end = int(self._ends[last - 1])
        name = path[cut:].encode(*_ENCODING)
        if not name or SEPARATOR in name:
            return None
        block = self._block
        at = start
        while True:
            at = block.find(name, at, end)
            if at < 0:
                return None
            stop = at + len(name)
            if (at == start or block[at - 1] == 0) and (stop == end or block[stop] == 0):
                # the names before it: the separators between the run's start and it
                return first + block.count(SEPARATOR, start, at)
            at += 1

    # ---- equal to a tuple of the same paths --------------------------------------------------
    def __eq__(self, other: object) -> bool:
        if isinstance(other, PathTable):
            return (
                self._block == other._block
                and self._folders == other._folders
                and np.array_equal(self._runs, other._runs)
            ) or tuple(self) == tuple(other)
        if isinstance(other, (tuple, list)):
            return len(other) == len(self) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        shown = ", ".join(repr(path) for path in self[:2])
        return f"PathTable({len(self):,} paths: {shown}{', ...' if len(self) > 2 else ''})"

    # ---- without some ------------------------------------------------------------------------
    def without(self, indices: Iterable[int]) -> PathTable:
        """This table without the paths at `indices` (a few bad files: the block is cut
        around them, no string made per file)."""
        gone = sorted(set(indices))
        if not gone:
            return self
        pieces: list[bytes] = []
        at = 0
        for index in gone:
            start = int(self._ends[index - 1]) + 1 if index else 0
            pieces.append(self._block[at:start])
            at = int(self._ends[index]) + 1
        pieces.append(self._block[at:])
        block = b"".join(pieces)
        if block.endswith(SEPARATOR):  # the last path went: the one before it ends the block
            block = block[:-1]
        removed = np.searchsorted(np.asarray(gone), self._runs, side="left")
        runs = self._runs - removed
        kept = [run for run in range(len(self._folders)) if runs[run + 1] > runs[run]]
        folders = [self._folders[run] for run in kept]
        bounds = np.append(runs[kept], runs[-1]) if kept else np.zeros(1, np.int64)
        return PathTable(folders, bounds, block)

    def labels_without(self, labels: RunLabels, indices: Iterable[int]) -> RunLabels:
        """`labels` (one per run of this table) less those at `indices`, as :meth:`without`."""
        gone = np.asarray(sorted(set(indices)), dtype=np.int64)
        runs = self._runs - np.searchsorted(gone, self._runs, side="left")
        kept = [run for run in range(len(self._folders)) if runs[run + 1] > runs[run]]
        return RunLabels(
            [labels.run_labels[run] for run in kept],
            np.append(runs[kept], runs[-1]) if kept else np.zeros(1, np.int64),
        )


def _run_of(runs: np.ndarray, index: int, what: str) -> tuple[int, int]:
    """`index` (negative counts from the end) made plain, and the run holding it: `runs` are
    the runs' starts with the total count last."""
    count = int(runs[-1])
    if index < 0:
        index += count
    if not 0 <= index < count:
        raise IndexError(f"{what} index out of range")
    return index, int(np.searchsorted(runs, index, side="right")) - 1


class RunLabels(Sequence[int]):
    """A label per file where each run of files shares one: `run_labels[run]` for the files
    from `runs[run]` to `runs[run + 1]`."""

    __slots__ = ("_runs", "run_labels")

    def __init__(self, run_labels: Sequence[int], runs: np.ndarray | Sequence[int]) -> None:
        self.run_labels = tuple(int(label) for label in run_labels)
        self._runs = np.asarray(runs, dtype=np.int64)
        if len(self._runs) != len(self.run_labels) + 1:
            raise ValueError("run labels need one more run boundary than labels")

    def __len__(self) -> int:
        return int(self._runs[-1])

    def present(self) -> frozenset[int]:
        """The labels at least one file has (a run may hold no file)."""
        held = np.diff(self._runs) > 0
        return frozenset(label for label, full in zip(self.run_labels, held, strict=True) if full)

    @overload
    def __getitem__(self, index: int) -> int: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[int, ...]: ...

    def __getitem__(self, index: int | slice) -> int | tuple[int, ...]:
        if isinstance(index, slice):
            return tuple(self[i] for i in range(*index.indices(len(self))))
        return self.run_labels[_run_of(self._runs, index, "run labels")[1]]

    def __iter__(self) -> Iterator[int]:
        for run, label in enumerate(self.run_labels):
            yield from itertools.repeat(label, int(self._runs[run + 1] - self._runs[run]))

    @property
    def bounds(self) -> np.ndarray:
        """Where each run starts, and the length last."""
        return self._runs

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (RunLabels, tuple, list)):
            return len(other) == len(self) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"RunLabels({len(self):,} labels in {len(self.run_labels)} runs)"
