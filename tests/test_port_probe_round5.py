"""Probe findings, round 5: PyTorch's detection tutorial builds its pipeline in
``get_transform(train)`` by appending under ``if train:`` and calls it twice
(``get_transform(train=True)``, ``get_transform(train=False)``): the file was refused, as a
list changed under a test known only when the file runs, though its own calls settle it."""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import pytest
from test_port_compare import _images

from augexplorer.port.compare import compare_file
from augexplorer.port.compare_pins import pin_of
from augexplorer.port.door import port_call, port_file
from augexplorer.port.model import TransformCall
from augexplorer.port.reading import SeveralPipelines, choose, read_source

# torchvision's "Object Detection Finetuning" tutorial, as written
DETECTION_TUTORIAL = """
import torch
from torchvision.transforms import v2 as T


class PennFudanDataset(torch.utils.data.Dataset):
    def __init__(self, root, transforms):
        self.root = root
        self.transforms = transforms


def get_transform(train):
    transforms = []
    if train:
        transforms.append(T.RandomHorizontalFlip(0.5))
    transforms.append(T.ToDtype(torch.float, scale=True))
    transforms.append(T.ToPureTensor())
    return T.Compose(transforms)


dataset = PennFudanDataset("data/PennFudanPed", get_transform(train=True))
dataset_test = PennFudanDataset("data/PennFudanPed", get_transform(train=False))
"""


def _write(folder: Path, text: str) -> Path:
    path = folder / "train.py"
    path.write_text(textwrap.dedent(text))
    return path


def _names(found: list) -> list[str]:  # type: ignore[type-arg]
    return [call.name for call in found]


def test_each_call_of_the_tutorials_function_names_the_pipeline_it_builds() -> None:
    found = read_source(DETECTION_TUTORIAL)
    assert [p.name for p in found] == ["get_transform(train=True)", "get_transform(train=False)"]
    assert not any(p.unreadable for p in found)
    train = choose(found, "get_transform(train=True)", where="f")
    val = choose(found, "get_transform(train = False)", where="f")
    assert _names(train.compose.children) == ["RandomHorizontalFlip", "ToDtype", "ToPureTensor"]
    assert _names(val.compose.children) == ["ToDtype", "ToPureTensor"]


def test_the_file_asks_which_call_rather_than_refusing_it(tmp_path: Path) -> None:
    try:
        port_file(_write(tmp_path, DETECTION_TUTORIAL))
    except SeveralPipelines as several:
        assert several.names == ["get_transform(train=True)", "get_transform(train=False)"]
    else:
        raise AssertionError("two pipelines, none chosen: the port must ask which")
    result = port_file(_write(tmp_path, DETECTION_TUTORIAL), pipeline="get_transform(train=True)")
    assert not result.refusals
    assert result.steps[0].call.name == "RandomHorizontalFlip"


def test_a_name_assigned_one_of_the_calls_is_that_pipeline() -> None:
    text = DETECTION_TUTORIAL + "train_tf = get_transform(train=True)\n"
    found = {p.name: p for p in read_source(text)}
    assert found["train_tf"].alias_of == "get_transform(train=True)"
    assert found["train_tf"].compose == found["get_transform(train=True)"].compose


def test_a_test_no_call_settles_is_still_refused_with_the_param_fix() -> None:
    lone = DETECTION_TUTORIAL.split("\n\ndataset =", 1)[0]
    (found,) = read_source(lone)
    assert "if train:" in found.unreadable and "--param train=VALUE" in found.unreadable


def test_compare_builds_each_calls_pipeline_as_the_file_calls_it(
    reference_python: str, tmp_path: Path
) -> None:
    path = _write(tmp_path, DETECTION_TUTORIAL)
    for pipeline, first in (
        ("get_transform(train=True)", "RandomHorizontalFlip"),
        ("get_transform(train=False)", "ToDtype"),
    ):
        comparison = compare_file(
            path, _images(2), run_file=True, python=reference_python, pipeline=pipeline, draws=0
        )
        assert comparison.original_error == ""
        assert comparison.steps[0].transform.startswith(first)
        step = comparison.step("ToDtype")
        assert step.pixels is not None and step.pixels.max_abs < 1e-5


