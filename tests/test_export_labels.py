"""The exported loader's labels are what PyTorch's losses take, as ImageFolder gives them: one
int64 class per image, shape (N,). DALI's readers carry int32 labels of shape (N, 1), on which
``F.cross_entropy(logits, labels)`` fails twice over (a 2-D target, then an int target)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from exported_runner import exported_module

from augexplorer import Random, Source, chain, preset
from augexplorer.data import samples_dir
from augexplorer.spec import Schedule

BATCH = 4


def _small() -> Any:
    spec = preset("imagenet_val").set_arg("resize", "resize_shorter", 40.0)
    return dataclasses.replace(spec.set_arg("normalize", "crop", [32.0, 32.0]), batch_size=BATCH)


def _first_labels(loader: Any) -> torch.Tensor:
    labels = next(iter(loader))[0]["labels"]
    logits = torch.zeros(len(labels), 8, requires_grad=True)
    torch.nn.functional.cross_entropy(logits, labels).backward()  # as a training loop does
    return labels


@pytest.mark.parametrize("source", ["folder", "file list", "scheduled"])
def test_a_reader_loaders_labels_are_one_int64_class_an_image(source: str, tmp_path: Path) -> None:
    spec = _small()
    data: Any = samples_dir()
    if source == "file list":
        files = sorted(samples_dir().rglob("*.jpg"))
        data = tmp_path / "train.txt"
        data.write_text("".join(f"{p} {i % 3}\n" for i, p in enumerate(files)), encoding="utf-8")
    if source == "scheduled":
        spec = spec.with_epochs(4).with_schedule("normalize.mirror", Schedule.linear(0, 1))
    module = exported_module(spec, tmp_path, f"aug_{source.replace(' ', '_')}")
    loader = module.make_loader(data, batch_size=BATCH, device="cpu", num_threads=1)
    labels = _first_labels(loader)
    assert labels.dtype == torch.int64 and labels.shape == (BATCH,)
    if source == "file list":
        assert labels.tolist() == [0, 1, 2, 0]  # the list's own labels, in order


def test_an_arrays_loaders_labels_are_one_int64_class_an_image(tmp_path: Path) -> None:
    flip = ("flip", "flip", {"horizontal": Random.coin_flip(0.5)})
    spec = chain(Source("source", "arrays"), flip, batch_size=BATCH, name="arrays")
    module = exported_module(spec, tmp_path, "aug_arrays")
    rng = np.random.default_rng(0)
    images = [rng.integers(0, 255, (48, 64, 3), dtype=np.uint8) for _ in range(6)]
    loader = module.make_loader((images, [5, 1, 4, 2, 3, 0]), device="cpu", num_threads=1)
    labels = _first_labels(loader)
    assert labels.dtype == torch.int64 and labels.tolist() == [5, 1, 4, 2]
