"""Ported torchvision transforms against real torchvision (the reference environment): pixel
parity where the parameters can be fixed, the bounds each grade states (grades.GRADES)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from port_parity import difference, ported, reference, run, sample_images

from augexplorer.port.torchvision.grades import GRADES, measured_modes

# (transform class whose grade states the bound, the transform with its draws fixed)
CASES: dict[str, tuple[str, str]] = {
    "resize_short": ("Resize", "T.Resize(256)"),
    "resize_pair": ("Resize", "T.Resize((200, 240))"),
    "resize_bicubic": ("Resize", "T.Resize(256, interpolation=T.InterpolationMode.BICUBIC)"),
    "scale": ("Scale", "T.Resize(180)"),
    "resize_max_size": ("Resize", "T.Resize(256, max_size=300)"),
    "center_crop": ("CenterCrop", "T.CenterCrop(224)"),
    "center_crop_odd": ("CenterCrop", "T.CenterCrop((201, 150))"),
    "center_crop_large": ("CenterCrop", "T.CenterCrop(400)"),
    "pad": ("Pad", "T.Pad((3, 5), fill=7)"),
    "pad_fill_channels": ("Pad", "T.Pad((1, 2, 3, 4), fill=(10, 20, 30))"),
    # padding given per side (left/right, top/bottom; or left, top, right, bottom)
    "random_crop_padding_pair_whole": (
        "Pad",
        "T.CenterCrop((40, 48)), T.RandomCrop((48, 64), (8, 4))",
    ),
    "random_crop_padding_sides_whole": (
        "Pad",
        "T.CenterCrop((40, 48)), T.RandomCrop((47, 55), (3, 2, 4, 5), padding_mode='reflect')",
    ),
    "random_crop_fill_channels_whole": (
        "Pad",
        "T.CenterCrop((40, 48)), T.RandomCrop((48, 56), 4, fill=(5, 50, 250))",
    ),
    # the modes that mirror or repeat the image: a whole-pixel warp with DALI's same border
    "pad_reflect": ("Pad", "T.Pad(5, padding_mode='reflect')"),
    "pad_symmetric": ("Pad", "T.Pad((3, 7), padding_mode='symmetric')"),
    "pad_edge": ("Pad", "T.Pad((1, 2, 3, 4), padding_mode='edge')"),
    # padded by 4 and cropped to the padded size: one window, the whole padded image
    "random_crop_reflect_whole": (
        "Pad",
        "T.CenterCrop((40, 48)), T.RandomCrop((48, 56), 4, padding_mode='reflect')",
    ),
    "random_crop_edge_whole": (
        "Pad",
        "T.CenterCrop((40, 48)), T.RandomCrop((48, 56), 4, padding_mode='edge')",
    ),
    "hflip": ("RandomHorizontalFlip", "T.RandomHorizontalFlip(p=1.0)"),
    "vflip": ("RandomVerticalFlip", "T.RandomVerticalFlip(p=1.0)"),
    "rotation": ("RandomRotation", "T.RandomRotation((30, 30))"),
    "rotation_expand": ("RandomRotation", "T.RandomRotation((30, 30), expand=True)"),
    # PIL's canvas, where DALI's own rounds to other sizes (cat.jpg 45 degrees: 533x532 for
    # 532x533; 60: 541x486 for 542x487) and a quarter turn swaps height and width exactly
    "rotation_expand_45": ("RandomRotation", "T.RandomRotation((45, 45), expand=True)"),
    "rotation_expand_60": ("RandomRotation", "T.RandomRotation((60, 60), expand=True)"),
    "rotation_expand_quarter": ("RandomRotation", "T.RandomRotation((90, 90), expand=True)"),
    "rotation_fill": ("RandomRotation", "T.RandomRotation((-20, -20), fill=(128, 128, 128))"),
    "affine": ("RandomAffine", "T.RandomAffine((20, 20), scale=(0.8, 0.8), shear=(5, 5, -7, -7))"),
    "affine_scale": ("RandomAffine", "T.RandomAffine(0, scale=(1.3, 1.3))"),
    "affine_shear": ("RandomAffine", "T.RandomAffine(0, shear=(10, 10))"),
    "jitter_brightness": ("ColorJitter", "T.ColorJitter(brightness=(1.3, 1.3))"),
    "jitter_contrast": ("ColorJitter", "T.ColorJitter(contrast=(0.7, 0.7))"),
    "jitter_saturation": ("ColorJitter", "T.ColorJitter(saturation=(1.4, 1.4))"),
    "jitter_hue": ("ColorJitter", "T.ColorJitter(hue=(0.05, 0.05))"),
    "jitter_hue_negative": ("ColorJitter", "T.ColorJitter(hue=(-0.3, -0.3))"),
    "jitter_all": (
        "ColorJitter",
        "T.ColorJitter((1.2, 1.2), (0.8, 0.8), (1.2, 1.2), (0.05, 0.05))",
    ),
    "grayscale": ("Grayscale", "T.Grayscale()"),
    "grayscale_rgb": ("RandomGrayscale", "T.RandomGrayscale(p=1.0)"),
    "blur": ("GaussianBlur", "T.GaussianBlur(9, sigma=(3.0, 3.0))"),
    "invert": ("RandomInvert", "T.RandomInvert(p=1.0)"),
    "posterize": ("RandomPosterize", "T.RandomPosterize(3, p=1.0)"),
    "solarize": ("RandomSolarize", "T.RandomSolarize(128, p=1.0)"),
    "autocontrast": ("RandomAutocontrast", "T.RandomAutocontrast(p=1.0)"),
    "equalize": ("RandomEqualize", "T.RandomEqualize(p=1.0)"),
    "sharpness": ("RandomAdjustSharpness", "T.RandomAdjustSharpness(2, p=1.0)"),
    "sharpness_blurred": ("RandomAdjustSharpness", "T.RandomAdjustSharpness(0.3, p=1.0)"),
    # on a uint8 tensor torchvision blends by another formula
    "sharpness_tensor": (
        "RandomAdjustSharpness",
        "T.PILToTensor(), T.RandomAdjustSharpness(1.3, p=1.0)",
    ),
    # extrapolated far past 1: PIL clips before it truncates
    "sharpness_strong": (
        "RandomAdjustSharpness",
        "T.CenterCrop(120), T.RandomAdjustSharpness(6, p=1.0)",
    ),
    "to_tensor": ("ToTensor", "T.ToTensor()"),
    "normalize": (
        "Normalize",
        "T.ToTensor(), T.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])",
    ),
}


@pytest.fixture(scope="module")
def compared(reference_python: str, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("parity")
    images = sample_images(12)
    codes = {name: f"T.Compose([{code}])" for name, (_, code) in CASES.items()}
    theirs = reference(reference_python, codes, images, tmp)
    found = {}
    for name, (_, code) in CASES.items():
        ours = run(ported(code, images, tmp))
        scale = 255.0 if ours[0].dtype == np.float32 else 1.0
        std = (0.229, 0.224, 0.225) if name == "normalize" else None
        if std is not None:  # back to [0, 1] units before grey levels
            ours = [o * np.asarray(std, np.float32)[:, None, None] for o in ours]
            theirs[name] = [t * np.asarray(std, np.float32)[:, None, None] for t in theirs[name]]
        found[name] = difference(ours, theirs[name], scale=scale)
    return found


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(CASES))
def test_pixels_stay_within_the_measured_bound(case: str, compared: dict[str, Any]) -> None:
    transform, _ = CASES[case]
    measured = GRADES[transform]
    found = compared[case]
    assert found.shapes_agree, f"{case}: output sizes differ from torchvision's"
    assert measured.mean_abs is not None and measured.max_abs is not None
    assert found.mean_abs <= measured.mean_abs, f"{case}: {found}"
    assert found.max_abs <= measured.max_abs, f"{case}: {found}"
    if measured.fidelity == "exact":
        assert found.max_abs <= 1.0, f"{case} is graded exact but differs: {found}"
    if case.startswith("jitter_") and case != "jitter_all":  # one factor: graded exact
        assert found.mean_abs <= 0.6 and found.max_abs <= 5, f"{case}: {found}"


def test_every_pixel_graded_transform_has_a_case() -> None:
    bounded = {name for name, m in GRADES.items() if m.mean_abs is not None}
    # their own tests give torchvision what the port drew (corners; the orders of steps; the
    # sizes of tests/test_port_torchvision_v2_sizes.py)
    bounded -= {"RandomPerspective", "RandomPhotometricDistort"}
    bounded -= {"RandomShortestSize", "RandomResize", "ScaleJitter", "RandomZoomOut"}
    assert bounded <= {transform for transform, _ in CASES.values()}


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["BILINEAR", "BICUBIC", "NEAREST"])
def test_random_resized_crops_resampling_is_resizes(
    mode: str, reference_python: str, tmp_path: Path
) -> None:
    """The window is resized as Resize resizes an image, so RandomResizedCrop's grade quotes
    Resize's resampling figures for every mode Resize was measured with. Here the window is the
    whole image on both sides (all of its area, any aspect), so only the resampling differs."""
    images = sample_images(6)
    code = (
        "T.RandomResizedCrop(160, scale=(1.0, 1.0), ratio=(0.1, 10.0), "
        f"interpolation=T.InterpolationMode.{mode})"
    )
    theirs = reference(reference_python, {"rrc": f"T.Compose([{code}])"}, images, tmp_path)
    found = difference(run(ported(code, images, tmp_path)), theirs["rrc"])
    assert mode in measured_modes("RandomResizedCrop")
    resize = GRADES["Resize"]
    assert resize.max_abs is not None
    # the sentence's upper figures (bilinear 0.16, bicubic 0.17: measured on these windows)
    assert found.shapes_agree and found.mean_abs <= 0.18, f"{mode}: {found}"
    assert found.max_abs <= resize.max_abs, f"{mode}: {found}"


@pytest.mark.slow
def test_nearest_resizes_figures_hold(reference_python: str, tmp_path: Path) -> None:
    """The grade's nearest figures, by how much the photos shrink (the sentence said mean 0.04,
    measured at 256 px only; at 150 px a tester measured 0.96)."""
    images = sample_images(19)
    sides = {256: (0.05, 161), 100: (0.4, 160), 150: (1.0, 218)}
    code = "T.Resize({}, interpolation=T.InterpolationMode.NEAREST)"
    codes = {f"n{side}": f"T.Compose([{code.format(side)}])" for side in sides}
    theirs = reference(reference_python, codes, images, tmp_path)
    for side, (mean, most) in sides.items():
        found = difference(run(ported(code.format(side), images, tmp_path)), theirs[f"n{side}"])
        assert found.shapes_agree and found.mean_abs <= mean and found.max_abs <= most, found
    assert "0.96 at 150" in GRADES["Resize"].differences[0]


def test_random_erasing_fills_one_value_per_channel(tmp_path: Path) -> None:
    """value=(r, g, b) was refused ("DALI's erase fills with one value"); erase takes one value
    per channel, as torchvision fills each channel with its own."""
    value = (0.485, 0.456, 0.406)
    code = f"T.CenterCrop(64), T.ToTensor(), T.RandomErasing(p=1, scale=(0.3, 0.3), value={value})"
    result = ported(code, sample_images(4), tmp_path)
    (erase,) = [node for node in result.spec.nodes if node.op == "erase"]
    assert erase.args["fill_value"] == list(value)
    for image in run(result):  # CHW floats: the erased pixels hold the value, channel by channel
        erased = np.all(np.abs(image - np.asarray(value, np.float32)[:, None, None]) < 1e-6, axis=0)
        assert 0.2 < erased.mean() < 0.4


# transforms after ToTensor, on the CHW float tensor (a newcomer's trial: refused before)
AFTER_TO_TENSOR = {
    # crops, pads and flips move the tensor's values: the same floats
    "moved": "T.ToTensor(), T.CenterCrop((201, 150)), T.Pad((3, 5), fill=0.5), "
    "T.RandomHorizontalFlip(p=1.0), T.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])",
    # resampled: DALI's float resize against torchvision's tensor resize (antialiased)
    "resized": "T.ToTensor(), T.Resize(150), T.CenterCrop(128)",
}


@pytest.mark.parametrize("case", sorted(AFTER_TO_TENSOR))
def test_geometry_after_to_tensor_runs_on_the_float_tensor(
    case: str, reference_python: str, tmp_path: Path
) -> None:
    images = sample_images(8)
    code = AFTER_TO_TENSOR[case]
    theirs = reference(reference_python, {case: f"T.Compose([{code}])"}, images, tmp_path)[case]
    result = ported(code, images, tmp_path)
    found = difference(run(result), theirs, scale=255.0)
    assert found.shapes_agree, found
    fidelities = {step.call.name: step.origin.fidelity for step in result.steps}
    if case == "moved":
        assert found.max_abs <= 1e-3, found  # float rounding of the normalization alone
        assert fidelities["CenterCrop"] == fidelities["Pad"] == "exact"
    else:
        assert found.mean_abs <= 0.05 and found.max_abs <= 3, found  # 0.001 and 1.6 measured
        assert fidelities["Resize"] == "approximate"


@pytest.mark.parametrize(
    ("code", "said"),
    [
        ("T.ToTensor(), T.RandomRotation(10)", "DALI's rotate and warp_affine take HWC images"),
        ("T.ToTensor(), T.Pad(4, padding_mode='reflect')", "padding_mode other than 'constant'"),
    ],
)
def test_what_needs_an_hwc_image_is_refused_after_to_tensor(code: str, said: str) -> None:
    from augexplorer.port.reading import read_source
    from augexplorer.port.torchvision import port

    (found,) = read_source(f"import torchvision.transforms as T\nt = T.Compose([{code}])\n")
    (refusal,) = port(found.compose).refusals
    assert said in refusal.reason and "fix: put" in refusal.reason


def test_normalize_after_a_crop_of_the_tensor_is_its_own_node() -> None:
    """Normalize where the tensor was cropped or flipped first (it was folded into ToTensor's
    crop_mirror_normalize only where it came right after, and refused elsewhere)."""
    from augexplorer.port.reading import read_source
    from augexplorer.port.torchvision import port

    code = "T.ToTensor(), T.RandomHorizontalFlip(), T.Normalize([0.5] * 3, [0.25] * 3)"
    (found,) = read_source(f"import torchvision.transforms as T\nt = T.Compose([{code}])\n")
    result = port(found.compose)
    assert not result.refusals
    normalize = result.spec.node(result.spec.final_output().node)  # type: ignore[union-attr]
    assert normalize.op == "crop_mirror_normalize"
    assert (normalize.args["mean"], normalize.args["std"]) == ([0.5] * 3, [0.25] * 3)
