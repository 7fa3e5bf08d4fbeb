"""Which samples a reader padded, worked out without running it, against DALI's own reader over
three epochs: one and several shards, sizes the batch does and does not divide."""

from __future__ import annotations

import dataclasses
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


@pytest.mark.parametrize(("count", "batch"), [(19, 4), (7, 3), (12, 4), (5, 8)])
def test_without_padding_the_loader_drops_what_dropped_samples_says(
    tmp_path: Path, count: int, batch: int
) -> None:
    """A reader that does not pad (DALI's default, as imported code has it), one shard: over
    three epochs, DALI's own PyTorch iterator (PARTIAL, as the exported loader on one rank)
    gives each batch of the pipeline less exactly the samples dropped_samples marks."""
    from nvidia.dali.plugin.pytorch import DALIGenericIterator, LastBatchPolicy

    from augexplorer.engine.epoch_padding import dropped_samples, epoch_batches

    files = []
    for i in range(count):
        path = tmp_path / f"{i}.bin"
        path.write_bytes(bytes([i]))
        files.append(str(path))

    @pipeline_def(batch_size=batch, num_threads=1, device_id=None, prefetch_queue_depth=1)
    def read() -> object:
        _, labels = fn.readers.file(
            files=files, labels=list(range(count)), random_shuffle=False, name="reader"
        )
        return labels

    per_epoch = epoch_batches(count, batch, padded=False)
    raw_pipe = read()
    raw_pipe.build()
    raw = [raw_pipe.run()[0].as_array().reshape(-1).tolist() for _ in range(3 * per_epoch)]
    loader = DALIGenericIterator(
        [read()], ["labels"], reader_name="reader", last_batch_policy=LastBatchPolicy.PARTIAL
    )
    given = []
    for _ in range(3):
        given += [b[0]["labels"].reshape(-1).tolist() for b in loader]
        loader.reset()
    assert len(given) == len(raw)
    for index, (whole, kept) in enumerate(zip(raw, given, strict=True)):
        flags = dropped_samples(count, batch, index)
        assert kept == [v for v, drop in zip(whole, flags, strict=True) if not drop], index


def test_the_explorer_marks_the_samples_training_drops(tmp_path: Path) -> None:
    """The bundled samples read without padding: the epoch's last batch's tail is marked as
    dropped, none as padding; on several ranks (FILL keeps them) none is."""
    from augexplorer import preset
    from augexplorer.engine.epoch_padding import dropped_samples, epoch_batches

    spec = preset("basic").with_source(
        dataclasses.replace(preset("basic").sources()[0], reader_args={"pad_last_batch": False})
    )
    session = Session(dataclasses.replace(spec, batch_size=4), device_id=None)
    result = session.run()
    count = len(result.source_data().files)  # type: ignore[union-attr]
    last = epoch_batches(count, 4, padded=False) - 1
    for _ in range(last):
        result = session.next_batch()
    assert result.dropped() == dropped_samples(count, 4, last) and any(result.dropped())
    assert not any(result.padded())
    ranked = Session(dataclasses.replace(spec, batch_size=4), device_id=None, rank=0, world_size=2)
    assert not any(ranked.run().dropped())
