"""Probe findings, albumentations round six: a Kaggle-style pipeline brought as written.

- ``OneOf`` and ``SomeOf`` had no figure in Compare: which transform they applied, and how
  often, was never counted against albumentations' own picks (its children's p normalized
  for OneOf, n of them with equal chances and each with its own p for SomeOf); a OneOf's
  transform showed its own p as a rate ("p=0.5"), where the OneOf takes it as a weight.
- ``GaussNoise(per_channel=True)`` rounded the noisy pixels (DALI's noise.gaussian) where
  albumentations truncates the noise toward zero: 25.5 grey levels of spread against 25.1 at
  std 0.1, 1.6% wider.
- A transform whose nodes each run on a part of the images (CLAHE over a clip-limit range) read
  as applied at half its p in Compare, and one gated by a coin node (RandomBrightnessContrast)
  had its p left out of the verdict: the rate was one node's, not the transform's coin.
- ``CenterCrop(224)`` after ``SmallestMaxSize(256)``, and ``RandomCrop`` after
  ``PadIfNeeded``, had no figure: run alone on smaller photos, albumentations refuses them.
- ``HueSaturationValue``, ``CLAHE``, ``ImageCompression`` and ``Downscale`` had no pixel
  figure (nothing pinned).
- ``MedianBlur``, refused (DALI's median_blur is GPU-only), named no fix.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import pytest
from scipy import stats
from test_port_compare import _images

from augexplorer.port.albumentations.picks_compared import expected_rates
from augexplorer.port.compare import _on_arrays, compare_file, run_port
from augexplorer.port.compare_pins import pin_of
from augexplorer.port.door import port_call
from augexplorer.port.reading import read_source

A = pytest.importorskip("albumentations")

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning:albumentations.*")

KAGGLE = """
import cv2
import albumentations as A

train = A.Compose([
    A.SmallestMaxSize(max_size=64),
    A.CenterCrop(56, 56),
    A.OneOf([
        A.MotionBlur(blur_limit=5, p=1.0),
        A.Blur(blur_limit=3, p=0.5),
        A.GaussianBlur(p=0.2),
    ], p=0.8),
    A.SomeOf([A.HorizontalFlip(p=1), A.VerticalFlip(p=0.5), A.Transpose(p=1)], n=2, p=0.9),
    A.CLAHE(clip_limit=(1, 4), p=0.2),
    A.HueSaturationValue(hue_shift_limit=5, sat_shift_limit=(0, 10), val_shift_limit=0),
])
"""
DRAWS = 480


def _write(folder: Path, text: str) -> Path:
    path = folder / "train.py"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def kaggle(reference_python: str, tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    path = _write(tmp_path_factory.mktemp("kaggle"), KAGGLE)
    return compare_file(
        path, _images(4, 64), run_file=True, python=reference_python, draws=DRAWS, seed=3
    )


# ---- OneOf and SomeOf: each transform's rate against albumentations' own picks --------------


def test_one_of_counts_each_transform_against_albumentations(kaggle) -> None:  # type: ignore[no-untyped-def]
    step = kaggle.step("OneOf")
    rates = {figure.quantity: figure for figure in step.draws}
    weights = {"MotionBlur": 1.0, "Blur": 0.5, "GaussianBlur": 0.2}
    for index, (name, weight) in enumerate(weights.items()):
        figure = rates[f"{name} applied (#{index + 1})"]
        # albumentations normalizes the children's p: the OneOf's p times the child's share
        assert figure.expected == pytest.approx(0.8 * weight / 1.7)
        assert figure.ours_n == figure.theirs_n == DRAWS
        assert figure.verdict() == "agree", step.describe()
    applied = rates["applied"]
    assert applied.expected == pytest.approx(0.8)
    assert applied.verdict() == "agree", step.describe()
    # the original's own counts, not the port's echoed: they add up to how often it applied
    together = sum(rates[f"{n} applied (#{i + 1})"].theirs_mean for i, n in enumerate(weights))
    assert together == pytest.approx(applied.theirs_mean)
    # inside the OneOf a transform's p is a weight: its own rate, alone, is not shown
    blur = kaggle.step("Blur")
    assert not [figure for figure in blur.draws if figure.quantity == "applied"]
    assert "inside the OneOf its p is its weight in the pick" in blur.note


def test_some_of_counts_each_transform_with_its_own_p(kaggle) -> None:  # type: ignore[no-untyped-def]
    step = kaggle.step("SomeOf")
    expected = {"HorizontalFlip": 0.6, "VerticalFlip": 0.3, "Transpose": 0.6}  # 0.9 * 2/3 * p
    figures = {figure.quantity.split(" ")[0]: figure for figure in step.draws}
    assert set(figures) == set(expected), step.describe()
    for name, rate in expected.items():
        assert figures[name].expected == pytest.approx(rate)
        assert figures[name].verdict() == "agree", step.describe()


def test_a_pick_the_port_makes_otherwise_reads_differ(
    reference_python: str, tmp_path: Path
) -> None:
    """The figures see a port that picks otherwise: the OneOf's coin edited from 0.8 to 0.3."""
    text = KAGGLE.replace(
        "    A.SomeOf([A.HorizontalFlip(p=1), A.VerticalFlip(p=0.5), A.Transpose(p=1)], "
        "n=2, p=0.9),\n    A.CLAHE(clip_limit=(1, 4), p=0.2),\n",
        "",
    ).replace("    A.SmallestMaxSize(max_size=64),\n    A.CenterCrop(56, 56),\n", "")
    path = _write(tmp_path, text)
    (found,) = read_source(path.read_text(encoding="utf-8"))
    graph = port_call(found.compose).spec.set_arg("one_of_apply", "probability", 0.3)
    comparison = compare_file(
        path, _images(4, 48), run_file=True, python=reference_python, graph=graph, draws=240
    )
    applied = next(f for f in comparison.step("OneOf").draws if f.quantity == "applied")
    assert applied.ours_mean < 0.45 and applied.theirs_mean > 0.65
    assert applied.verdict().startswith("differ")


