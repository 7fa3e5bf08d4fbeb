"""Probe findings, round 5b.

Compare pinned albumentations' GaussianBlur, Emboss, Sharpen, MotionBlur and RandomGamma to
fixed values whatever the call's own ranges (GaussianBlur at size 5 where the call sizes the
kernel from sigma, RandomGamma at 120 for a range of 60-90), and Affine's dict ranges
(``scale={'x': ..., 'y': ...}``) to 1.1 on both axes: "identical" was measured at settings the
pipeline never runs. RandomGamma(gamma_limit=90) was also ported as 10-190 where
albumentations draws 1-90."""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import pytest
from test_port_compare import _images

from augexplorer.port.compare import compare_file
from augexplorer.port.compare_pins import pin_of
from augexplorer.port.door import port_call
from augexplorer.port.model import TransformCall
from augexplorer.port.reading import read_source

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning:albumentations.*")


def _pinned(text: str) -> tuple[TransformCall, str]:
    (found,) = read_source("import albumentations as A\nt = A.Compose([" + text + "])\n")
    (call,) = found.compose.children
    pin = pin_of(call)
    assert pin is not None
    return pin.apply(call), pin.describe(call)


@pytest.mark.parametrize(
    ("text", "pinned", "said"),
    [
        # left out, blur_limit is 0: the kernel's size follows sigma, int(3.5 sigma) * 2 + 1
        ("A.GaussianBlur()", {"blur_limit": (0, 0), "sigma_limit": (1.2, 1.2)}, "sigma 1.2, "),
        (
            "A.GaussianBlur(sigma_limit=(2.0, 2.5))",
            {"blur_limit": (0, 0), "sigma_limit": (2.0, 2.0)},
            "sigma 2, size 15 (from sigma)",
        ),
        # a single sigma v is (0, v); a size drawn even is made the odd one above it
        (
            "A.GaussianBlur(blur_limit=4, sigma_limit=0.8)",
            {"blur_limit": (5, 5), "sigma_limit": (0.8, 0.8)},
            "size 5, sigma 0.8",
        ),
        (
            "A.GaussianBlur(blur_limit=(7, 9), sigma_limit=(0.2, 0.9))",
            {"blur_limit": (7, 7), "sigma_limit": (0.9, 0.9)},
            "size 7, sigma 0.9",
        ),
        (
            "A.Emboss(alpha=(0.1, 0.2), strength=(0.6, 0.9))",
            {"alpha": (0.2, 0.2), "strength": (0.6, 0.6)},
            "alpha 0.2, strength 0.6",
        ),
        (
            "A.Sharpen(alpha=(0.5, 0.7), lightness=(0.9, 1.0))",
            {"alpha": (0.5, 0.5), "lightness": (0.9, 0.9)},
            "alpha 0.5, lightness 0.9",
        ),
        (
            "A.MotionBlur(blur_limit=(7, 9), angle_range=(10, 20), direction_range=(-0.5, 0.2))",
            {"blur_limit": (7, 7), "angle_range": (10.0, 10.0), "direction_range": (0.2, 0.2)},
            "size 7, angle 10, direction 0.2, centred",
        ),
        ("A.RandomGamma(gamma_limit=(60, 90))", {"gamma_limit": (90.0, 90.0)}, "gamma 90"),
        # a single v is (1, v) in albumentations
        ("A.RandomGamma(gamma_limit=70)", {"gamma_limit": (70.0, 70.0)}, "gamma 70"),
        # 100 does nothing: the range's other end, so that the pixels compare a gamma
        ("A.RandomGamma(gamma_limit=(60, 100))", {"gamma_limit": (60.0, 60.0)}, "gamma 60"),
        (
            "A.Affine(scale={'x': (0.9, 1.0), 'y': (1.0, 1.2)})",
            {"scale": {"x": (1.0, 1.0), "y": (1.1, 1.1)}},
            "scale x 1, y 1.1",
        ),
        (
            "A.Affine(scale={'x': (1.2, 1.3)}, shear={'y': (-3, -1)}, "
            "translate_px={'x': (-2, 2), 'y': 1})",
            {
                "scale": {"x": (1.2, 1.2)},
                "shear": {"y": (-1.0, -1.0)},
                "translate_px": {"x": (2, 2), "y": (1, 1)},
            },
            "scale x 1.2, shear y -1, shift x 2, y 1 px",
        ),
    ],
)
def test_each_pin_is_inside_the_calls_own_ranges(
    text: str, pinned: dict[str, object], said: str
) -> None:
    call, label = _pinned(text)
    for name, value in pinned.items():
        assert call.kwargs[name] == value, name
    assert label.startswith(said)


def test_gaussian_blur_sized_by_sigma_is_said_with_the_size_sigma_gives() -> None:
    _call, said = _pinned("A.GaussianBlur()")
    assert said == "sigma 1.2, size 9 (from sigma)"


def test_a_single_gamma_limit_is_ported_as_albumentations_reads_it() -> None:
    """albumentations 2.0.8 reads RandomGamma(gamma_limit=90) as (1, 90): gamma 0.01-0.9."""
    (found,) = read_source("import albumentations as A\nt = A.Compose([A.RandomGamma(90)])\n")
    (step,) = port_call(found.compose).steps
    (drawn,) = [node for node in step.nodes if node.op == "random.uniform"]
    assert drawn.args["range"] == pytest.approx([0.01, 0.9])