# ---- albumentations' pins inside the user's own ranges -------------------------------------
# Compare pinned Blur at size 5, Affine at angle 10 and shear 5 (said, even where the call
# gives no shear), RandomBrightnessContrast at 0.1/0.2 and RGBShift at 10/-10/5 whatever the
# call's ranges: "identical" was measured at values the user's pipeline never draws.


def _pinned(text: str) -> tuple[TransformCall, str]:
    (found,) = read_source("import albumentations as A\nt = A.Compose([" + text + "])\n")
    (call,) = found.compose.children
    pin = pin_of(call)
    assert pin is not None
    return pin.apply(call), pin.describe(call)


@pytest.mark.parametrize(
    ("text", "size"),
    [
        ("A.Blur(blur_limit=3)", 3),  # albumentations reads 3 as (3, 3)
        ("A.Blur(blur_limit=(3, 3))", 3),
        ("A.Blur(blur_limit=(3, 4))", 3),  # odd sizes only
        ("A.Blur()", 5),  # (3, 7)
        ("A.Blur(blur_limit=(7, 9))", 7),
    ],
)
def test_a_blur_is_compared_at_a_size_its_range_draws(text: str, size: int) -> None:
    pinned, said = _pinned(text)
    assert pinned.argument(0, "blur_limit") == (size, size)
    assert said == f"size {size}"


def test_an_affine_is_pinned_only_in_what_the_call_gives_and_inside_it() -> None:
    pinned, said = _pinned("A.Affine(scale=(0.9, 1.05), translate_percent=(-0.02, 0.02))")
    assert pinned.kwargs["scale"] == (1.05, 1.05)
    assert pinned.kwargs["translate_percent"] == (0.02, 0.02)
    assert "rotate" not in pinned.kwargs and "shear" not in pinned.kwargs
    assert said == "scale 1.05, shift 0.02 of the side"
    pinned, said = _pinned("A.Affine(rotate=(-5, 5), shear=(-2, 2), p=0.5)")
    assert pinned.kwargs["rotate"] == (5.0, 5.0) and pinned.kwargs["shear"] == (2.0, 2.0)
    assert said == "angle 5, shear 2"


def test_brightness_contrast_and_rgb_shift_are_pinned_inside_their_limits() -> None:
    pinned, said = _pinned("A.RandomBrightnessContrast(brightness_limit=0.05, contrast_limit=0)")
    assert pinned.argument(0, "brightness_limit") == (0.05, 0.05)
    assert pinned.argument(1, "contrast_limit") == (0.0, 0.0)
    assert said == "brightness 0.05, contrast 0"
    pinned, said = _pinned("A.RGBShift(r_shift_limit=5, g_shift_limit=5, b_shift_limit=(0, 3))")
    assert [pinned.argument(i, n) for i, n in enumerate(("r_shift_limit", "g_shift_limit"))] == [
        (5, 5),
        (-5, -5),
    ]
    assert pinned.argument(2, "b_shift_limit") == (3, 3)


def test_compare_measures_the_pins_inside_the_ranges_against_albumentations(
    reference_python: str, tmp_path: Path
) -> None:
    text = """
    import albumentations as A

    t = A.Compose([
        A.Blur(blur_limit=3, p=1),
        A.Affine(rotate=(-5, 5), scale=(0.95, 1.05), p=1),
        A.ShiftScaleRotate(shift_limit=0.02, scale_limit=0.05, rotate_limit=3, p=1),
    ])
    """
    comparison = compare_file(
        _write(tmp_path, text), _images(2), run_file=True, python=reference_python, draws=0
    )
    assert comparison.original_error == ""
    blur = comparison.step("Blur")
    assert "pixels with size 3 on both sides" in blur.note
    assert blur.pixels is not None and blur.pixels.max_abs == 0
    affine = comparison.step("Affine")
    assert "pixels with angle 5, scale 1.05 on both sides" in affine.note
    assert affine.pixels is not None and affine.pixels.max_abs <= 1
    shift = comparison.step("ShiftScaleRotate")
    assert "angle 3, scale 1 + 0.05, shift 0.02" in shift.note
    assert shift.pixels is not None and shift.pixels.max_abs <= 1


# ---- RandomBrightnessContrast(brightness_by_max=False) ---------------------------------------
# Kaggle pipelines write it; it was refused, though the shift (the draw times the image's mean)
# is a DALI reduction and an expression away.