def test_expected_rates_follow_albumentations_rules() -> None:
    (found,) = read_source(
        "import albumentations as A\nt = A.Compose([A.SomeOf([A.Blur(), A.HorizontalFlip(p=1)],"
        " n=5)])\n"
    )
    (some_of,) = found.compose.children
    # n above the transforms' count: albumentations takes them all, each with its own p
    assert expected_rates(some_of) == (None, [0.5, 1.0])


# ---- a transform's own coin is what Compare counts --------------------------------------------


def test_clahe_over_a_range_applies_at_its_p_on_both_sides(kaggle) -> None:  # type: ignore[no-untyped-def]
    step = kaggle.step("CLAHE")
    (applied,) = [figure for figure in step.draws if figure.quantity == "applied"]
    assert applied.expected == pytest.approx(0.2)
    assert abs(applied.ours_mean - 0.2) < 0.06, step.describe()
    assert applied.verdict() == "agree", step.describe()


def test_clahe_and_hue_saturation_value_are_pinned_inside_the_users_ranges(kaggle) -> None:  # type: ignore[no-untyped-def]
    clahe = kaggle.step("CLAHE")
    assert clahe.pixels is not None and clahe.pixels.max_abs == 0, clahe.describe()
    assert "pixels with clip limit 2 on both sides" in clahe.note
    hsv = kaggle.step("HueSaturationValue")
    assert hsv.pixels is not None, hsv.describe()
    # OpenCV's HSV round trip, as albumentations runs it: within a grey level
    assert hsv.pixels.max_abs <= 1, hsv.describe()
    assert "pixels with hue 5, saturation 10, value 0 on both sides" in hsv.note


