"""Which samples of a batch a reader padded: with ``pad_last_batch`` (augexplorer's graphs read
whole epochs, :data:`~augexplorer.catalog.readers.EPOCH_WHOLE`) a shard's last batch of an epoch
is filled with repeats of its last file, not with the next epoch's. Training's loader drops them
on one rank (PARTIAL) and keeps them on several (FILL); the grid says which tiles they are.

DALI pads every shard to the same size, the largest shard rounded up to a whole number of
batches, and after each epoch moves every reader to the next shard (unless ``stick_to_shard``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..plan import Step


def shard_size(count: int, shard: int, shards: int) -> int:
    """The files shard `shard` of `shards` holds, as DALI's readers split `count` files."""
    return count * (shard + 1) // shards - count * shard // shards


def padded_samples(
    count: int,
    batch_size: int,
    batch_index: int,
    *,
    shard_id: int = 0,
    num_shards: int = 1,
    stick_to_shard: bool = False,
) -> list[bool]:
    """Per sample of batch `batch_index` (from 0): whether it is padding."""
    if count <= 0 or batch_size <= 0:
        return [False] * max(batch_size, 0)
    largest = math.ceil(count / num_shards)
    epoch_length = math.ceil(largest / batch_size) * batch_size
    padded = []
    for position in range(batch_index * batch_size, (batch_index + 1) * batch_size):
        epoch, within = divmod(position, epoch_length)
        shard = shard_id if stick_to_shard else (shard_id + epoch) % num_shards
        padded.append(within >= shard_size(count, shard, num_shards))
    return padded


def padded_by_reader(
    files: int, args: Mapping[str, Any], batch_size: int, batch_index: int
) -> list[bool]:
    """:func:`padded_samples` of a reader called with `args` (its shard and whether it pads)
    over `files` files; no sample is padding where it does not pad."""
    if not args.get("pad_last_batch"):
        return [False] * max(batch_size, 0)
    return padded_samples(
        files,
        batch_size,
        batch_index,
        shard_id=int(args.get("shard_id", 0)),
        num_shards=int(args.get("num_shards", 1)),
        stick_to_shard=bool(args.get("stick_to_shard", False)),
    )


def epoch_batches(
    count: int, batch_size: int, *, shard_id: int = 0, num_shards: int = 1, padded: bool = True
) -> int:
    """The batches one epoch of a shard takes: with padding, the largest shard's, rounded up
    (every shard is padded to it); without, the shard's own files, the last batch filled from
    the next epoch."""
    if count <= 0 or batch_size <= 0:
        return 0
    files = math.ceil(count / num_shards) if padded else shard_size(count, shard_id, num_shards)
    return math.ceil(files / batch_size)


def dropped_samples(count: int, batch_size: int, batch_index: int) -> list[bool]:
    """Per sample of batch `batch_index`, for one shard of `count` files read without padding
    (DALI's default, as imported code has it): whether training's loader on one rank drops it.
    The reader fills an epoch's last batch from what comes next and the loader keeps only the
    epoch's count, so every `epoch_batches`-th batch ends in samples training never gets."""
    per_epoch = epoch_batches(count, batch_size, padded=False)
    if not per_epoch or batch_index % per_epoch != per_epoch - 1:
        return [False] * max(batch_size, 0)
    kept = count - (per_epoch - 1) * batch_size
    return [position >= kept for position in range(batch_size)]


def array_samples(
    count: int, batch_size: int, batch_index: int, *, shard_id: int = 0, num_shards: int = 1
) -> tuple[list[int], list[bool]]:
    """Batch `batch_index` of in-memory arrays on shard `shard_id` of `num_shards`, as the
    explorer and the exported module's ``ArrayBatches`` feed it: the index of each sample's
    array and whether it is padding. A shard is its contiguous part of the arrays, read in
    order; every epoch starts again at its first array; a smaller shard repeats from its first
    array up to the epoch's length, and the epoch's last batch is filled with its last sample
    (padding: training's loader drops it on one rank and keeps it on several)."""
    start = count * shard_id // num_shards
    own = shard_size(count, shard_id, num_shards)
    if own <= 0 or batch_size <= 0:
        return [], []
    length = math.ceil(count / num_shards)  # the largest shard's, on every rank
    per_epoch = epoch_batches(count, batch_size, shard_id=shard_id, num_shards=num_shards)
    first = batch_index % per_epoch * batch_size
    positions = range(first, first + batch_size)
    return (
        [start + min(position, length - 1) % own for position in positions],
        [position >= length for position in positions],
    )


def array_shard(step: Step) -> dict[str, int]:
    """The shard of an arrays source a rank's preview reads (:func:`.ranks.plan_for_rank`
    puts it with the reader arguments, which an arrays source has none of otherwise)."""
    args = step.source.reader_args if step.source is not None else {}
    return {"shard_id": int(args.get("shard_id", 0)), "num_shards": int(args.get("num_shards", 1))}
