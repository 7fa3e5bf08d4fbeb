"""Probe findings, albumentations round seven: Kaggle and segmentation pipelines as written.

- ``HueSaturationValue`` (in most Kaggle kernels) was DALI's ``hsv``, which scales saturation
  and value in YIQ space where albumentations shifts them in OpenCV's 8-bit HSV: mean 16.0,
  max 97 grey levels at the default limits' ends. It is now OpenCV's round trip computed as
  OpenCV computes it, the shifts added as albumentations adds them: within 1 grey level.
- ``Downscale``'s default INTER_NEAREST (both ways) sampled from each pixel's centre, OpenCV
  from its corner, and sized the shrunk image otherwise (97 x 0.5: 48 rows in OpenCV, 49):
  mean 12.7 grey levels at factor 0.3. Now OpenCV's sizes and picks: the same pixels at 0.25,
  0.3, 0.5.
- A file that loads its pipeline (``A.load("aug.yaml")``, ``A.from_dict(json.load(...))``), as
  a saved config is often used, was taken for DALI code: "no @pipeline_def function or
  Pipeline object". It is ported from the saved file it names, as importing that file does.
- ``CoarseDropout(fill="random")`` (1.x's ``fill_value="random"``) was refused: each hole is
  now filled with values drawn uniformly from 0-255 per pixel and channel, as albumentations
  draws them.
- ``RandomRotate90()`` was ported with 1.x's p=0.5; albumentations 2.x turns every image
  (p=1): Compare read "original 1, DALI 0.5: differ".
"""

from __future__ import annotations

import inspect
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from test_port_compare import _images

from augexplorer.port.compare import compare_file
from augexplorer.port.door import is_port_file, port_call, port_file
from augexplorer.port.reading import ReadRefused, read_source

A = pytest.importorskip("albumentations")
cv2 = pytest.importorskip("cv2")

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning:albumentations.*")


def _ported(code: str) -> Any:
    (found,) = read_source(f"import albumentations as A\nt = A.Compose([{code}])\n")
    return port_call(found.compose)


# ---- HueSaturationValue: OpenCV's HSV round trip ------------------------------------------------


@pytest.fixture(scope="module")
def photos() -> list[np.ndarray]:
    from port_parity import sample_images

    return [cv2.cvtColor(cv2.imread(str(p)), cv2.COLOR_BGR2RGB) for p in sample_images(8)]


def _run(code: str, images: list[np.ndarray]) -> tuple[Any, list[np.ndarray]]:
    from augexplorer.engine import Session
    from augexplorer.port.albumentations import port
    from augexplorer.spec import Source

    (found,) = read_source(f"import albumentations as A\nt = A.Compose([{code}])\n")
    result = port(found.compose, batch_size=len(images))
    spec = result.spec.with_source(Source("reader", "arrays")).remove("decode")
    session = Session(spec, data=(images, [0] * len(images)), device_id=None)
    return result, [np.asarray(a) for a in session.run().arrays(spec.outputs["images"])]


@pytest.mark.parametrize(
    "code",
    [
        "A.HueSaturationValue((10, 10), (0, 0), (0, 0), p=1)",
        "A.HueSaturationValue((20, 20), (30, 30), (20, 20), p=1)",
        "A.HueSaturationValue((-20, -20), (-30, -30), (-20, -20), p=1)",
        # shifts that are not whole: albumentations truncates saturation's and value's toward
        # zero, and hue's after its turn modulo 180
        "A.HueSaturationValue((-7.6, -7.6), (13.7, 13.7), (-3.3, -3.3), p=1)",
    ],
)
def test_hue_saturation_value_gives_albumentations_pixels(
    code: str, photos: list[np.ndarray]
) -> None:
    result, ours = _run(code, photos)
    (step,) = result.steps
    assert step.origin.fidelity == "exact", step.origin.differences
    transform = A.Compose([eval(code, {"A": A})])  # the test's own literal
    theirs = [transform(image=image)["image"] for image in photos]
    differences = np.concatenate(
        [np.abs(a.astype(int) - b.astype(int)).ravel() for a, b in zip(ours, theirs, strict=True)]
    )
    # DALI's hsv (YIQ, scaled) was mean 7.6 to 16 here, max 56 to 97
    assert differences.max() <= 1 and differences.mean() < 0.01, differences.mean()


def test_hue_saturation_value_without_shifts_changes_nothing() -> None:
    result = _ported("A.HueSaturationValue(0, 0, 0, p=1)")
    (step,) = result.steps
    assert step.origin.fidelity == "exact" and not step.nodes


def test_hue_saturation_value_after_to_float_says_the_fix() -> None:
    """albumentations runs it on the float image there (8 bits in and out again); the port's
    round trip is 8-bit."""
    result = _ported("A.ToFloat(), A.HueSaturationValue(p=1)")
    (refusal,) = result.refusals
    assert refusal.call.name == "HueSaturationValue"
    assert "fix: put it before Normalize or ToFloat" in refusal.reason


# ---- Downscale: OpenCV's INTER_NEAREST ----------------------------------------------------------


@pytest.mark.parametrize("factor", [0.25, 0.3, 0.5])
def test_downscale_nearest_gives_opencvs_sizes_and_picks(
    factor: float, photos: list[np.ndarray]
) -> None:
    # odd sides: 97 x 0.5 is 48.5, which OpenCV rounds to 48 (half to even)
    images = [*photos[:4], photos[4][:97, :61].copy(), photos[5][:61, :97].copy()]
    code = f"A.Downscale(({factor}, {factor}), p=1)"
    _, ours = _run(code, images)
    transform = A.Compose([eval(code, {"A": A})])  # the test's own literal
    theirs = [transform(image=image)["image"] for image in images]
    for mine, original in zip(ours, theirs, strict=True):
        assert mine.shape == original.shape
        assert np.array_equal(mine, original), np.abs(mine.astype(int) - original).mean()


