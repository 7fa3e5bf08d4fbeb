"""DROP on several ranks is refused by the exported loader: DALI's iterator would leave part of
each epoch in the reader to open the next (a batch of padding copies, files read twice while
others are not). On one rank it drops the last partial batch, as asked."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from nvidia.dali.plugin.base_iterator import LastBatchPolicy
from pipeline_files import load_module

from augexplorer import preset
from augexplorer.export import export


@pytest.fixture(scope="module")
def module(tmp_path_factory: pytest.TempPathFactory) -> object:
    path = export(preset("basic"), tmp_path_factory.mktemp("drop") / "basic_drop.py")
    return load_module(Path(path))


def test_drop_on_several_ranks_is_refused_with_the_fix(module: object) -> None:
    with pytest.raises(ValueError, match=r"DROP cannot be used on several ranks.*fix: FILL"):
        module.make_loader(  # type: ignore[attr-defined]
            device="cpu", shard_id=0, num_shards=2, last_batch_policy=LastBatchPolicy.DROP
        )


def test_drop_on_one_rank_keeps_whole_batches_only(module: object) -> None:
    loader = module.make_loader(  # type: ignore[attr-defined]
        device="cpu", batch_size=8, num_threads=1, last_batch_policy=LastBatchPolicy.DROP
    )
    for _ in range(2):  # epoch after epoch
        sizes = [len(batch[0]["labels"]) for batch in loader]
        assert sizes == [8, 8]  # 19 samples: the last 3 dropped


def test_drop_on_several_ranks_is_taken_for_in_memory_arrays(tmp_path: Path) -> None:
    """Arrays have no reader to leave behind: each rank reads its shard's whole batches."""
    from augexplorer import Source, chain

    spec = chain(Source("source", "arrays"), ("flip", "flip", {"horizontal": 1}), batch_size=2)
    module = load_module(Path(export(spec, tmp_path / "arrays_drop.py")))
    images = [np.full((8, 8, 3), i, np.uint8) for i in range(9)]
    for rank, shard in ((0, [0, 1, 2, 3]), (1, [4, 5, 6, 7])):
        loader = module.make_loader(
            (images, list(range(9))),
            batch_size=2,
            device="cpu",
            num_threads=1,
            shard_id=rank,
            num_shards=2,
            last_batch_policy=LastBatchPolicy.DROP,
        )
        for _ in range(2):
            labels = [int(v) for batch in loader for v in batch[0]["labels"].view(-1)]
            assert labels == shard  # rank 1's fifth array waits for a batch that is not whole
