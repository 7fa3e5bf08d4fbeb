"""A small pool of threads for per-sample picture work (resizing, encoding).

Pillow's resampling and libjpeg-turbo (simplejpeg) release the GIL, so a batch's tiles encode
side by side on as many cores as there are, up to a few: a grid is small work, and more threads
than cores only queue behind each other.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

Item = TypeVar("Item")
Made = TypeVar("Made")

MAX_WORKERS = 4


@functools.cache
def _helpers() -> int:
    return max(1, min(MAX_WORKERS, os.cpu_count() or 1) - 1)  # the caller's thread works too


@functools.cache
def _pool() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=_helpers(), thread_name_prefix="augexplorer-pictures")


def parallel_map(make: Callable[[Item], Made], items: Sequence[Item]) -> list[Made]:
    """`make` of every item, in order: the items split into one run of neighbours per thread,
    the caller's thread taking the first run (one item alone runs where it is)."""
    parts = min(len(items), _helpers() + 1)
    if parts < 2:
        return [make(item) for item in items]
    bounds = [round(len(items) * k / parts) for k in range(parts + 1)]
    runs = [items[bounds[k] : bounds[k + 1]] for k in range(parts)]
    later = [_pool().submit(_make_all, make, run) for run in runs[1:]]
    made = _make_all(make, runs[0])
    for future in later:
        made.extend(future.result())
    return made


def _make_all(make: Callable[[Item], Made], items: Sequence[Item]) -> list[Made]:
    return [make(item) for item in items]