@pytest.mark.parametrize(
    ("text", "pinned", "said"),
    [
        ("A.ImageCompression(quality_range=(80, 100))", {"quality_range": (90, 90)}, "quality 90"),
        ("A.ImageCompression(quality_range=(20, 40))", {"quality_range": (40, 40)}, "quality 40"),
        ("A.ImageCompression()", {"quality_range": (99, 99)}, "quality 99"),
        ("A.Downscale(scale_range=(0.6, 0.75))", {"scale_range": (0.6, 0.6)}, "scale 0.6"),
        ("A.Downscale()", {"scale_range": (0.25, 0.25)}, "scale 0.25"),
        (
            "A.HueSaturationValue(30, (-5, 5), (0, 40))",
            {"hue_shift_limit": (10.0, 10.0), "sat_shift_limit": (5.0, 5.0)},
            "hue 10, saturation 5, value 0",
        ),
        ("A.CLAHE(clip_limit=1.5)", {"clip_limit": (1.5, 1.5)}, "clip limit 1.5"),
    ],
)
def test_pins_are_taken_inside_the_calls_own_range(
    text: str, pinned: dict[str, object], said: str
) -> None:
    (found,) = read_source("import albumentations as A\nt = A.Compose([" + text + "])\n")
    (call,) = found.compose.children
    pin = pin_of(call)
    assert pin is not None
    applied = pin.apply(call)
    places = {"hue_shift_limit": 0, "sat_shift_limit": 1, "val_shift_limit": 2}  # positional
    given = {name: applied.argument(places.get(name, len(applied.args)), name) for name in pinned}
    assert given == pinned
    assert pin.describe(call) == said


# ---- crops of a fixed size, after what sizes their images -----------------------------------


def test_a_centre_crop_after_smallest_max_size_is_compared_as_the_pipeline_runs_it(kaggle) -> None:  # type: ignore[no-untyped-def]
    step = kaggle.step("CenterCrop")
    assert step.pixels is not None, step.describe()
    assert step.pixels.max_abs <= 1  # SmallestMaxSize's rounding of OpenCV's interpolation
    assert "run after SmallestMaxSize on both sides" in step.note


# ---- GaussNoise(per_channel=True) ----------------------------------------------------------------


def test_noise_per_channel_is_truncated_toward_zero_as_albumentations_adds_it() -> None:
    code = "A.GaussNoise(std_range=(0.1, 0.1), p=1)"
    (found,) = read_source(f"import albumentations as A\nt = A.Compose([{code}])\n")
    result = port_call(found.compose)
    assert not result.refusals
    grey = [np.full((64, 48, 3), 128, np.uint8) for _ in range(4)]
    ours: list[np.ndarray] = []
    for run in range(6):
        ours += run_port(_on_arrays(result.spec, len(grey), run), grey) or []
    theirs_compose = A.Compose([eval(code, {"A": A})], seed=1)  # the test's own literal
    theirs = [theirs_compose(image=image)["image"] for _ in range(6) for image in grey]
    # a noise of its own in each channel, on both sides
    for outputs in (ours, theirs):
        assert all(not np.array_equal(o[..., 0], o[..., 1]) for o in outputs)
    noise = [np.concatenate([o.ravel() - 128.0 for o in side]) for side in (ours, theirs)]
    # truncated, 25.1 grey levels of spread; rounded as noise.gaussian rounds, 25.5
    assert abs(noise[0].std() - noise[1].std()) < 0.15, (noise[0].std(), noise[1].std())
    assert stats.ks_2samp(noise[0], noise[1]).pvalue > 0.01


# ---- refusals say the fix ----------------------------------------------------------------------


def test_median_blur_refused_in_a_one_of_names_the_fix() -> None:
    (found,) = read_source(
        "import albumentations as A\nt = A.Compose([\n"
        "    A.OneOf([A.MotionBlur(), A.MedianBlur(blur_limit=5), A.Blur()], p=0.3),\n])\n"
    )
    (refusal,) = port_call(found.compose).refusals
    assert refusal.call.name == "MedianBlur" and refusal.call.line == 3
    assert "fix: A.Blur with the same blur_limit in its place" in refusal.reason
    assert "in 1 of 3 picks the OneOf does nothing" in refusal.reason
