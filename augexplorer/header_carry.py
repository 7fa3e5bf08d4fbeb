"""What the last survey of a folder found, carried onto the folder's new listing.

Adding, removing or renaming a file changes its folder's time, so the folder is listed anew
(:mod:`augexplorer.folder_cache`); without this, the survey of the new listing would read every
file's header again to find one new file. Instead, each file of the new listing that the last
listing held gets the decoded size and stamp found for it then (its stamp still tells whether
it changed in place since), and a new file gets ``UNKNOWN``: the survey
(:meth:`augexplorer.file_survey.FileSurvey.carry`) reads only the headers of files whose stamp
differs or is unknown. A removed file is simply not in the new listing.

Matching goes class folder by class folder: a class folder whose names are as they were (all of
them but the changed ones, in a big folder) is carried whole with one comparison of its names'
block and one copy; only a changed class folder's names are looked up one by one.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from .file_survey import UNKNOWN
from .folder_cache import Earlier
from .path_table import SEPARATOR, PathTable


@dataclass
class Carried:
    """The earlier results in the order of the new listing's files (``UNKNOWN`` where a file
    is new), and the earlier bad files the new listing still holds."""

    sizes: np.ndarray
    file_stamps: np.ndarray
    bad: dict[str, str]

    @property
    def unknown(self) -> int:
        """How many files have no earlier result (new since, or unknown then)."""
        return int(np.count_nonzero(self.file_stamps == UNKNOWN))


def carry_over(earlier: Earlier, files: PathTable) -> Carried:
    """`earlier`'s results for each of `files`, matched by path."""
    sizes = np.full(len(files), UNKNOWN, dtype=np.int64)
    stamps = np.full(len(files), UNKNOWN, dtype=np.int64)
    before = {folder: (start, block) for folder, start, block in _runs(earlier.files)}
    for folder, start, block in _runs(files):
        found = before.get(folder)
        if found is None:
            continue  # a class folder new since: every file in it is new
        old_start, old_block = found
        count = block.count(SEPARATOR) + 1
        if block == old_block:  # the class folder as it was
            sizes[start : start + count] = earlier.sizes[old_start : old_start + count]
            stamps[start : start + count] = earlier.file_stamps[old_start : old_start + count]
            continue
        where = {name: index for index, name in enumerate(old_block.split(SEPARATOR))}
        at = np.fromiter((where.get(name, -1) for name in block.split(SEPARATOR)), np.int64, count)
        kept = at >= 0
        sizes[start : start + count][kept] = earlier.sizes[old_start + at[kept]]
        stamps[start : start + count][kept] = earlier.file_stamps[old_start + at[kept]]
    bad = {path: reason for path, reason in earlier.bad.items() if path in files}
    return Carried(sizes, stamps, bad)


def _runs(files: PathTable) -> Iterator[tuple[str, int, bytes]]:
    """Each run's folder, the index of its first file, and its names' block."""
    start = 0
    for folder, block in files.run_blocks():
        yield folder, start, block
        start += block.count(SEPARATOR) + 1
