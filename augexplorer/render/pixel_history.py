"""Which samples' pixels changed since a grid was last drawn, so only those are drawn again.

Each grid (a node's output at one display size) keeps the pixels it last showed and a version
number per sample. A new run's samples are compared with them: the very same DALI output (the
engine hands back its cached output object for a step it did not re-run) costs nothing, equal
bytes keep their version, and anything else gets a new version. Comparing bytes runs at memory
speed (~0.02 ms for a 224 px sample), several times faster than hashing them, and it is exact:
a kept picture is always one made of the same pixels.

Whatever is derived from a sample's pixels (its encoded tile, its grid cell) is cached under its
version, which no other pixels ever share.
"""

from __future__ import annotations

import itertools
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .workers import parallel_map

_VERSIONS = itertools.count(1)
# Grids remembered at once: a node's batch at a size or two, A/B's older side, a variety.
MAX_GRIDS = 8
# Pixels kept across all grids: past this, the grids drawn longest ago are forgotten (a batch of
# 32 rotated 1080p photos alone is ~340 MB; the grid being drawn is always kept).
MAX_BYTES = 256 * 1024 * 1024
# Derived things (encoded tiles, cells) kept per sample: full and preview, at a size or two.
MAX_VARIANTS = 6
# Bytes compared first: an edit that changed a sample usually changed these already.
_FIRST = 4096


@dataclass
class _Sample:
    array: np.ndarray
    version: int
    variants: OrderedDict[Hashable, Any] = field(default_factory=OrderedDict)


@dataclass
class PixelHistory:
    """The last pixels one grid showed, sample by sample, with what was made of them."""

    output: object = None  # the DALI output they came from (held, so its identity stays unique)
    samples: list[_Sample] = field(default_factory=list)

    def update(
        self, output: object, arrays: Callable[[], Sequence[np.ndarray]]
    ) -> tuple[list[np.ndarray], list[int]]:
        """The samples of `output` (`arrays()` copies them to host memory, called only where
        `output` is not the object last shown) and each one's pixel version."""
        if output is not None and output is self.output:
            return [s.array for s in self.samples], [s.version for s in self.samples]
        now = list(arrays())
        olds = self.samples
        same = parallel_map(
            lambda place: place < len(olds) and _same_pixels(olds[place].array, now[place]),
            range(len(now)),
        )
        kept = [
            olds[place] if same[place] else _Sample(array, next(_VERSIONS))
            for place, array in enumerate(now)
        ]
        self.output, self.samples = output, kept
        return now, [s.version for s in kept]

    @property
    def nbytes(self) -> int:
        return sum(sample.array.nbytes for sample in self.samples)

    def lookup(self, place: int, variant: Hashable) -> Any | None:
        """What was made of sample `place`'s pixels as `variant` (a tile at a size and quality),
        or None where nothing was yet."""
        variants = self.samples[place].variants
        if variant not in variants:
            return None
        variants.move_to_end(variant)
        return variants[variant]

    def store(self, place: int, variant: Hashable, made: Any) -> None:
        variants = self.samples[place].variants
        variants[variant] = made
        while len(variants) > MAX_VARIANTS:
            variants.popitem(last=False)

    def made(
        self, variant: Hashable, make: Callable[[int], Any], places: Sequence[int] | None = None
    ) -> list[Any]:
        """`variant` of every sample (of `places`), made by `make(place)` only where its pixels
        have none yet: those are made on the picture threads, side by side."""
        wanted = range(len(self.samples)) if places is None else places
        found = {place: self.lookup(place, variant) for place in wanted}
        missing = [place for place, made in found.items() if made is None]
        for place, made in zip(missing, parallel_map(make, missing), strict=True):
            self.store(place, variant, made)
            found[place] = made
        return [found[place] for place in wanted]


def _same_pixels(old: np.ndarray, new: np.ndarray) -> bool:
    """Equal shape, type and bytes. Compared 8 bytes at a time where the arrays are contiguous:
    numpy's element-wise comparison of uint8 pixels makes a boolean per byte first, 2-3 times
    slower on a 1080p photo."""
    if old.shape != new.shape or old.dtype != new.dtype:
        return False
    if not (old.flags.c_contiguous and new.flags.c_contiguous):
        return bool(np.array_equal(old, new))
    a, b = old.reshape(-1).view(np.uint8), new.reshape(-1).view(np.uint8)
    if not np.array_equal(a[:_FIRST], b[:_FIRST]):  # most changed pixels differ early on
        return False
    whole = a.size // 8 * 8
    return bool(
        np.array_equal(a[:whole].view(np.uint64), b[:whole].view(np.uint64))
        and np.array_equal(a[whole:], b[whole:])
    )


class Histories:
    """The pixel histories of the grids drawn lately, by name (least recently drawn go first)."""

    def __init__(self, limit: int = MAX_GRIDS, max_bytes: int = MAX_BYTES) -> None:
        self._limit = limit
        self._max_bytes = max_bytes
        self._grids: OrderedDict[Hashable, PixelHistory] = OrderedDict()
        self._lock = threading.Lock()

    def of(self, name: Hashable) -> PixelHistory:
        with self._lock:
            history = self._grids.pop(name, None) or PixelHistory()
            self._grids[name] = history
            while len(self._grids) > self._limit or (
                len(self._grids) > 1 and self._nbytes() > self._max_bytes
            ):
                self._grids.popitem(last=False)
            return history

    def _nbytes(self) -> int:
        return sum(history.nbytes for history in self._grids.values())

    def names(self) -> list[Hashable]:
        """The grids remembered, drawn longest ago first."""
        with self._lock:
            return list(self._grids)

    def clear(self) -> None:
        with self._lock:
            self._grids.clear()
