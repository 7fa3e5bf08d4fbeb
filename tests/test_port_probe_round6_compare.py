"""Probe findings, round 6 (Compare): gaps in comparing a port with the library itself.

- ``v2.Resize(size=None, max_size=M)`` read "the original does not run this transform alone":
  the original side built torchvision.transforms' class, which refuses size=None, for a call
  the file made of v2's; v2's ConvertImageDtype() (v1's needs a dtype) likewise.
- ColorJitter's hue had no draw figure: the port draws it as a node of its own (``hue_draw``).
- RandomResizedCrop's area and aspect had moments but no test; albumentations' RandomSizedCrop
  (a crop, then a resize) had no draw figure at all.
- A file that downloads its dataset at module level failed with the advice "give its arguments
  defaults".
- RandomCrop with padding had neither pixels nor draws.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import pytest
from scipy import stats
from test_port_compare import _images

from augexplorer.port.compare import StepComparison, compare_file
from augexplorer.port.compare_figures import DrawFigures, sample_ks
from augexplorer.port.door import port_call
from augexplorer.port.reading import read_source

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning:albumentations.*")

DRAWS = 200


def _write(folder: Path, text: str) -> Path:
    path = folder / "train.py"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def _drawn(step: StepComparison) -> dict[str, DrawFigures]:
    return {figure.quantity: figure for figure in step.draws}


# ---- the class of the module the file named ------------------------------------------------

V2_ONLY_ARGUMENTS = """
import torch
from torchvision.transforms import v2

train_tf = v2.Compose([
    v2.PILToTensor(),
    v2.Resize(size=None, max_size=72),
    v2.ConvertImageDtype(),
])
"""


def test_v2_calls_run_v2s_classes_on_the_original_side(
    reference_python: str, tmp_path: Path
) -> None:
    comparison = compare_file(
        _write(tmp_path, V2_ONLY_ARGUMENTS),
        _images(3, 96),
        run_file=True,
        python=reference_python,
        draws=0,
    )
    resize = comparison.step("Resize")
    assert "does not run" not in resize.note, resize.describe()
    # v2 sizes the longer side to max_size; the port does too, within a few grey levels
    assert resize.pixels is not None and resize.pixels.max_abs <= 8, resize.describe()
    assert resize.pixels.mean_abs < 1, resize.describe()
    convert = comparison.step("ConvertImageDtype")
    assert "does not run" not in convert.note, convert.describe()
    # v2's ConvertImageDtype() is float32 by default: the original's outputs are 0-1 floats
    assert convert.pixels is not None and convert.pixels.peak == 1.0, convert.describe()


# ---- ColorJitter's hue drawn against torchvision's ---------------------------------------------

HUE = """
import torchvision.transforms as T

train_tf = T.Compose([T.ColorJitter(hue=0.1)])
"""


def test_colour_jitters_hue_is_drawn_as_torchvision_draws_it(
    reference_python: str, tmp_path: Path
) -> None:
    path = _write(tmp_path, HUE)
    comparison = compare_file(
        path, _images(2, 48), run_file=True, python=reference_python, draws=DRAWS
    )
    step = comparison.step("ColorJitter")
    hue = _drawn(step)["hue"]
    assert hue.ours_n == hue.theirs_n == DRAWS, step.describe()
    assert hue.ks is not None and hue.verdict() == "agree", step.describe()
    # torchvision's units on both sides: a factor in [-0.1, 0.1], spread 0.1 / sqrt(3)
    assert abs(hue.ours_std - 0.1 / np.sqrt(3)) < 0.015, step.describe()
    assert "hue:" in step.describe() and ": agree" in step.describe()

    (found,) = read_source(path.read_text(encoding="utf-8"))
    graph = port_call(found.compose).spec.set_arg("hue_draw", "range", [-0.4, 0.4])
    wider = compare_file(
        path, _images(2, 48), run_file=True, python=reference_python, graph=graph, draws=DRAWS
    )
    edited = _drawn(wider.step("ColorJitter"))["hue"]
    assert edited.verdict().startswith("differ"), wider.step("ColorJitter").describe()


# ---- crop windows tested, a crop then a resize included ----------------------------------------

WINDOWS_TORCHVISION = """
import torchvision.transforms as T

train_tf = T.Compose([T.RandomResizedCrop(48, scale=(0.2, 1.0))])
"""

WINDOWS_ALBUMENTATIONS = """
import albumentations as A