def test_compare_measures_the_pins_inside_the_ranges_against_albumentations(
    reference_python: str, tmp_path: Path
) -> None:
    text = """
    import albumentations as A

    t = A.Compose([
        A.GaussianBlur(p=1),
        A.Emboss(alpha=(0.1, 0.2), strength=(0.6, 0.9), p=1),
        A.Sharpen(alpha=(0.5, 0.7), lightness=(0.9, 1.0), p=1),
        A.MotionBlur(blur_limit=(7, 9), angle_range=(10, 20), direction_range=(-0.5, 0.2), p=1),
        A.RandomGamma(gamma_limit=(60, 90), p=1),
        A.Affine(scale={'x': (0.9, 1.0), 'y': (1.0, 1.2)}, p=1),
    ])
    """
    path = tmp_path / "train.py"
    path.write_text(textwrap.dedent(text))
    comparison = compare_file(path, _images(3), run_file=True, python=reference_python, draws=0)
    assert comparison.original_error == ""
    expected = {
        "GaussianBlur": ("sigma 1.2, size 9 (from sigma)", 1),
        "Emboss": ("alpha 0.2, strength 0.6", 0),
        "Sharpen": ("alpha 0.5, lightness 0.9", 0),
        "MotionBlur": ("size 7, angle 10, direction 0.2, centred", 0),
        "RandomGamma": ("gamma 90", 0),
        "Affine": ("scale x 1, y 1.1", 1),
    }
    for name, (said, bound) in expected.items():
        step = comparison.step(name)
        assert f"pixels with {said} on both sides" in step.note, (name, step.note)
        assert step.pixels is not None and step.pixels.max_abs <= bound, (name, step.describe())


# ---- RandomBrightnessContrast(brightness_by_max=True) ----------------------------------------
# albumentations looks 8-bit pixels up in a float32 table, truncated; DALI's
# brightness_contrast rounds: measured mean 0.55, max 1 grey level off at brightness 0.1,
# contrast 0.2 on the 19 bundled photos.

BY_MAX = (
    "A.RandomBrightnessContrast((0.1, 0.1), (0.2, 0.2), p=1)",
    "A.RandomBrightnessContrast((-0.15, -0.15), (-0.3, -0.3), p=1)",
    "A.RandomBrightnessContrast((0.37, 0.37), (0.13, 0.13), p=1)",
)


def test_brightness_by_max_truncates_on_8_bit_pixels_and_stays_float_after_normalize() -> None:
    text = "import albumentations as A\nt = A.Compose([A.RandomBrightnessContrast(p=1)])\n"
    (found,) = read_source(text)
    (step,) = port_call(found.compose).steps
    (shifted,) = [node for node in step.nodes if node.id == "brightness_contrast"]
    assert shifted.op != "brightness_contrast" and "math.floor" in str(shifted.args)
    text = (
        "import albumentations as A\n"
        "t = A.Compose([A.Normalize(), A.RandomBrightnessContrast(p=1)])\n"
    )
    (found,) = read_source(text)
    step = port_call(found.compose).steps[1]
    # on the float image albumentations truncates nothing: DALI's node, no floor
    assert [node.op for node in step.nodes] == ["brightness_contrast"]


def test_brightness_by_max_gives_albumentations_pixels(
    reference_python: str, tmp_path: Path
) -> None:
    lines = [f"t{index} = A.Compose([{call}])" for index, call in enumerate(BY_MAX)]
    path = tmp_path / "train.py"
    path.write_text("import albumentations as A\n" + "\n".join(lines) + "\n")
    images = _images(19, side=100_000)  # the bundled photos at their own sizes
    for index in range(len(BY_MAX)):
        comparison = compare_file(
            path, images, run_file=True, python=reference_python, pipeline=f"t{index}", draws=0
        )
        step = comparison.step("RandomBrightnessContrast")
        assert step.pixels is not None and step.pixels.max_abs == 0, step.describe()


# ---- RandomApply's p ------------------------------------------------------------------------
# Compare reported what each transform drew, but not whether RandomApply([...], p=0.8) ran what
# it holds 80% of the time on both sides.

RANDOM_APPLY = """
import torchvision.transforms as T

t = T.Compose([
    T.RandomApply([T.ColorJitter(0.4), T.RandomRotation(10)], p=0.8),
    T.RandomApply([T.Grayscale(3)], 0.3),
])
"""


