"""A sample of a source drawn evenly over its classes, for statistics on part of a big dataset.

Each class gives the same number of images where it has them (a class with fewer gives all it
has and the others share the rest), chosen at random within the class from a seed: the same
source, count and seed give the same sample. The figures of such a sample weigh the classes
alike, which a sample in reading order (the first classes only) or at random (the big classes
mostly) does not.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np

from ..data import SourceData
from ..errors import AugExplorerError


def even_sample(labels: Sequence[int] | np.ndarray, count: int, seed: int = 0) -> np.ndarray:
    """Indices (ascending) of `count` samples drawn evenly over the classes in `labels`; all
    of them when `count` is at least their number."""
    if count < 1:
        raise ValueError(f"count must be at least 1, got {count}")
    classes = np.asarray(labels, dtype=np.int64).reshape(-1)
    if count >= classes.size:
        return np.arange(classes.size)
    order = np.random.default_rng(seed).permutation(classes.size)
    shuffled = classes[order]
    # each sample's place within its class (in the shuffled order): the k-th of every class
    # is taken before the (k+1)-th of any, so the classes give alike until one runs out
    by_class = np.argsort(shuffled, kind="stable")
    grouped = shuffled[by_class]
    starts = np.flatnonzero(np.r_[True, grouped[1:] != grouped[:-1]])
    sizes = np.diff(np.r_[starts, grouped.size])
    place = np.empty(grouped.size, dtype=np.int64)
    place[by_class] = np.arange(grouped.size) - np.repeat(starts, sizes)
    # ties (the k-th of each class) in the shuffled order: which classes give one more is random
    taken = np.argsort(place, kind="stable")[:count]
    return np.sort(order[taken])


def sampled(data: SourceData, count: int, seed: int = 0) -> SourceData:
    """`data` holding only `count` images drawn evenly over its classes (its labels)."""
    if data.kind not in ("folder", "file_list", "samples", "arrays"):
        raise AugExplorerError(
            f"a sample is drawn from a folder, a file list or arrays, not from a {data.kind} "
            "source (fix: count all of it)"
        )
    picked = even_sample(data.labels, count, seed)
    labels = tuple(int(data.labels[i]) for i in picked)
    if data.kind == "arrays":
        return dataclasses.replace(
            data, arrays=tuple(data.arrays[i] for i in picked), labels=labels
        )
    sizes = data.decoded_sizes
    return dataclasses.replace(
        data,
        files=tuple(data.files[i] for i in picked),
        labels=labels,
        decoded_sizes=None if sizes is None else np.asarray(sizes)[picked],
        reader_list=None,  # the reader is given the sampled files themselves
        survey=None,
    )