BY_MEAN = (
    "A.RandomBrightnessContrast(brightness_limit=(0.2, 0.2), contrast_limit=(0.1, 0.1), "
    "brightness_by_max=False, p=1)"
)


def test_brightness_by_the_images_mean_is_ported_exact() -> None:
    (found,) = read_source(f"import albumentations as A\nt = A.Compose([{BY_MEAN}])\n")
    result = port_call(found.compose)
    assert not result.refusals
    (step,) = result.steps
    assert step.origin.fidelity == "exact"
    assert "reductions.mean" in {node.op for node in step.nodes}


def test_brightness_by_mean_after_to_float_is_refused_with_the_fix() -> None:
    text = f"import albumentations as A\nt = A.Compose([A.ToFloat(), {BY_MEAN}])\n"
    (found,) = read_source(text)
    (refusal,) = port_call(found.compose).refusals
    assert refusal.call.name == "RandomBrightnessContrast"
    assert "put it before Normalize or ToFloat" in refusal.reason


def test_the_exported_loader_shifts_by_the_mean_as_albumentations(tmp_path: Path) -> None:
    import albumentations as A
    import cv2
    from exported_runner import run_exported
    from port_parity import file_list

    from augexplorer.export import export
    from augexplorer.port.albumentations import port
    from augexplorer.port.build import DataSource

    images = _images(3)
    paths = []
    for index, image in enumerate(images):
        paths.append(tmp_path / f"photo{index}.png")
        cv2.imwrite(str(paths[-1]), cv2.cvtColor(image, cv2.COLOR_RGB2BGR))
    listed = file_list(paths, tmp_path)
    (found,) = read_source(f"import albumentations as A\nt = A.Compose([{BY_MEAN}])\n")
    data = DataSource("file_list", str(listed), shuffle=False)
    result = port(found.compose, data=data, batch_size=len(images))
    module = export(result.spec, tmp_path / "by_mean_loader.py")
    job = {
        "name": "by_mean",
        "module": str(module),
        "out": str(tmp_path / "by_mean.npz"),
        "batch_size": len(images),
        "device": "cpu",
        "data": str(listed),
    }
    outputs = run_exported([job], tmp_path)["by_mean"]
    theirs = A.Compose([eval(BY_MEAN, {"A": A})])  # the test's own literal
    for index, image in enumerate(images):
        expected = theirs(image=image)["image"].astype(int)
        ours = outputs[f"0_{index}"].astype(int)
        assert ours.shape == expected.shape
        # truncated to 8 bits as albumentations truncates its table of values
        assert np.abs(ours - expected).max() == 0
        # the mean's shift is there: by the full range it would be 0.2 * 255 = 51
        assert abs((ours - image.astype(int) * 1.1).mean() - 0.2 * image.mean()) < 1.0


# ---- torchvision's detection references: a fill per type in a defaultdict --------------------
# DetectionPresetTrain's SSD pipeline writes RandomZoomOut(fill=defaultdict(lambda: mean,
# {tv_tensors.Mask: 0})): the port refused it as known only when the file runs. torchvision
# 0.29 looks the image's type up with `in`, which never calls the factory: the image is
# filled with 0, not the mean, and the port now says so.

ZOOM_OUT = """
from collections import defaultdict

import torch
from torchvision import tv_tensors
from torchvision.transforms import v2 as T

mean = (123.0, 117.0, 104.0)
fill = defaultdict(lambda: mean, {tv_tensors.Mask: 0})
t = T.Compose([T.ToImage(), T.RandomZoomOut(fill=fill, side_range=(2.0, 2.0), p=1.0)])
"""


def test_a_defaultdict_fill_is_read_and_fills_as_torchvision_fills_it() -> None:
    (found,) = read_source(ZOOM_OUT)
    result = port_call(found.compose)
    # only the masks its fill names are left out, as a fill per type for masks always is
    assert [refusal.part for refusal in result.refusals] == ["masks"]
    step = next(s for s in result.steps if s.call.name == "RandomZoomOut")
    (zoom,) = [node for node in step.nodes if node.op == "slice"]
    assert zoom.args["fill_values"] == [0.0]
    said = " ".join(step.origin.differences)
    assert "defaultdict(lambda: mean, {tv_tensors.Mask: 0})" in said
    assert "filled with 0, as torchvision fills it" in said
    assert "{tv_tensors.Image: VALUE, 'others': 0}" in said


