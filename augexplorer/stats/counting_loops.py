"""The compiled loops behind :mod:`augexplorer.stats.counting` (imported on first use: numba takes
about half a second to start, which the panel's import should not pay)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numba import njit

from .counting import BINS


def compiled(function: Callable[..., Any]) -> Any:
    """`function` compiled without the GIL, its machine code cached on disk where numba finds a
    writable place (beside this file, else the user's cache folder); where it finds none (a
    read-only install under a user without a home), compiled in each process instead of
    refusing to."""
    try:
        return njit(nogil=True, cache=True)(function)
    except RuntimeError:  # numba: "cannot cache function ...: no locator available"
        return njit(nogil=True)(function)


@compiled
def count_interleaved(values: Any, channels: int, counts: Any) -> None:
    # Two tables per channel, for even and odd pixels: consecutive equal values then add to
    # different counters, which keeps one increment from waiting on the last (about 1.5x).
    tables = np.zeros((2 * channels, BINS), np.int64)
    pixels = values.size // channels
    pairs = pixels // 2
    for pair in range(pairs):
        start = 2 * pair * channels
        for channel in range(channels):
            tables[channel, values[start + channel]] += 1
            tables[channels + channel, values[start + channels + channel]] += 1
    if pixels % 2:
        start = (pixels - 1) * channels
        for channel in range(channels):
            tables[channel, values[start + channel]] += 1
    for channel in range(channels):
        for value in range(BINS):
            counts[channel, value] += tables[channel, value] + tables[channels + channel, value]


@compiled
def count_rgb(values: Any, counts: Any) -> None:
    # count_interleaved written out for three channels: about 1.5x faster than its loop
    tables = np.zeros((6, BINS), np.int64)
    pixels = values.size // 3
    for pair in range(pixels // 2):
        start = 6 * pair
        tables[0, values[start]] += 1
        tables[1, values[start + 1]] += 1
        tables[2, values[start + 2]] += 1
        tables[3, values[start + 3]] += 1
        tables[4, values[start + 4]] += 1
        tables[5, values[start + 5]] += 1
    if pixels % 2:
        start = 3 * (pixels - 1)
        tables[0, values[start]] += 1
        tables[1, values[start + 1]] += 1
        tables[2, values[start + 2]] += 1
    for channel in range(3):
        for value in range(BINS):
            counts[channel, value] += tables[channel, value] + tables[3 + channel, value]


@compiled
def count_matching(image: Any, value: Any, step: int) -> int:
    height, width, channels = image.shape
    matching = 0
    # every channel compared, no early exit: a branch per value costs more than the comparisons
    # it saves
    if channels == 3:  # written out: about twice as fast as the loop over channels below
        red, green, blue = value[0], value[1], value[2]
        for row in range(0, height, step):
            pixels = image[row]
            for column in range(0, width, step):
                matching += (
                    (pixels[column, 0] == red)
                    & (pixels[column, 1] == green)
                    & (pixels[column, 2] == blue)
                )
        return matching
    for row in range(0, height, step):
        for column in range(0, width, step):
            same = 1
            for channel in range(channels):
                same &= image[row, column, channel] == value[channel]
            matching += same
    return matching
