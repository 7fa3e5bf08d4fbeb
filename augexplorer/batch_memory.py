"""How much memory one decoded batch takes, estimated from image headers, and the budget it must
fit in.

A 12000x12000 JPEG decodes to 432 MB of RGB pixels; a batch of eight of them took 23 s and 7.1 GB
before anything was shown. Sources record each file's size from its header
(:mod:`augexplorer.image_header`), so a batch that cannot fit is refused before any decoding,
with the estimate and the batch size that would fit.

The budget is :data:`DEFAULT_MEMORY_BUDGET`, or the ``AUGEXPLORER_MEMORY_BUDGET`` environment
variable (bytes, or with a unit: ``512M``, ``8G``), or the `budget` argument of
:func:`check_batch_memory`. The estimate counts the decoded batch once; the pipeline's own
buffers and each node's cached output come on top, so a process needs about twice as much.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence

import numpy as np

from .errors import DataError

BUDGET_VARIABLE = "AUGEXPLORER_MEMORY_BUDGET"
DEFAULT_MEMORY_BUDGET = 2 * 1024**3  # decoded pixels of one batch, in bytes
DECODED_CHANNELS = 3  # decoders write RGB unless told otherwise

_UNITS = {"": 1, "K": 1024, "M": 1024**2, "G": 1024**3, "T": 1024**4}
_AMOUNT = re.compile(r"\s*(\d+(?:\.\d+)?)\s*([KMGT]?)(?:I?B)?\s*", re.IGNORECASE)


def parse_bytes(text: str) -> int:
    """``"2G"`` -> 2147483648; a plain number is bytes. Raises ValueError for anything else."""
    match = _AMOUNT.fullmatch(text)
    if match is None:
        raise ValueError(f"not an amount of memory: {text!r}")
    amount = float(match.group(1)) * _UNITS[match.group(2).upper()]
    if amount < 1:
        raise ValueError(f"not an amount of memory: {text!r}")
    return int(amount)


def memory_budget() -> int:
    """The budget for one decoded batch: ``AUGEXPLORER_MEMORY_BUDGET`` if set, else the default."""
    text = os.environ.get(BUDGET_VARIABLE)
    if not text:
        return DEFAULT_MEMORY_BUDGET
    try:
        return parse_bytes(text)
    except ValueError:
        raise DataError(
            f"{BUDGET_VARIABLE}={text!r} is not an amount of memory",
            fix=f"set it to bytes or a size such as 4G or 512M, or unset it for "
            f"{format_bytes(DEFAULT_MEMORY_BUDGET)}",
        ) from None


def format_bytes(count: float) -> str:
    """``3.5 GB``, ``12 MB``: binary units, as the budget is written."""
    for unit in ("B", "KB", "MB", "GB"):
        if count < 1024 or unit == "GB":
            return f"{count:.3g} {unit}" if unit != "B" else f"{int(count)} B"
        count /= 1024
    raise AssertionError("unreachable")


def decoded_bytes(width: int, height: int) -> int:
    """Bytes of one image decoded to 8-bit RGB."""
    return width * height * DECODED_CHANNELS


def largest_batch(sizes: Sequence[int] | np.ndarray, batch_size: int) -> int:
    """Bytes of the largest batch the files can make: the `batch_size` largest sizes, summed
    (a shuffled reader can put any files together; it cycles, so a small source repeats)."""
    array = np.asarray(sizes, dtype=np.int64)
    if array.size == 0 or batch_size < 1:
        return 0
    if batch_size > array.size:  # the reader wraps around: every file at least once
        whole, rest = divmod(batch_size, array.size)
        return int(array.sum()) * whole + largest_batch(array, rest)
    return int(np.partition(array, array.size - batch_size)[array.size - batch_size :].sum())


def batch_that_fits(sizes: Sequence[int] | np.ndarray, budget: int) -> int:
    """The largest batch size whose largest batch fits in `budget` (0 if one image does not)."""
    ordered = np.sort(np.asarray(sizes, dtype=np.int64))[::-1]
    return int(np.searchsorted(np.cumsum(ordered), budget, side="right"))


def check_batch_memory(
    sizes: Sequence[int] | np.ndarray,
    batch_size: int,
    *,
    files: Sequence[str] = (),
    where: str | None = None,
    budget: int | None = None,
) -> None:
    """Raise :class:`DataError` when decoding a batch of the largest images could exceed the
    budget; `sizes` are the decoded bytes of each file (of `files`, for naming the largest)."""
    limit = memory_budget() if budget is None else budget
    need = largest_batch(sizes, batch_size)
    if need <= limit:
        return
    array = np.asarray(sizes, dtype=np.int64)
    biggest = int(np.argmax(array))
    example = (
        f" (the largest: {files[biggest]}, {format_bytes(int(array[biggest]))})" if files else ""
    )
    fits = batch_that_fits(array, limit)
    smaller = (
        f"a batch size of at most {fits}"
        if fits >= 1
        else "smaller images (even one is over the budget)"
    )
    raise DataError(
        f"decoding a batch of {batch_size} could take about {format_bytes(need)}{example}, more "
        f"than the memory budget of {format_bytes(limit)}",
        path=where,
        fix=f"use {smaller}, or raise the budget: {BUDGET_VARIABLE}=8G in the environment",
    )