train_tf = A.Compose([
    A.RandomSizedCrop(min_max_height=(30, 90), size=(48, 48), w2h_ratio=1.25),
    A.RandomResizedCrop(size=(48, 48), scale=(0.3, 1.0)),
])
"""


def test_random_resized_crops_windows_are_tested_against_torchvision(
    reference_python: str, tmp_path: Path
) -> None:
    path = _write(tmp_path, WINDOWS_TORCHVISION)
    comparison = compare_file(
        path, _images(3, 96), run_file=True, python=reference_python, draws=DRAWS
    )
    step = comparison.step("RandomResizedCrop")
    figures = _drawn(step)
    for name in ("area", "aspect"):
        figure = figures[name]
        assert figure.ks is not None and figure.ours_n == DRAWS, step.describe()
        assert figure.verdict() == "agree", step.describe()

    (found,) = read_source(path.read_text(encoding="utf-8"))
    graph = port_call(found.compose).spec.set_arg("random_resized_crop", "random_area", [0.6, 1.0])
    edited = compare_file(
        path, _images(3, 96), run_file=True, python=reference_python, graph=graph, draws=DRAWS
    )
    area = _drawn(edited.step("RandomResizedCrop"))["area"]
    assert area.verdict().startswith("differ"), edited.step("RandomResizedCrop").describe()


def test_albumentations_sized_crops_windows_are_tested_against_albumentations(
    reference_python: str, tmp_path: Path
) -> None:
    comparison = compare_file(
        _write(tmp_path, WINDOWS_ALBUMENTATIONS),
        _images(3, 96),
        run_file=True,
        python=reference_python,
        draws=DRAWS,
    )
    for name in ("RandomSizedCrop", "RandomResizedCrop"):
        step = comparison.step(name)
        figures = _drawn(step)
        assert set(figures) >= {"area", "aspect"}, step.describe()
        for figure in (figures["area"], figures["aspect"]):
            assert figure.ks is not None, step.describe()
            assert figure.verdict() == "agree", step.describe()
    sized = _drawn(comparison.step("RandomSizedCrop"))["aspect"]
    # the window's width over height, w2h_ratio, on both sides (to a whole pixel's rounding)
    assert abs(sized.ours_mean - 1.25) < 0.05 and abs(sized.theirs_mean - 1.25) < 0.05


def test_the_sample_ks_distance_is_scipys() -> None:
    generator = np.random.default_rng(4)
    ours, theirs = generator.uniform(0, 1, 150), generator.uniform(0.1, 1.1, 170)
    distance, p = sample_ks(ours, theirs)
    expected = stats.ks_2samp(ours, theirs)
    assert distance == pytest.approx(expected.statistic)
    assert p == pytest.approx(expected.pvalue, abs=0.02)


# ---- a file that fetches its data at module level ---------------------------------------------

# a host that never resolves (RFC 2606): the download fails wherever this runs
DOWNLOADS = """
import torchvision
import torchvision.transforms as T

transform = T.Compose([T.RandomHorizontalFlip(), T.ToTensor()])
torchvision.datasets.utils.download_url("https://augexplorer.invalid/cifar.tar.gz", "{root}")
"""

NOT_THERE = """
import torchvision
import torchvision.transforms as T

transform = T.Compose([T.RandomHorizontalFlip(), T.ToTensor()])
trainset = torchvision.datasets.CIFAR10(root="{root}", train=True, transform=transform)
"""


@pytest.mark.parametrize(
    "text,said", [(DOWNLOADS, "downloads data"), (NOT_THERE, "loads a dataset")]
)
def test_data_fetched_at_module_level_is_named_with_its_fix(
    reference_python: str, tmp_path: Path, text: str, said: str
) -> None:
    path = _write(tmp_path, text.replace("{root}", str(tmp_path / "data")))
    comparison = compare_file(path, _images(2, 64), run_file=True, python=reference_python, draws=0)
    error = comparison.original_error
    assert f"(line 6): it {said} when it runs (" in error, error
    assert "if __name__ == '__main__':" in error and "give its arguments defaults" not in error
    # each transform is still compared alone
    flip = comparison.step("RandomHorizontalFlip")
    assert flip.pixels is not None and flip.pixels.max_abs == 0, flip.describe()


# ---- RandomCrop's window pinned -------------------------------------------------------------------

CROPS = """
import torchvision.transforms{v2} as T

train_tf = T.Compose([
    T.RandomCrop(64, padding=8),
    T.RandomCrop(56, padding=(4, 6), padding_mode="reflect"),
    T.RandomCrop(120, pad_if_needed=True, fill=(10, 20, 30)),
])
"""


@pytest.mark.parametrize("v2", ["", ".v2"])
def test_random_crop_is_compared_at_a_fixed_window(
    reference_python: str, tmp_path: Path, v2: str
) -> None:
    path = _write(tmp_path, CROPS.replace("{v2}", v2))
    comparison = compare_file(path, _images(3, 96), run_file=True, python=reference_python, draws=0)
    crops = [step for step in comparison.steps if step.transform.startswith("RandomCrop")]
    assert len(crops) == 3
    for step in crops:
        # the padding (its fill, its mode) in the window: the same pixels as torchvision's
        assert step.pixels is not None and step.pixels.max_abs == 0, step.describe()
        assert "the window at the padded image's top-left corner" in step.note
