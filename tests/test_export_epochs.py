"""Every epoch of the exported loader reads each file once: a shard whose size the batch does not
divide ends in a batch padded with its last file, not one filled from the next epoch (which then
lacked those files and read others twice). On several ranks every rank runs the same number of
full batches by default, since DDP steps them together and an empty batch gives a NaN loss."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

from augexplorer.data import samples_dir
from augexplorer.export import export
from augexplorer.presets import preset
from augexplorer.spec import Source

FILES = 7  # a class folder each: a sample's label says which file it is

EPOCHS = textwrap.dedent(
    """
    import importlib.util, json, os, sys

    spec = importlib.util.spec_from_file_location("exported", sys.argv[1])
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    policy = {"default": None, "partial": module.LastBatchPolicy.PARTIAL}[sys.argv[4]]
    seen = {}
    for rank in range(int(sys.argv[3])):
        os.environ.update(RANK=str(rank), WORLD_SIZE=sys.argv[3])  # as torchrun sets them
        loader = module.make_loader(
            sys.argv[2], batch_size=3, device="cpu", num_threads=1, last_batch_policy=policy
        )
        # each batch's labels, and how many of them the loader calls the epoch's own
        seen[rank] = [
            [[batch[0]["labels"].view(-1).tolist(), loader.valid] for batch in loader]
            for _ in range(3)
        ]
    print(json.dumps(seen))
    """
)


def one_file_a_class(root: Path) -> Path:
    photos = sorted(samples_dir().rglob("*.jpg"))[:FILES]
    for i, photo in enumerate(photos):
        (root / f"class_{i}").mkdir(parents=True)
        os.link(photo, root / f"class_{i}" / photo.name)
    return root


def epochs(tmp_path: Path, ranks: int, policy: str) -> dict[int, list[list[list[int]]]]:
    """Per rank, three epochs of the exported loader: each a list of batches of labels."""
    seen = epochs_with_valid(tmp_path, ranks, policy)
    return {r: [[labels for labels, _ in epoch] for epoch in seen[r]] for r in seen}


def epochs_with_valid(tmp_path: Path, ranks: int, policy: str) -> dict[int, Any]:
    """Per rank, three epochs: each a list of [labels, the loader's valid count] per batch."""
    folder = one_file_a_class(tmp_path / "data")
    module = export(preset("basic"), tmp_path / "epochs_aug.py")
    script = tmp_path / "epochs.py"
    script.write_text(EPOCHS)
    done = subprocess.run(
        [sys.executable, str(script), str(module), str(folder), str(ranks), policy],
        check=True,
        capture_output=True,
        text=True,
        timeout=240,
        cwd=tmp_path,
    )
    return {int(k): v for k, v in json.loads(done.stdout.splitlines()[-1]).items()}


def test_each_epoch_reads_every_file_once_on_one_rank(tmp_path: Path) -> None:
    seen = epochs(tmp_path, ranks=1, policy="default")[0]
    for epoch, batches in enumerate(seen):
        labels = [label for batch in batches for label in batch]
        assert sorted(labels) == list(range(FILES)), (epoch, batches)
        assert [len(b) for b in batches] == [3, 3, 1]  # the last batch as it is
    assert seen[0] != seen[1]  # shuffled anew each epoch, from the seed


def test_several_ranks_run_as_many_full_batches_and_read_every_file(tmp_path: Path) -> None:
    seen = epochs(tmp_path, ranks=2, policy="default")
    for epoch in range(3):
        counts = {rank: len(seen[rank][epoch]) for rank in seen}
        assert len(set(counts.values())) == 1, (epoch, counts)
        assert all(len(batch) == 3 for rank in seen for batch in seen[rank][epoch])
        labels = {label for rank in seen for batch in seen[rank][epoch] for label in batch}
        assert labels == set(range(FILES)), epoch


def test_with_partial_batches_several_ranks_read_each_file_once_an_epoch(tmp_path: Path) -> None:
    seen = epochs(tmp_path, ranks=2, policy="partial")
    for epoch in range(3):
        labels = [label for rank in seen for batch in seen[rank][epoch] for label in batch]
        assert sorted(labels) == list(range(FILES)), epoch


def test_the_samples_a_loader_calls_valid_are_every_file_once_an_epoch(tmp_path: Path) -> None:
    # 7 files on 2 and 3 ranks, batch 3, FILL: the padding that keeps every rank's batches whole
    # is what `valid` leaves out, so a validation metric over the valid samples counts each
    # file once
    for ranks in (2, 3):
        seen = epochs_with_valid(tmp_path / str(ranks), ranks=ranks, policy="default")
        for epoch in range(3):
            kept = [
                label
                for rank in seen
                for labels, valid in seen[rank][epoch]
                for label in labels[:valid]
            ]
            assert sorted(kept) == list(range(FILES)), (ranks, epoch, seen)
            assert any(valid < 3 for rank in seen for _, valid in seen[rank][epoch])
    alone = epochs_with_valid(tmp_path / "1", ranks=1, policy="default")[0]
    assert all(valid == len(labels) for epoch in alone for labels, valid in epoch)


ARRAY_RANKS = textwrap.dedent(
    """
    import importlib.util, json, os, sys
    import numpy as np

    spec = importlib.util.spec_from_file_location("exported", sys.argv[1])
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    images = [np.full((24, 32, 3), i, np.uint8) for i in range(19)]
    sizes = {}
    for rank in (0, 1):
        os.environ.update(RANK=str(rank), WORLD_SIZE="2")
        loader = module.make_loader((images, list(range(19))), batch_size=3, device="cpu")
        sizes[rank] = [[len(batch[0]["labels"]), loader.valid] for batch in loader]
    print(json.dumps(sizes))
    """
)


def test_in_memory_arrays_give_every_rank_as_many_batches(tmp_path: Path) -> None:
    # 19 images on two ranks (shards of 9 and 10), batch 3: each rank 4 full batches; before,
    # rank 0 ran 3 and rank 1 ran 4, and DDP waits on a step one rank never takes
    spec = preset("random_affine").remove("decode").with_source(Source("source", "arrays"))
    module = export(spec, tmp_path / "arrays_aug.py")
    script = tmp_path / "ranks.py"
    script.write_text(ARRAY_RANKS)
    done = subprocess.run(
        [sys.executable, str(script), str(module)],
        check=True,
        capture_output=True,
        text=True,
        timeout=240,
        cwd=tmp_path,
    )
    sizes = json.loads(done.stdout.splitlines()[-1])
    assert [size for size, _ in sizes["0"]] == [size for size, _ in sizes["1"]] == [3, 3, 3, 3]
    # shards of 9 and 10: rank 0's fourth batch is all padding, rank 1's holds its tenth image
    assert [valid for _, valid in sizes["0"]] == [3, 3, 3, 0]
    assert [valid for _, valid in sizes["1"]] == [3, 3, 3, 1]