def test_a_rate_says_each_sides_interval_and_a_verdict() -> None:
    from augexplorer.port.compare_figures import rate_figures

    alike = rate_figures("applied", 160, 200, [1.0] * 158 + [0.0] * 42, 0.8)
    assert alike.ours_interval is not None and alike.ours_interval[0] < 0.8 < alike.ours_interval[1]
    assert alike.verdict() == "agree"
    assert "applied (p=0.8; 95% intervals): DALI 0.8 [" in alike.describe()
    assert alike.describe().endswith(": agree")
    # the original at one half where the user asked 0.8: said, and which side
    off = rate_figures("applied", 160, 200, [1.0] * 100 + [0.0] * 100, 0.8)
    assert off.verdict().startswith("differ")
    # 0.5 against 0.8 over 200 each: the two-proportion test rejects first
    assert rate_figures("applied", 100, 200, [1.0] * 160 + [0.0] * 40, 0.8).verdict() == (
        "differ: the two sides' rates (p 3.2e-10)"
    )
    both_off = rate_figures("applied", 100, 1000, [1.0] * 100 + [0.0] * 900, 0.8)
    assert "DALI and original not at p=0.8" in both_off.verdict()


def test_compare_gives_how_often_each_random_apply_ran_on_both_sides(
    reference_python: str, tmp_path: Path
) -> None:
    path = tmp_path / "train.py"
    path.write_text(RANDOM_APPLY)
    comparison = compare_file(path, _images(4), run_file=True, python=reference_python, draws=240)
    assert comparison.original_error == ""
    applies = [s for s in comparison.steps if s.transform.startswith("RandomApply")]
    assert [s.transform.split("]", 1)[0] for s in applies] == [
        "RandomApply([ColorJitter, RandomRotation",
        "RandomApply([Grayscale",
    ]
    # before the transforms each holds, in the pipeline's order
    names = [s.transform.split("(", 1)[0] for s in comparison.steps]
    assert names[:4] == ["RandomApply", "ColorJitter", "RandomRotation", "RandomApply"]
    for step, p in zip(applies, (0.8, 0.3), strict=True):
        (rate,) = step.draws
        assert rate.quantity == "applied" and rate.expected == p
        assert rate.theirs_n == 240 and rate.ours_n >= 240
        assert rate.verdict() == "agree", step.describe()
        assert f"applied (p={p:g}; 95% intervals)" in step.describe()


def test_a_port_whose_coin_is_not_the_users_p_is_said_to_differ(
    reference_python: str, tmp_path: Path
) -> None:
    from augexplorer.port.door import port_file

    path = tmp_path / "train.py"
    path.write_text(RANDOM_APPLY)
    graph = port_file(path).spec
    graph = graph.set_arg("random_apply", "probability", 0.2)  # an edit in the panel
    comparison = compare_file(
        path, _images(4), run_file=True, python=reference_python, draws=240, graph=graph
    )
    (rate,) = comparison.step("RandomApply").draws
    assert rate.ours_mean < 0.35 and rate.theirs_mean > 0.65
    assert rate.verdict().startswith("differ"), comparison.step("RandomApply").describe()


# ---- GaussNoise(per_channel=False) -----------------------------------------------------------
# Refused ("one noise for all channels is not ported"), though DALI draws one normal value per
# pixel of one channel (random.normal shaped like it) and an expression adds it to all three.

SHARED_NOISE = "A.GaussNoise(std_range=(0.1, 0.1), per_channel=False, p=1)"


def test_shared_noise_is_ported_and_drawn_as_albumentations_draws_it() -> None:
    import albumentations as A
    from scipy import stats

    from augexplorer.port.compare import _on_arrays, run_port

    (found,) = read_source(f"import albumentations as A\nt = A.Compose([{SHARED_NOISE}])\n")
    result = port_call(found.compose)
    assert not result.refusals
    assert result.steps[0].origin.fidelity == "distribution"
    grey = [np.full((64, 48, 3), 128, np.uint8) for _ in range(4)]
    ours: list[np.ndarray] = []
    for run in range(10):
        ours += run_port(_on_arrays(result.spec, len(grey), run), grey) or []
    theirs_compose = A.Compose([eval(SHARED_NOISE, {"A": A})], seed=1)  # the test's own literal
    theirs = [theirs_compose(image=image)["image"] for _ in range(10) for image in grey]
    for outputs in (ours, theirs):
        assert len(outputs) == 40
        # one noise for all channels, on both sides
        assert all(np.array_equal(o[..., 0], o[..., c]) for o in outputs for c in (1, 2))
    noise = [np.concatenate([o[..., 0].ravel() - 128.0 for o in side]) for side in (ours, theirs)]
    # truncated toward zero as albumentations adds it (spread 25.0 here): rounded, it would
    # be 25.5
    assert abs(noise[0].std() - noise[1].std()) < 0.25
    assert stats.ks_2samp(noise[0], noise[1]).pvalue > 0.01


def test_shared_noise_with_1x_variance_is_refused_with_the_2x_fix() -> None:
    """A 1.x saved file's var_limit is read as 1.x's; its shared noise is not ported."""
    from augexplorer.port.albumentations.arguments import Args, NotPorted
    from augexplorer.port.albumentations.blur_noise import gauss_noise

    call = TransformCall(
        "albumentations", "GaussNoise", kwargs={"var_limit": (10, 50), "per_channel": False}
    )
    with pytest.raises(NotPorted) as refused:
        gauss_noise(Args(call))
    assert "per_channel=False with 1.x's var_limit" in refused.value.reason
    assert "std_range=(sqrt(low) / 255, sqrt(high) / 255)" in refused.value.reason
