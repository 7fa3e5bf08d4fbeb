"""Probe findings, round 7b (Compare): three ports Compare did not prove against the original.

- A class the file defines itself, named as a torchvision class is (MoCo's ``class
  GaussianBlur(object)`` with no import of it): the original side built
  ``torchvision.transforms.GaussianBlur`` with the file's arguments, another transform (or none:
  ``GaussianBlur([1.0, 1.0])`` is refused by torchvision). It now builds the file's class, as it
  ran it for the whole pipeline.
- A project's own blur or solarize under a coin (DINO's ``GaussianBlur(p=0.5)``, SwAV's
  ``PILRandomGaussianBlur``, ``Solarization(0.2)``) or drawing its radius (MoCo's
  ``GaussianBlur([.1, 2.])``) had no pixel figure: its radius and coin are now pinned by the
  class's own arguments on both sides (radius 1.2, always applied), so the figure the grade
  states (PIL's box passes against DALI's Gaussian: mean 0.34 grey levels, max 30, over 6
  photos) is measured by Compare.
- A file that loads its albumentations pipeline (``A.load("aug.yaml")``,
  ``A.from_dict(json.load(f))``) was ported but Compare said "no Compose found": it now
  compares the saved file's port against the file run from its folder.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import albumentations as A
import pytest
from test_port_compare import _images

from augexplorer.port.compare import Comparison, StepComparison, compare_file
from augexplorer.port.reading import ReadRefused

OWN = """
import random

import torchvision.transforms as transforms
from PIL import ImageFilter, ImageOps


class GaussianBlur(object):
    \"\"\"Gaussian blur augmentation in SimCLR https://arxiv.org/abs/2002.05709\"\"\"

    def __init__(self, sigma=[.1, 2.]):
        self.sigma = sigma

    def __call__(self, x):
        sigma = random.uniform(self.sigma[0], self.sigma[1])
        x = x.filter(ImageFilter.GaussianBlur(radius=sigma))
        return x


class PILRandomGaussianBlur(object):
    def __init__(self, p=0.5, radius_min=0.1, radius_max=2.):
        self.prob = p
        self.radius_min = radius_min
        self.radius_max = radius_max

    def __call__(self, img):
        do_it = random.random() <= self.prob
        if not do_it:
            return img
        return img.filter(
            ImageFilter.GaussianBlur(radius=random.uniform(self.radius_min, self.radius_max))
        )


class Solarization(object):
    def __init__(self, p):
        self.p = p

    def __call__(self, img):
        if random.random() < self.p:
            return ImageOps.solarize(img)
        else:
            return img


train_tf = transforms.Compose([
    GaussianBlur([1.0, 1.0]),
    transforms.RandomApply([GaussianBlur([.1, 2.])], p=0.8),
    PILRandomGaussianBlur(p=0.5, radius_min=0.5, radius_max=1.0),
    Solarization(0.2),
])
"""


def _write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def _written(comparison: Comparison, text: str) -> StepComparison:
    (step,) = [s for s in comparison.steps if s.transform.startswith(text)]
    return step


@pytest.fixture(scope="module")
def own(reference_python: str, tmp_path_factory: pytest.TempPathFactory) -> Comparison:
    path = _write(tmp_path_factory.mktemp("own"), "train.py", OWN)
    return compare_file(path, _images(3, 64), run_file=True, python=reference_python, draws=0)


def test_a_class_of_the_file_is_run_as_the_file_defines_it(own: Comparison) -> None:
    """torchvision's GaussianBlur refuses [1.0, 1.0] as a kernel size: the file's own runs."""
    step = _written(own, "GaussianBlur([1.0, 1.0])")
    assert "does not run this transform alone" not in step.note, step.describe()
    assert step.pixels is not None, step.describe()
    # the same radius on both sides: PIL's box passes against DALI's Gaussian, as graded
    assert step.pixels.mean_abs < 1.0 and step.pixels.max_abs <= 30, step.describe()
    assert own.original and not own.original_error, own.table()


@pytest.mark.parametrize(
    ("written", "pinned"),
    [
        # MoCo's, under RandomApply: its radius drawn in 0.1..2
        ("GaussianBlur([0.1, 2.0])", "radius 1.2"),
        # SwAV's: its own coin, its range ending under 1.2
        ("PILRandomGaussianBlur(", "radius 1, always applied"),
    ],
)
def test_an_own_blur_drawing_its_radius_or_coin_is_pinned_for_its_pixels(
    own: Comparison, written: str, pinned: str
) -> None:
    step = _written(own, written)
    assert step.pixels is not None, step.describe()
    assert f"pixels with {pinned} on both sides" in step.note, step.describe()
    assert 0 < step.pixels.mean_abs < 1.0 and step.pixels.max_abs <= 30, step.describe()


def test_an_own_solarize_under_a_coin_is_compared_always_applied(own: Comparison) -> None:
    step = _written(own, "Solarization(")
    assert step.pixels is not None and step.pixels.max_abs == 0, step.describe()
    assert "threshold 128, always applied" in step.note, step.describe()


# ---- a pipeline loaded from albumentations' saved form -----------------------------------------

LOADS = {
    "load": "import albumentations as A\n\ntrain_tf = A.load('aug.yaml', data_format='yaml')\n",
    "from_dict": (
        "import json\nimport albumentations as A\n\nwith open('aug.json') as f:\n"
        "    spec = json.load(f)\nval_tf = A.from_dict(spec)\n"
    ),
}


@pytest.fixture(scope="module", params=sorted(LOADS))
def loaded(
    request: pytest.FixtureRequest, reference_python: str, tmp_path_factory: pytest.TempPathFactory
) -> Comparison:
    folder = tmp_path_factory.mktemp("loaded")
    saved = A.Compose([A.HorizontalFlip(p=1), A.RandomBrightnessContrast(p=1)])
    A.save(saved, str(folder / "aug.yaml"), data_format="yaml")
    A.save(saved, str(folder / "aug.json"))
    path = _write(folder, "train.py", LOADS[request.param])
    # run from elsewhere: the file reads its saved pipeline by a name relative to its folder
    return compare_file(path, _images(3, 48), run_file=True, python=reference_python, draws=0)


def test_a_loaded_pipeline_is_compared_against_the_file_run_from_its_folder(
    loaded: Comparison,
) -> None:
    assert loaded.library == "albumentations", loaded.table()
    assert not loaded.original_error, loaded.table()
    # the whole pipeline as the file loads it, by the name it assigns it: flip and pinned-free
    # brightness-contrast drawn per image, the same size on both sides
    assert [a.shape for a in loaded.original] == [a.shape for a in loaded.ported]
    flip, jitter = loaded.step("HorizontalFlip"), loaded.step("RandomBrightnessContrast")
    assert flip.pixels is not None and flip.pixels.max_abs == 0, loaded.table()
    assert jitter.pixels is not None and jitter.pixels.max_abs == 0, loaded.table()


def test_a_loaded_pipeline_whose_saved_file_is_missing_is_refused_as_its_port_is(
    tmp_path: Path,
) -> None:
    path = _write(tmp_path, "train.py", LOADS["load"])
    with pytest.raises(ReadRefused) as refused:
        compare_file(path, _images(1, 32), run_file=True)
    assert "line 3: train_tf = A.load('aug.yaml'" in str(refused.value)
    assert "fix: augexplorer import that saved file itself" in str(refused.value)
