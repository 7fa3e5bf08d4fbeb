"""A CPU batch of the statistics pipeline as numpy views of DALI's own memory, one per sample,
with the whole batch as one flat buffer where DALI holds it in one piece.

Per sample, going through DALI's tensor objects and numpy's buffer protocol costs tens of
microseconds; over every output of every batch that was a large part of a run's own time. One
view of the batch, sliced per sample, costs about the same once per batch.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import numpy as np


class HostViews(list[np.ndarray]):
    """The samples of one batch; `flat` is every sample's values one after the other in one
    contiguous buffer (sample order, each sample C-ordered), or None where DALI does not hold
    the batch in one piece."""

    def __init__(
        self, samples: Iterable[np.ndarray] = (), flat: np.ndarray | None = None, owner: Any = None
    ):
        super().__init__(samples)
        self.flat = flat
        self.owner = owner  # the DALI batch whose memory the views read: kept while they are

    def first(self, keep: int | None) -> HostViews:
        """The first `keep` samples (all when None), with their part of the flat buffer."""
        if keep is None or keep >= len(self):
            return self
        kept = self[:keep]
        flat = None
        if self.flat is not None:
            flat = self.flat[: sum(sample.size for sample in kept)]
        return HostViews(kept, flat, self.owner)


def cpu_views(batch: Any) -> HostViews:
    """Views of a CPU batch (a DALI TensorListCPU) without copying it."""
    count = len(batch)
    if count == 0:
        return HostViews()
    if batch.is_dense_tensor():
        dense = np.asarray(batch.as_tensor())
        samples = (dense[index, ...] for index in range(count))
        return HostViews(samples, dense.reshape(-1), batch)
    shapes = [tuple(int(size) for size in shape) for shape in batch.shape()]
    sizes = [math.prod(shape) for shape in shapes]
    try:
        flat = np.asarray(batch.as_reshaped_tensor([sum(sizes)]))
    except (RuntimeError, ValueError, TypeError):  # not one contiguous allocation
        return HostViews((np.asarray(batch[index]) for index in range(count)), None, batch)
    views = []
    offset = 0
    for shape, size in zip(shapes, sizes, strict=True):
        views.append(flat[offset : offset + size].reshape(shape))
        offset += size
    return HostViews(views, flat, batch)


PREFIX = 1 << 16  # values compared first: most outputs differ from their input early on


def same_bytes(first: HostViews, second: HostViews) -> bool:
    """Whether two batches hold the same values in the same order (both in one buffer each)."""
    a, b = first.flat, second.flat
    if a is None or b is None or a.dtype != b.dtype or a.size != b.size:
        return False
    return bool(np.array_equal(a[:PREFIX], b[:PREFIX]) and np.array_equal(a, b))
