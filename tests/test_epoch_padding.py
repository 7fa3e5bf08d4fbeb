"""Which samples a reader padded, worked out without running it, against DALI's own reader over
three epochs: one and several shards, sizes the batch does and does not divide."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from nvidia.dali import fn, pipeline_def

from augexplorer import Session
from augexplorer.engine.epoch_padding import padded_samples, shard_size


def dali_padding(
    folder: Path, count: int, batch: int, shard: int, shards: int, batches: int
) -> list[list[bool]]:
    """Each batch's padding as DALI's reader makes it: files read in order (no shuffle), so a
    padded sample repeats the sample before it."""
    files = []
    for i in range(count):
        path = folder / f"{i}.bin"
        path.write_bytes(bytes([i]))
        files.append(str(path))

    @pipeline_def(batch_size=batch, num_threads=1, device_id=None)
    def read() -> object:
        _, labels = fn.readers.file(
            files=files,
            labels=list(range(count)),
            pad_last_batch=True,
            shard_id=shard,
            num_shards=shards,
            random_shuffle=False,
        )
        return labels

    pipe = read()
    pipe.build()
    previous = None
    found = []
    for _ in range(batches):
        (labels,) = pipe.run()
        row = []
        for sample in labels.as_array().reshape(-1).tolist():
            row.append(sample == previous)
            previous = sample
        found.append(row)
    return found


@pytest.mark.parametrize(
    ("count", "batch", "shards"), [(7, 3, 1), (19, 8, 1), (19, 4, 2), (10, 3, 3), (12, 4, 1)]
)
def test_padding_is_where_dalis_reader_puts_it(
    tmp_path: Path, count: int, batch: int, shards: int
) -> None:
    epoch = math.ceil(math.ceil(count / shards) / batch)  # batches an epoch
    for shard in range(shards):
        folder = tmp_path / f"shard{shard}"
        folder.mkdir()
        found = dali_padding(folder, count, batch, shard, shards, 3 * epoch)
        for index, row in enumerate(found):
            worked_out = padded_samples(count, batch, index, shard_id=shard, num_shards=shards)
            assert worked_out == row, (count, batch, shard, shards, index)


def test_shards_split_as_dali_splits() -> None:
    assert [shard_size(19, s, 2) for s in range(2)] == [9, 10]
    assert sum(shard_size(1000, s, 7) for s in range(7)) == 1000


def test_the_grid_says_which_tiles_are_padding() -> None:
    # found in a newcomer's trial: at an epoch's end the grid showed a full batch where training
    # gets the epoch's last files only
    session = Session("basic", device_id=None, batch_size=8)  # 19 bundled samples
    session.run()
    session.next_batch()
    last = session.next_batch()
    assert last.padded() == [False] * 3 + [True] * 5
    assert len(set(np.array(last.files())[3:])) == 1  # the padding repeats one file
    assert session.next_batch().padded() == [False] * 8  # the next epoch reads anew
