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
        seen[rank] = [
            [batch[0]["labels"].view(-1).tolist() for batch in loader] for _ in range(3)
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
        sizes[rank] = [len(batch[0]["labels"]) for batch in loader]
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
    assert sizes["0"] == sizes["1"] == [3, 3, 3, 3]