def test_downscale_says_where_nearest_still_differs() -> None:
    (step,) = _ported("A.Downscale()").steps
    text = " ".join(step.origin.differences)
    assert "97 x 0.5 is 48" in text and "mean 0.17" in text


# ---- CoarseDropout(fill="random") -------------------------------------------------------------


def test_coarse_dropout_random_fill_draws_albumentations_values(photos: list[np.ndarray]) -> None:
    from scipy import stats

    code = (
        "A.CoarseDropout(num_holes_range=(2, 6), hole_height_range=(0.1, 0.3), "
        "hole_width_range=(0.1, 0.3), fill='random', p=1)"
    )
    result, ours = _run(code, photos)
    (step,) = result.steps
    assert step.origin.fidelity == "distribution" and not result.refusals
    transform = A.Compose([eval(code, {"A": A})], seed=1)  # the test's own literal
    theirs = [transform(image=image)["image"] for image in photos]

    def filled(outputs: list[np.ndarray]) -> np.ndarray:
        return np.concatenate(
            [o[(o != i).any(-1)].ravel() for o, i in zip(outputs, photos, strict=True)]
        )

    mine, original = filled(ours), filled(theirs)
    assert mine.size > 0.02 * sum(image.size for image in photos)  # holes were filled
    assert abs(mine.mean() - original.mean()) < 2 and mine.min() == 0 and mine.max() == 255
    assert stats.ks_2samp(mine, original).pvalue > 0.001


def test_coarse_dropout_random_fill_after_normalize_says_the_fix() -> None:
    result = _ported("A.Normalize(), A.CoarseDropout(fill='random', p=1)")
    (refusal,) = result.refusals
    assert "fix: put CoarseDropout before Normalize or ToFloat" in refusal.reason


# ---- a pipeline loaded from albumentations' saved form -----------------------------------------

LOADS = {
    "load": "import albumentations as A\n\ntrain_tf = A.load('aug.yaml', data_format='yaml')\n",
    "from_dict": (
        "import json\nimport albumentations as A\n\nwith open('aug.json') as f:\n"
        "    spec = json.load(f)\ntrain_tf = A.from_dict(spec)\n"
    ),
}


@pytest.mark.parametrize("how", sorted(LOADS))
def test_a_file_that_loads_its_pipeline_is_ported_from_the_saved_file(
    how: str, tmp_path: Path
) -> None:
    saved = A.Compose([A.HorizontalFlip(p=0.3), A.RandomRotate90(p=1)])
    A.save(saved, str(tmp_path / "aug.yaml"), data_format="yaml")
    A.save(saved, str(tmp_path / "aug.json"))
    path = tmp_path / "train.py"
    path.write_text(LOADS[how], encoding="utf-8")
    assert is_port_file(path, LOADS[how])
    result = port_file(path)
    assert [step.call.name for step in result.steps] == ["HorizontalFlip", "RandomRotate90"]
    assert any("ported from the saved file it loads" in note for note in result.notes)


def test_a_loaded_pipeline_whose_saved_file_is_elsewhere_says_the_fix(tmp_path: Path) -> None:
    path = tmp_path / "train.py"
    path.write_text(LOADS["load"], encoding="utf-8")
    with pytest.raises(ReadRefused) as refused:
        port_file(path)
    assert "line 3: train_tf = A.load('aug.yaml'" in str(refused.value)
    assert "fix: augexplorer import that saved file itself" in str(refused.value)


# ---- RandomRotate90: albumentations 2.x's p ----------------------------------------------------


def _rotate_probability(code: str) -> float | None:
    (node,) = [n for n in _ported(code).spec.nodes if n.op == "rotate"]
    return None if node.probability is None else node.probability.p


def test_random_rotate90_turns_every_image_as_albumentations_2_does() -> None:
    assert inspect.signature(A.RandomRotate90).parameters["p"].default == 1  # 2.0.8's
    assert _rotate_probability("A.RandomRotate90()") is None  # no coin: every image
    assert _rotate_probability("A.RandomRotate90(p=0.5)") == 0.5


KAGGLE = """
import albumentations as A

train = A.Compose([
    A.RandomRotate90(),
    A.HueSaturationValue(hue_shift_limit=10, sat_shift_limit=20, val_shift_limit=10, p=0.5),
])
"""


@pytest.fixture(scope="module")
def kaggle(reference_python: str, tmp_path_factory: pytest.TempPathFactory) -> Any:
    path = Path(tmp_path_factory.mktemp("kaggle")) / "train.py"
    path.write_text(textwrap.dedent(KAGGLE), encoding="utf-8")
    return compare_file(path, _images(4, 64), run_file=True, python=reference_python, draws=200)


def test_compare_reads_random_rotate90_and_hsv_as_albumentations_runs_them(kaggle: Any) -> None:
    turn = kaggle.step("RandomRotate90")
    applied = [figure for figure in turn.draws if figure.quantity == "applied"]
    # p=1: nothing to count, or a count that agrees (it read 0.5 against 1: differ)
    assert all(figure.verdict() == "agree" for figure in applied), turn.describe()
    hsv = kaggle.step("HueSaturationValue")
    assert hsv.pixels is not None and hsv.pixels.max_abs <= 1, hsv.describe()
    (rate,) = [figure for figure in hsv.draws if figure.quantity == "applied"]
    assert rate.verdict() == "agree", hsv.describe()
