"""The exported loader feeds real training: a tiny model on the CPU, and two torchrun ranks."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import torch

from augexplorer import preset
from augexplorer.data import samples_dir
from augexplorer.export import export
from augexplorer.presets import imagenet_val


def file_list(tmp_path: Path, labels: int) -> tuple[Path, list[list[int]]]:
    """Every bundled sample with `labels` integer labels; rows differ from file to file."""
    files = sorted(samples_dir().rglob("*.jpg"))
    rows = [[(index + k * 5) % 4 for k in range(labels)] for index in range(len(files))]
    lines = [f"{path} {' '.join(map(str, row))}" for path, row in zip(files, rows, strict=True)]
    target = tmp_path / "train.txt"
    target.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return target, rows


def test_tiny_model_trains_on_multi_label_list(tmp_path: Path) -> None:
    data, rows = file_list(tmp_path, labels=3)
    spec = imagenet_val()
    spec = spec.set_arg("resize", "resize_shorter", 40.0).set_arg("normalize", "crop", [32.0, 32.0])
    path = export(spec, tmp_path / "train_aug.py")
    loaded = importlib.util.spec_from_file_location("train_aug", path)
    assert loaded is not None and loaded.loader is not None
    module = importlib.util.module_from_spec(loaded)
    loaded.loader.exec_module(module)

    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Conv2d(3, 4, 3, stride=2), torch.nn.ReLU(), torch.nn.Flatten(),
        torch.nn.LazyLinear(4 * 3),
    )  # fmt: skip
    loader = module.make_loader(data, batch_size=4, device="cpu", num_threads=1)
    optimizer = None
    losses = []
    seen_rows = []
    for _ in range(3):  # epochs: the loader resets itself
        for batch in loader:
            images, labels = batch[0]["images"], batch[0]["labels"]
            assert images.shape[1:] == (3, 32, 32) and images.dtype == torch.float32
            assert labels.shape == (images.shape[0], 3) and labels.dtype == torch.int64
            seen_rows.extend(labels.tolist())
            logits = model(images).view(-1, 4, 3)  # 4 classes for each of the 3 labels
            loss = torch.nn.functional.cross_entropy(logits, labels)
            if optimizer is None:
                optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
    assert len(seen_rows) == 3 * len(rows)
    assert sorted(map(tuple, seen_rows)) == sorted(map(tuple, rows * 3))
    assert all(torch.isfinite(torch.tensor(losses)))
    assert sum(losses[-5:]) / 5 < sum(losses[:5]) / 5  # it learns something


RANK_SCRIPT = textwrap.dedent(
    """
    import importlib.util, json, os, sys
    import torch.distributed as dist

    dist.init_process_group("gloo")
    spec = importlib.util.spec_from_file_location("aug", sys.argv[1])
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    loader = module.make_loader(sys.argv[2], batch_size=4, device="cpu", num_threads=1)
    batches = [batch[0]["labels"].view(-1).tolist() for batch in loader]
    seen = [int(x) for batch in batches for x in batch]
    everyone = [None] * dist.get_world_size()
    sizes = [len(batch) for batch in batches]
    dist.all_gather_object(everyone, {"rank": dist.get_rank(), "seen": seen, "sizes": sizes})
    if dist.get_rank() == 0:
        json.dump(everyone, open(sys.argv[3], "w"))
    dist.destroy_process_group()
    """
)


@pytest.mark.slow
def test_torchrun_ranks_read_disjoint_shards(tmp_path: Path) -> None:
    files = sorted(samples_dir().rglob("*.jpg"))
    data = tmp_path / "indexed.txt"  # label = file index, so labels name the files
    data.write_text("".join(f"{path} {index}\n" for index, path in enumerate(files)))
    spec = preset("imagenet_val").set_arg("resize", "resize_shorter", 40.0)
    spec = spec.set_arg("normalize", "crop", [32.0, 32.0])
    module = export(spec, tmp_path / "dist_aug.py")
    script = tmp_path / "rank.py"
    script.write_text(RANK_SCRIPT)
    torchrun = shutil.which("torchrun", path=str(Path(sys.executable).parent)) or "torchrun"
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    subprocess.run(
        [
            torchrun,
            "--standalone",
            "--nproc_per_node",
            "2",
            str(script),
            str(module),
            str(data),
            str(tmp_path / "seen.json"),
        ],
        check=True,
        timeout=240,
        env=env,
        capture_output=True,
    )
    ranks = json.loads((tmp_path / "seen.json").read_text())
    first, second = (set(r["seen"]) for r in sorted(ranks, key=lambda r: r["rank"]))
    assert first and second
    assert not first & second
    assert first | second == set(range(len(files)))  # every image in the epoch
    # 19 images on two ranks: each runs the same number of full batches (DDP steps them
    # together), the smaller shard's end padded with its last image
    assert ranks[0]["sizes"] == ranks[1]["sizes"] == [4, 4, 4]
    for rank in ranks:
        repeated = rank["seen"][len(set(rank["seen"])) :]
        assert all(label == rank["seen"][-1] for label in repeated)
