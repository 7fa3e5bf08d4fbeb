"""The statistics' two passes over every pixel, compiled by numba: per-channel 256-bin counts of
uint8 values, and the pixels whose every channel holds a given value (fill).

A whole-dataset run spends most of its own time here, beside DALI's threads on the same cores.
numpy's ``bincount`` casts every value to a machine integer first (3-5x these loops' time) and
Pillow counts only 1, 3 or 4 channels, after copying RGB into RGBX. The loops
(:mod:`augexplorer.stats.counting_loops`) read the values where DALI left them, once, and release
the GIL. Compiled results are cached on disk, so a process pays numba's start (about half a second), not
a compilation.
"""

from __future__ import annotations

import numpy as np

BINS = 256


def channel_counts(values: np.ndarray, channels: int) -> np.ndarray:
    """Per-channel 256-bin counts of uint8 pixels stored channel after channel, pixel after
    pixel (as DALI's HWC images are), shape (channels, 256). `values` is one contiguous row."""
    if values.dtype != np.uint8 or values.ndim != 1 or channels < 1:
        raise ValueError(f"expected one row of uint8 values and channels >= 1, got {values.dtype}")
    if values.size % channels:
        raise ValueError(f"{values.size} values do not make pixels of {channels} channels")
    counts = np.zeros((channels, BINS), np.int64)
    if values.size:
        from . import counting_loops as loops

        values = np.ascontiguousarray(values)
        if channels == 3:
            loops.count_rgb(values, counts)
        else:
            loops.count_interleaved(values, channels, counts)
    return counts


def matching_pixels(image: np.ndarray, value: np.ndarray, step: int = 1) -> tuple[int, int]:
    """Of a uint8 image (height, width, channels), in any memory order: the pixels on every
    `step`-th row and column whose every channel equals `value` (one per channel, or one for
    all, repeated as a short value is), and the pixels looked at."""
    if image.dtype != np.uint8 or image.ndim != 3:
        raise ValueError(f"expected a uint8 image (height, width, channels), got {image.shape}")
    height, width, channels = image.shape
    looked_at = -(-height // step) * -(-width // step)
    if not looked_at or not value.size:
        return 0, looked_at
    from . import counting_loops as loops

    per_channel = np.resize(value.astype(np.uint8), channels)  # a short value repeated
    return int(loops.count_matching(image, per_channel, step)), looked_at
