"""In-memory arrays, epoch after epoch, on one rank and on two: the explorer's batches (a rank's
preview included) are the exported loader's, sample for sample, padding marked where the loader
drops it (one rank) or keeps it (two). Before, the explorer read every rank's preview from the
whole set and wrapped into the next epoch, and the loader's epochs drifted (6, 4, 6 samples)."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from exported_runner import run_exported

from augexplorer import Random, Session, Source, chain
from augexplorer.export import export
from augexplorer.spec import GraphSpec

COUNT, BATCH, EPOCHS = 9, 2, 3

RUNNER = textwrap.dedent(
    """
    import importlib.util, json, sys
    import numpy as np

    for job in json.load(open(sys.argv[1])):
        spec = importlib.util.spec_from_file_location("arrays_module", job["module"])
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        images = [np.full((16, 16, 3), 10 * i, np.uint8) for i in range(job["count"])]
        loader = module.make_loader(
            (images, list(range(job["count"]))), batch_size=job["batch_size"], device="cpu",
            num_threads=1, shard_id=job["shard"][0], num_shards=job["shard"][1],
        )
        saved = {}
        for epoch in range(job["epochs"]):
            for index, batch in enumerate(loader):
                saved[f"labels_{epoch}_{index}"] = batch[0]["labels"].view(-1).numpy()
                saved[f"images_{epoch}_{index}"] = batch[0]["images"].numpy()
        np.savez(job["out"], **saved)
    """
)


def graph() -> GraphSpec:
    return chain(
        Source("source", "arrays"),
        ("flip", "flip", {"horizontal": Random.coin_flip(0.5)}),
        ("bright", "brightness", {"brightness": Random.uniform(0.5, 1.5)}),
        batch_size=BATCH,
        name="arrays",
    )


def explorer(rank: int, world_size: int | None) -> list[tuple[list[int], list[bool], Any]]:
    images = [np.full((16, 16, 3), 10 * i, np.uint8) for i in range(COUNT)]
    session = Session(
        graph(), data=(images, list(range(COUNT))), device_id=None, rank=rank, world_size=world_size
    )
    result = session.run()
    shown = []
    for _ in range(EPOCHS * result.batches_per_epoch()):  # type: ignore[operator]
        labels = [label[0] for label in result.labels()]
        shown.append(
            (labels, result.padded(), np.stack([np.asarray(a) for a in result.arrays("bright")]))
        )
        result = session.next_batch()
    return shown


def test_the_loader_reads_the_batches_the_explorer_shows(tmp_path: Path) -> None:
    module = export(graph(), tmp_path / "arrays_module.py")
    shards = {"one": (0, 1), "rank0": (0, 2), "rank1": (1, 2)}
    jobs = [
        {
            "name": name,
            "module": str(module),
            "out": str(tmp_path / f"{name}.npz"),
            "count": COUNT,
            "batch_size": BATCH,
            "epochs": EPOCHS,
            "shard": list(shard),
        }
        for name, shard in shards.items()
    ]
    saved = run_exported(jobs, tmp_path, runner=RUNNER)
    for name, (rank, world) in shards.items():
        shown = explorer(rank, world if world > 1 else None)
        per_epoch = len(shown) // EPOCHS
        seen: set[int] = set()
        for index, (labels, padded, images) in enumerate(shown):
            epoch, within = divmod(index, per_epoch)
            got = saved[name][f"labels_{epoch}_{within}"]
            kept = [not p for p in padded] if world == 1 else [True] * len(padded)  # PARTIAL / FILL
            assert got.tolist() == [n for n, k in zip(labels, kept, strict=True) if k], (
                name,
                index,
            )
            np.testing.assert_array_equal(saved[name][f"images_{epoch}_{within}"], images[kept])
            seen.update(labels)
        assert len(saved[name]) == 2 * len(shown), name  # no batch more or less per epoch
        expected = set(range(COUNT)) if world == 1 else set(range(rank * 4, 4 + rank * 5))
        assert seen == expected, name  # its shard, whole, every epoch
    assert explorer(0, None)[4][1] == [False, True]  # 9 samples: the epoch's last batch padded


def test_a_shard_with_no_array_is_said_on_both_sides(tmp_path: Path) -> None:
    from pipeline_files import load_module

    from augexplorer.errors import DataError

    images = [np.full((16, 16, 3), 10 * i, np.uint8) for i in range(3)]
    with pytest.raises(DataError, match=r"shard 0 of 4 holds no array: 3 arrays for 4 ranks"):
        Session(graph(), data=(images, [0, 1, 2]), device_id=None, rank=0, world_size=4).run()
    module = load_module(Path(export(graph(), tmp_path / "arrays_module.py")))
    with pytest.raises(ValueError, match=r"shard 0 of 4 holds no image: 3 images for 4 ranks"):
        module.make_loader((images, [0, 1, 2]), device="cpu", shard_id=0, num_shards=4)