def test_a_defaultdict_with_the_images_entry_fills_with_it_unsaid() -> None:
    text = ZOOM_OUT.replace("{tv_tensors.Mask: 0}", "{tv_tensors.Image: (1, 2, 3)}")
    (found,) = read_source(text)
    step = next(s for s in port_call(found.compose).steps if s.call.name == "RandomZoomOut")
    (zoom,) = [node for node in step.nodes if node.op == "slice"]
    assert zoom.args["fill_values"] == [1.0, 2.0, 3.0]
    assert not any("defaultdict" in d for d in step.origin.differences)


def test_torchvision_fills_the_image_with_0_under_such_a_defaultdict(
    reference_python: str, tmp_path: Path
) -> None:
    """What the port follows, checked on the real torchvision: the corner of the doubled
    canvas is fill."""
    import subprocess

    script = ZOOM_OUT + (
        "image = tv_tensors.Image(torch.full((3, 8, 8), 200, dtype=torch.uint8))\n"
        "torch.manual_seed(0)\n"
        "out = t(image)\n"
        "print(out.shape[1], out[:, 0, 0].tolist(), out[:, -1, -1].tolist())\n"
    )
    path = tmp_path / "zoom.py"
    path.write_text(script)
    printed = subprocess.run(
        [reference_python, str(path)], capture_output=True, text=True, check=True, timeout=120
    ).stdout.split(maxsplit=1)
    assert printed[0] == "16"
    assert "[0, 0, 0]" in printed[1] and "123" not in printed[1]


# ---- albumentations' Normalize by each image's own statistics ------------------------------
# normalization='image' | 'image_per_channel' | 'min_max' | 'min_max_per_channel' was refused
# ("per-image statistics: DALI's normalize"), though DALI's reductions give the statistics.

PER_IMAGE = ("image", "image_per_channel", "min_max", "min_max_per_channel")


@pytest.mark.parametrize("normalization", PER_IMAGE)
def test_normalize_by_each_images_statistics_is_ported_exact(normalization: str) -> None:
    text = f"import albumentations as A\nt = A.Compose([A.Normalize(normalization={normalization!r})])\n"
    (found,) = read_source(text)
    result = port_call(found.compose)
    assert not result.refusals
    (step,) = result.steps
    assert step.origin.fidelity == "exact"
    assert any(node.op.startswith("reductions.") for node in step.nodes)


def test_an_unknown_normalization_is_refused_naming_those_albumentations_takes() -> None:
    text = "import albumentations as A\nt = A.Compose([A.Normalize(normalization='per_image')])\n"
    (found,) = read_source(text)
    (refusal,) = port_call(found.compose).refusals
    assert "'standard', 'image', 'image_per_channel', 'min_max'" in refusal.reason


def test_compare_finds_each_normalization_as_albumentations_computes_it(
    reference_python: str, tmp_path: Path
) -> None:
    lines = [f"{name} = A.Compose([A.Normalize(normalization={name!r})])" for name in PER_IMAGE]
    path = _write(tmp_path, "import albumentations as A\n" + "\n".join(lines) + "\n")
    for name in PER_IMAGE:
        comparison = compare_file(
            path, _images(3), run_file=True, python=reference_python, pipeline=name, draws=0
        )
        assert comparison.original_error == ""
        step = comparison.step("Normalize")
        assert step.pixels is not None, step.describe()
        assert step.pixels.max_abs < 1e-5, (name, step.describe())
        for ours, theirs in zip(comparison.ported, comparison.original, strict=True):
            assert np.abs(ours - theirs).max() < 1e-5


