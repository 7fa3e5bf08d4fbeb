"""Pinned parameter values: a random transform graded exact, its ranges collapsed to one value
on both sides, gives pixels that are measured against the real library (albumentations and
torchvision in the reference environment) and are within the bound its grade states."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_port_compare import _images

from augexplorer.port.compare import compare_file
from augexplorer.port.compare_pins import PINS, FactorPin, pin_of
from augexplorer.port.model import TransformCall
from augexplorer.port.reading import read_source

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning:albumentations.*")

# Each family with a pin, as a user writes it, and the most its pinned pixels may differ by:
# 0 where the grade says "the same pixels", 1 where it says "within 1 grey level".
ALBUMENTATIONS = {
    "Affine": (
        "A.Affine(scale=(0.9, 1.1), translate_percent=(-0.1, 0.1), rotate=15, shear=5, p=1)",
        1,
    ),
    "ShiftScaleRotate": ("A.ShiftScaleRotate(shift_limit=0.05, scale_limit=0.1, p=1)", 1),
    "RandomScale": ("A.RandomScale(scale_limit=0.2, p=1)", 1),
    "Rotate": ("A.Rotate(limit=30, p=1)", 1),
    "SafeRotate": ("A.SafeRotate(limit=30, p=1)", 1),
    "Blur": ("A.Blur(blur_limit=(3, 7), p=1)", 0),
    "GaussianBlur": ("A.GaussianBlur(blur_limit=(3, 7), p=1)", 1),
    "MotionBlur": ("A.MotionBlur(p=1)", 0),
    "Emboss": ("A.Emboss(p=1)", 0),
    "Sharpen": ("A.Sharpen(p=1)", 0),
    "RandomBrightnessContrast": ("A.RandomBrightnessContrast(p=1)", 1),
    "RandomGamma": ("A.RandomGamma(p=1)", 0),
    "RGBShift": ("A.RGBShift(p=1)", 0),
    "MultiplicativeNoise": ("A.MultiplicativeNoise(per_channel=True, p=1)", 1),
}
TORCHVISION = {
    "GaussianBlur": ("T.GaussianBlur(9, sigma=(0.1, 2.0))", 1),
    # approximate: a figure, no bound here; compared at 10, its range's end (not at 15)
    "RandomRotation": ("T.RandomRotation(10)", None),
    "RandomAffine": ("T.RandomAffine(15, translate=(0.1, 0.1), scale=(0.9, 1.1), shear=5)", None),
}


def _file_text(library: str, calls: list[str]) -> str:
    head, prefix = {
        "albumentations": ("import albumentations as A", "A"),
        "torchvision": ("import torchvision.transforms as T", "T"),
    }[library]
    compose = f"{prefix}.Compose([\n" + "".join(f"    {c},\n" for c in calls) + "])"
    return f"{head}\n\ntrain_transform = {compose}\n"


def _file(tmp_path: Path, library: str, calls: list[str]) -> Path:
    path = tmp_path / f"{library}_pins.py"
    path.write_text(_file_text(library, calls), encoding="utf-8")
    return path


def _read_call(library: str, code: str) -> TransformCall:
    """`code` as the port reads it from a file."""
    (found,) = read_source(_file_text(library, [code]))
    (call,) = found.compose.children
    return call


def test_every_pin_collapses_the_ranges_it_names() -> None:
    shear_alone = TransformCall("albumentations", "Affine", kwargs={"rotate": (-9.0, 9.0)})
    pin = pin_of(shear_alone)
    assert pin is not None
    pinned = pin.apply(shear_alone).kwargs
    # only what the user gave is pinned, inside its range: no translation or scale added
    assert pinned["rotate"] == (9.0, 9.0) and "scale" not in pinned
    assert "translate_percent" not in pinned and "translate_px" not in pinned
    in_pixels = TransformCall(
        "albumentations", "Affine", kwargs={"translate_px": (-8, 8), "translate_percent": None}
    )
    assert pin.apply(in_pixels).kwargs["translate_px"] == (4, 4)
    assert pin.apply(in_pixels).kwargs["translate_percent"] is None
    # a positional range is replaced where it stands
    blur = TransformCall("torchvision", "GaussianBlur", args=(9, (0.1, 2.0)))
    assert PINS["torchvision", "GaussianBlur"].apply(blur).args == (9, (1.2, 1.2))


@pytest.mark.parametrize(
    ("call", "pinned", "label"),
    [
        # the pin's own value where the user's range holds it
        (TransformCall("torchvision", "RandomRotation", args=(20,)), (15.0, 15.0), "angle 15"),
        # else the range's nearest end: RandomRotation(10) never turns 15 degrees
        (TransformCall("torchvision", "RandomRotation", args=(10,)), (10.0, 10.0), "angle 10"),
        (
            TransformCall("torchvision", "RandomRotation", kwargs={"degrees": (-5, 3)}),
            (3.0, 3.0),
            "angle 3",
        ),
        (
            TransformCall("torchvision", "ColorJitter", kwargs={"brightness": 0.1}),
            (1.1, 1.1),
            "brightness 1.1 alone",
        ),
        # a jitter that leaves brightness out is compared by a factor it sets, not the identity
        (
            TransformCall("torchvision", "ColorJitter", kwargs={"contrast": 0.4}),
            (1.2, 1.2),
            "contrast 1.2 alone",
        ),
        (TransformCall("albumentations", "Rotate", kwargs={"limit": 8}), (8.0, 8.0), "angle 8"),
        (TransformCall("albumentations", "Rotate"), (15.0, 15.0), "angle 15"),
        (
            TransformCall("torchvision", "GaussianBlur", args=(5,), kwargs={"sigma": (0.1, 0.5)}),
            (0.5, 0.5),
            "sigma 0.5",
        ),
    ],
)
def test_a_pin_is_taken_inside_the_users_range(
    call: TransformCall, pinned: tuple[float, float], label: str
) -> None:
    pin = pin_of(call)
    assert pin is not None
    applied = pin.apply(call)
    if isinstance(pin, FactorPin):  # one factor of several: the one the call sets
        chosen = pin.chosen(call)
        assert chosen is not None and chosen[0].index is not None
        name, index = chosen[0].name, chosen[0].index
    else:
        (name,) = [rule.name for rule in pin.inside]
        index = next(i for i, n, _ in pin.values if n == name)
    value = applied.kwargs[name] if name in applied.kwargs else applied.args[index]
    assert value == pytest.approx(pinned)
    assert pin.describe(call) == label


@pytest.mark.slow
def test_pinned_albumentations_pixels_are_within_their_grade(
    reference_python: str, tmp_path: Path
) -> None:
    calls = [call for call, _bound in ALBUMENTATIONS.values()]
    path = _file(tmp_path, "albumentations", calls)
    comparison = compare_file(path, _images(), run_file=True, python=reference_python, draws=0)
    assert comparison.versions.get("albumentations", "").startswith("2.")
    for name, (_call, bound) in ALBUMENTATIONS.items():
        step = comparison.step(name)
        pin = PINS["albumentations", name]
        assert step.grade == "exact", name
        assert step.pixels is not None, f"{name}: {step.note}"
        said = pin.describe(_read_call("albumentations", ALBUMENTATIONS[name][0]))
        assert f"pixels with {said}" in step.note, name
        assert step.pixels.max_abs <= bound, f"{name}: {step.pixels.describe()}"


@pytest.mark.slow
def test_pinned_torchvision_pixels_are_within_their_grade(
    reference_python: str, tmp_path: Path
) -> None:
    calls = [call for call, _bound in TORCHVISION.values()]
    path = _file(tmp_path, "torchvision", calls)
    comparison = compare_file(path, _images(), run_file=True, python=reference_python, draws=0)
    assert "torchvision" in comparison.versions
    for name, (_call, bound) in TORCHVISION.items():
        step = comparison.step(name)
        assert step.pixels is not None, f"{name}: {step.note}"
        said = PINS["torchvision", name].describe(_read_call("torchvision", TORCHVISION[name][0]))
        assert f"pixels with {said}" in step.note, name
        if bound is not None:
            assert step.grade == "exact"
            assert step.pixels.max_abs <= bound, f"{name}: {step.pixels.describe()}"
