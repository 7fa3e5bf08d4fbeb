"""`bench --against` on a pipeline that keeps each image's own size (PyTorch's detection
tutorial's transforms, no resize): the port's exported loader cannot batch images of several
sizes, so the command ends in one line naming why and the fix, before anything is timed where
the first batch shows it, and in the same line where only a later batch does."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from PIL import Image

from augexplorer.bench.against import SizesDiffer, bench_against
from augexplorer.cli import main

DETECTION_TUTORIAL = """\
import torch
import torchvision.transforms as T

train_transform = T.Compose([
    T.PILToTensor(),
    T.ConvertImageDtype(torch.float),
    T.RandomHorizontalFlip(0.5),
])
"""

ALBUMENTATIONS_OWN_SIZES = """\
import albumentations as A
from albumentations.pytorch import ToTensorV2

train_transform = A.Compose([A.HorizontalFlip(p=0.5), A.Normalize(), ToTensorV2()])
"""

SMALL = ["--images", "12", "--batch-size", "4", "--workers", "1", "--threads", "1"]


def _write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def test_the_detection_tutorials_transforms_are_one_line_before_any_timing(
    reference_python: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path, "train.py", DETECTION_TUTORIAL)
    argv = ["bench", "--against", str(path), "--run-file", "--python", reference_python]
    assert main([*argv, *SMALL]) == 2
    captured = capsys.readouterr()
    # the one line is all of stderr: no progress line, so nothing started or was timed
    assert captured.err.count("\n") == 1, captured.err
    error = captured.err
    assert "Traceback" not in error and captured.out == ""
    assert "train_transform keeps each image's own size" in error
    assert "sizes in its first batch (CHW 3x" in error
    assert "cannot batch them" in error
    assert "(fix: end the pipeline with a resize or crop to one size" in error
    assert "T.Resize((224, 224))" in error


def test_said_before_the_original_starts(tmp_path: Path) -> None:
    """The check needs no original: a Python that does not exist is never reached."""
    path = _write(tmp_path, "train.py", ALBUMENTATIONS_OWN_SIZES)
    said: list[str] = []
    with pytest.raises(SizesDiffer) as refused:
        bench_against(
            path,
            images=8,
            batch_size=4,
            workers=1,
            threads=1,
            python=str(tmp_path / "no-such-python"),
            run_file=True,
            progress=said.append,
        )
    assert said == []
    assert "sizes in its first batch" in str(refused.value)
    assert "A.Resize(224, 224)" in str(refused.value)


def _folder_mixing_sizes_after_the_first_batch(root: Path) -> Path:
    """Class `a`: four images of one size (the first batch of 4); class `b`: two sizes."""
    sizes = {"a": [(64, 48)] * 4, "b": [(64, 48), (80, 60), (64, 48), (80, 60)]}
    for label, shapes in sizes.items():
        (root / label).mkdir(parents=True)
        for index, size in enumerate(shapes):
            Image.new("RGB", size, (40 * index, 90, 160)).save(root / label / f"{index}.png")
    return root


def test_a_later_batch_of_several_sizes_is_the_same_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path, "train.py", ALBUMENTATIONS_OWN_SIZES)
    data = _folder_mixing_sizes_after_the_first_batch(tmp_path / "images")
    argv = ["bench", "--against", str(path), "--run-file", "--python", sys.executable]
    assert main([*argv, "--data", str(data), *SMALL]) == 2
    captured = capsys.readouterr()
    error = captured.err.strip().splitlines()[-1]
    assert "Traceback" not in captured.err and captured.out == ""
    assert "train_transform keeps each image's own size" in error
    assert "several sizes in a batch" in error
    assert "(fix: end the pipeline with a resize or crop to one size" in error
