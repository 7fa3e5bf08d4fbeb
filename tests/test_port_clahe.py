"""albumentations' CLAHE over a range of clip limits: each image equalized once, exactly as
albumentations equalizes it at the centre of the part of the range it drew; the parts drawn
uniformly. A single clip limit: tests/test_port_albumentations_parity.py."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from port_parity import file_list, run, sample_images

from augexplorer.port.albumentations import port
from augexplorer.port.albumentations.clahe import parts
from augexplorer.port.build import DataSource
from augexplorer.port.reading import read_source

A = pytest.importorskip("albumentations")
cv2 = pytest.importorskip("cv2")


def ported(code: str, images: list[Path], tmp: Path, seed: int = 0) -> list[np.ndarray]:
    (found,) = read_source(f"import albumentations as A\nt = A.Compose([{code}])\n")
    data = DataSource("file_list", str(file_list(images, tmp)), shuffle=False)
    result = port(found.compose, data=data, batch_size=len(images), seed=seed)
    (step,) = result.steps
    assert step.origin.fidelity == "approximate" and "cut in 6 parts of 0.5" in " ".join(
        step.origin.differences
    )
    return run(result)


def test_the_parts_cover_the_range_at_their_centres() -> None:
    assert parts(2.0, 2.0) == [2.0]
    assert parts(1.0, 4.0) == [1.25, 1.75, 2.25, 2.75, 3.25, 3.75]  # albumentations' default
    assert parts(1.0, 1.2) == pytest.approx([1.05, 1.15])
    assert len(parts(1.0, 40.0)) == 8


def test_each_image_is_albumentations_clahe_at_the_centre_of_its_part(tmp_path: Path) -> None:
    images = sample_images(12)
    ours = ported("A.CLAHE(p=1)", images, tmp_path)
    originals = [cv2.cvtColor(cv2.imread(str(p)), cv2.COLOR_BGR2RGB) for p in images]
    limits = parts(1.0, 4.0)
    drawn = []
    for mine, original in zip(ours, originals, strict=True):
        matches = [
            limit
            for limit in limits
            if np.array_equal(A.CLAHE((limit, limit), p=1)(image=original)["image"], mine)
        ]
        assert len(matches) >= 1, "equalized at no part's centre"
        drawn.append(matches[0])
    assert len(set(drawn)) >= 3  # 12 images over 6 parts drawn uniformly: all one is ~1e-8


def test_a_clip_limit_under_one_or_a_bad_grid_is_refused(tmp_path: Path) -> None:
    for code, said in (
        ("A.CLAHE(clip_limit=(0.5, 2), p=1)", "1 <= low <= high"),
        ("A.CLAHE(tile_grid_size=(8,), p=1)", "two whole numbers"),
    ):
        (found,) = read_source(f"import albumentations as A\nt = A.Compose([{code}])\n")
        data = DataSource("file_list", str(file_list(sample_images(2), tmp_path)), shuffle=False)
        result = port(found.compose, data=data, batch_size=2)
        assert [r.reason for r in result.refusals if said in r.reason], result.refusals