def test_the_exported_loader_normalizes_each_image_per_channel(tmp_path: Path) -> None:
    import albumentations as A
    import cv2
    from albumentations.pytorch import ToTensorV2
    from exported_runner import run_exported
    from port_parity import file_list

    from augexplorer.export import export
    from augexplorer.port.albumentations import port
    from augexplorer.port.build import DataSource

    images = _images(2)
    paths = []
    for index, image in enumerate(images):
        paths.append(tmp_path / f"photo{index}.png")
        cv2.imwrite(str(paths[-1]), cv2.cvtColor(image, cv2.COLOR_RGB2BGR))
    listed = file_list(paths, tmp_path)
    text = (
        "import albumentations as A\nfrom albumentations.pytorch import ToTensorV2\n"
        "t = A.Compose([A.Normalize(normalization='image_per_channel'), ToTensorV2()])\n"
    )
    (found,) = read_source(text)
    data = DataSource("file_list", str(listed), shuffle=False)
    result = port(found.compose, data=data, batch_size=len(images))
    module = export(result.spec, tmp_path / "per_channel_loader.py")
    job = {
        "name": "per_channel",
        "module": str(module),
        "out": str(tmp_path / "per_channel.npz"),
        "batch_size": len(images),
        "device": "cpu",
        "data": str(listed),
    }
    outputs = run_exported([job], tmp_path)["per_channel"]
    theirs = A.Compose([A.Normalize(normalization="image_per_channel"), ToTensorV2()])
    for index, image in enumerate(images):
        expected = theirs(image=image)["image"].numpy()
        ours = outputs[f"0_{index}"]
        assert ours.shape == expected.shape  # CHW, as ToTensorV2 gives it
        assert np.abs(ours - expected).max() < 1e-4


# ---- Hugging Face's image classification tutorial -------------------------------------------
# Normalize(mean=image_processor.image_mean, ...) and RandomResizedCrop(size), size read from
# image_processor.size: refused as known only when the file runs, with nothing saying that the
# values are the checkpoint's saved settings, nor how to see them.

HUGGING_FACE = """
from transformers import AutoImageProcessor
from torchvision.transforms import Compose, Normalize, RandomResizedCrop, ToTensor

checkpoint = "google/vit-base-patch16-224-in21k"
image_processor = AutoImageProcessor.from_pretrained(checkpoint)

normalize = Normalize(mean=image_processor.image_mean, std=image_processor.image_std)
size = (
    image_processor.size["shortest_edge"]
    if "shortest_edge" in image_processor.size
    else (image_processor.size["height"], image_processor.size["width"])
)
_transforms = Compose([RandomResizedCrop(size), ToTensor(), normalize])
"""


def test_a_checkpoints_settings_are_said_to_be_read_when_the_file_runs() -> None:
    (found,) = read_source(HUGGING_FACE)
    reasons = {r.call.name: r.reason for r in port_call(found.compose).refusals}
    normalize = reasons["Normalize"]
    assert "read from image_processor, AutoImageProcessor.from_pretrained(...) (line 6)" in (
        normalize
    )
    assert "print(image_processor.image_mean) there to see the value" in normalize
    assert "--param image_processor.image_mean=VALUE" in normalize
    crop = reasons["RandomResizedCrop"]
    assert "size is read from image_processor" in crop and "--param size=VALUE" in crop


def test_the_checkpoints_values_given_as_params_port_the_pipeline() -> None:
    params = {
        "size": 224,
        "image_processor.image_mean": [0.5, 0.5, 0.5],
        "image_processor.image_std": [0.5, 0.5, 0.5],
    }
    (found,) = read_source(HUGGING_FACE, params=params)
    result = port_call(found.compose)
    assert not result.refusals
    assert [s.call.name for s in result.steps] == ["RandomResizedCrop", "ToTensor", "Normalize"]


def test_a_value_of_anything_else_has_no_checkpoint_said() -> None:
    text = "import torchvision.transforms as T\nt = T.Compose([T.Resize(cfg.size)])\n"
    (found,) = read_source(text)
    (refusal,) = port_call(found.compose).refusals
    assert "checkpoint" not in refusal.reason and "--param cfg.size=VALUE" in refusal.reason


@pytest.mark.parametrize("fill", ["random_uniform", "inpaint_telea"])
def test_a_drawn_fill_is_refused_saying_what_it_does_and_the_fix(fill: str) -> None:
    """CoarseDropout(fill='random_uniform') was refused as "not a number or one per channel",
    with no fix: albumentations 2.x fills each hole with drawn values there. (fill='random' is
    ported: test_port_probe_round7_albumentations.py.)"""
    text = (
        "import albumentations as A\n"
        f"t = A.Compose([A.CoarseDropout(num_holes_range=(1, 4), fill={fill!r}, p=1)])\n"
    )
    (found,) = read_source(text)
    (refusal,) = port_call(found.compose).refusals
    assert refusal.call.name == "CoarseDropout"
    assert f"fill={fill!r} fills each region with values albumentations draws" in refusal.reason
    assert "(fix: fill=0, or a value per channel)" in refusal.reason
