"""The measured grade of each ported torchvision transform, and what differs.

Every figure here was measured against torchvision 0.29.1 (PIL images, the bundled samples)
by ``tests/test_port_torchvision*.py``, which check that it still holds: pixel differences in
grey levels of 0-255 (mean and max of the absolute difference), distributions by a two-sample
Kolmogorov-Smirnov test. Nothing here is taken from documentation.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...spec.graph import Fidelity
from ..build import Grade


@dataclass(frozen=True)
class Measured:
    """A transform's grade, the sentences that say what differs, and the bounds the parity
    tests hold it to (grey levels; None where no pixel figure applies)."""

    fidelity: Fidelity
    differences: tuple[str, ...]
    mean_abs: float | None = None
    max_abs: float | None = None


_RESAMPLING = (
    "Resampling differs from PIL's by a fraction of a grey level on average where the image "
    "shrinks (bilinear: mean 0.15-0.16, max 9 grey levels; bicubic: mean 0.15-0.17, max 13; "
    "nearest picks another source pixel for some rows and columns, by how much the image "
    "shrinks: on the 19 bundled photos mean 0.03 at 256 px, 0.36 at 100, 0.96 at 150, max "
    "218); output sizes are torchvision's."
)
ONE_FACTOR = (
    "Each factor alone within a grey level on average: brightness, contrast (centred on the "
    "grey mean as torchvision centres it) and saturation mean 0.3-0.5, max 1; hue through "
    "PIL's 8-bit HSV computed as PIL computes it, mean 0.005, max 5 on rare ties."
)
_LAYOUT = "Same values to float rounding (max difference below 0.001 grey levels)."
# Said of a call with antialias=False (or None), by where torchvision's image is a tensor.
NO_ANTIALIAS = {
    "pil": (
        "antialias=False has no effect on PIL images in torchvision (PIL's resize always "
        "antialiases), so DALI antialiases here too and the figures above hold."
    ),
    "tensor": (
        "antialias=False on a tensor (after ToImage, PILToTensor or ToTensor): torchvision's tensor kernel resamples "
        "without antialiasing, and DALI too (bilinear: within 1 grey level, mean up to 0.45; "
        "bicubic: mean 0.48, max 17)."
    ),
}
PAD_IF_NEEDED = (
    "pad_if_needed: an image smaller than the crop is padded on both sides by the shortfall "
    "and lands at a uniform whole-pixel offset over it, as torchvision places it (a 48x40 "
    "image in a 64 crop: every offset 0-24 rows and 0-16 columns, two-sample KS over 600 "
    "draws: p 0.99 rows, 0.98 columns)."
)

GRADES: dict[str, Measured] = {
    "Resize": Measured("approximate", (_RESAMPLING,), 0.16, 14),
    "CenterCrop": Measured(
        "exact",
        (
            "Corner rounded half to even as torchvision rounds it; padded with 0 where the "
            "crop is larger than the image.",
        ),
        0.0,
        0,
    ),
    "Pad": Measured(
        "exact",
        (
            "The same pixels; reflect, symmetric and edge padding as a whole-pixel warp_perspective "
            "with DALI's border of the same rule (reflect_101, reflect, replicate).",
        ),
        0.0,
        0,
    ),
    "RandomCrop": Measured(
        "distribution",
        (
            "Corner drawn uniformly over whole pixels of the padded image, as torchvision "
            "draws it (two-sample KS over 480 draws: p 0.89 rows, 0.70 columns); reflect, "
            "symmetric and edge padding give the same pixels for the same corner.",
        ),
    ),
    "RandomResizedCrop": Measured(
        "distribution",
        (
            "Window area and log aspect ratio drawn as torchvision draws them (KS over 480 "
            "draws: p 0.53 area, 0.75 aspect); after 10 failed tries DALI's fallback window is placed at random "
            "where torchvision centres it.",
            _RESAMPLING,
        ),
    ),
    "RandomHorizontalFlip": Measured(
        "exact", ("Same pixels when flipped; the coin is DALI's (same probability).",), 0.0, 0
    ),
    "RandomVerticalFlip": Measured(
        "exact", ("Same pixels when flipped; the coin is DALI's (same probability).",), 0.0, 0
    ),
    "RandomRotation": Measured(
        "approximate",
        (
            "Nearest-neighbour sampling picks another pixel on a few ties (30 degrees: mean "
            "0.002, max 155 grey levels; -20 degrees filled with 128: mean 0.016; "
            "expand=True: PIL's canvas size, computed as PIL computes it (at 30, 45, 60 and 90 "
            "degrees), mean 0.001; bilinear: mean 0.53, max 121); "
            "angle drawn "
            "uniformly as torchvision draws it.",
        ),
        0.02,
        255,
    ),
    "RandomAffine": Measured(
        "approximate",
        (
            "Shear, scale, rotation and translation composed as torchvision composes them: "
            "with nearest sampling a few pixels differ on ties (20 degrees, scale 0.8, shear "
            "(5, -7): mean 0.012, max 180 grey levels; scale 1.3: mean 0.5; shear alone and "
            "translation alone: exact; bilinear: mean 0.42, max 120).",
            "Translation drawn in whole pixels as torchvision draws it (KS over 480 draws).",
        ),
        0.6,
        255,
    ),
    "RandomPerspective": Measured(
        "approximate",
        (
            "The corners drawn as torchvision draws them (KS over 240 draws: p 0.08 to 0.81 for "
            "the eight coordinates); the same corners "
            "give torchvision's pixels up to bilinear sampling at the edges: mean 0.42, max 125 "
            "grey levels.",
        ),
        0.6,
        160,
    ),
    "ColorJitter": Measured(
        "approximate",
        (
            ONE_FACTOR,
            "The steps run in a fixed order (brightness, contrast, saturation, hue) where "
            "torchvision shuffles it per image: with all four set, mean 2.4, max 55 grey "
            "levels; more with larger factors (brightness 1.3, contrast 0.6, saturation 1.4, "
            "hue 0.08, inside ColorJitter(0.4, 0.4, 0.4, 0.1)'s ranges: mean 6.0 over "
            "torchvision's 24 orders on 8 photos, one image's mean 25 in its worst order, "
            "0.9-1.6 in DALI's own order).",
        ),
        2.6,
        60,
    ),
    "RandomPhotometricDistort": Measured(
        "approximate",
        (
            "torchvision's own order (brightness; contrast before or after saturation and hue, "
            "a coin per image; the channel order last), each step applied with p and the six "
            "channel orders drawn uniformly. With every step applied and torchvision given the "
            "port's draws, the steps' roundings add up: mean 1.2 (at most 1.6 on one image), "
            "max 9 grey levels (brightness 1.2, contrast 0.7, saturation 1.3, hue 0.05, and "
            "brightness 0.9, contrast 1.4, saturation 0.6, hue -0.04, on 12 photos each).",
        ),
        1.7,
        10,
    ),
    "Grayscale": Measured("exact", ("Within 1 grey level (rounding of the luma sum).",), 0.01, 1),
    "RandomGrayscale": Measured(
        "exact", ("Within 1 grey level (rounding of the luma sum).",), 0.01, 1
    ),
    "GaussianBlur": Measured(
        "exact", ("Within 1 grey level (rounding); one sigma per image for both axes.",), 0.01, 1
    ),
    "RandomInvert": Measured("exact", ("Same pixels (255 minus each value).",), 0.0, 0),
    "RandomPosterize": Measured("exact", ("Same pixels (the low bits cleared).",), 0.0, 0),
    "RandomSolarize": Measured(
        "exact", ("Same pixels (values at or above the threshold inverted).",), 0.0, 0
    ),
    "RandomAutocontrast": Measured(
        "exact", ("Within 1 grey level (rounding of the stretch; mean 0.1).",), 0.15, 1
    ),
    "RandomAdjustSharpness": Measured(
        "exact",
        (
            "PIL's 3x3 smoothing of the inside, the one-pixel border kept, the blend "
            "truncated to 8 bits: the same pixels on PIL images (max 0 grey levels at factors "
            "0.3, 2 and 6); on uint8 tensors (PILToTensor, v2's ToImage) torchvision blends by "
            "another formula, within 1 grey level (mean up to 0.19 after PILToTensor); the coin "
            "is DALI's (same probability).",
        ),
        0.2,
        1,
    ),
    "RandomEqualize": Measured(
        "approximate",
        (
            "DALI's equalize builds its lookup table otherwise than PIL's: mean 6.7, max 30 "
            "grey levels.",
        ),
        7.5,
        40,
    ),
    "RandomErasing": Measured(
        "distribution",
        (
            "Erased area and aspect ratio drawn as torchvision draws them (KS over 480 draws: "
            "p 0.31 area, 0.64 aspect); after 10 failed tries torchvision leaves the image as it is where "
            "DALI's window generator falls back to a centred window.",
        ),
    ),
    "ToTensor": Measured("exact", (_LAYOUT,), 0.001, 0.001),
    "PILToTensor": Measured("exact", ("The same uint8 pixels, CHW.",)),
    "ToImage": Measured("exact", ("The same uint8 pixels, CHW.",)),
    "Identity": Measured("exact", ("No node: Identity returns its input as it is.",)),
    "Lambda": Measured(
        "exact",
        (
            "Lambda(lambda img: img.convert('RGB')), with no node: the graph decodes every "
            "file to RGB (grey and RGBA ones too); after Grayscale(1), its grey repeated in "
            "three channels, as PIL does. Arithmetic of its parameter and numbers (+ - * / **, "
            "add, sub, mul, div, pow, clamp) on the float tensor ToTensor makes, such as "
            "lambda t: (t * 2) - 1: one expression node, the same values to float rounding "
            "(max difference below 0.001 grey levels). Any other Lambda is refused, the "
            "nearest operator python_function.",
        ),
    ),
    "ToPureTensor": Measured(
        "exact",
        (
            "No node: ToPureTensor makes the tv_tensors.Image a plain torch.Tensor of the same "
            "values (the exported loader hands PyTorch plain tensors).",
        ),
    ),
    "ToPILImage": Measured(
        "exact",
        (
            "No node: on the HWC uint8 RGB array the graph gives, ToPILImage makes a PIL image of "
            "the same pixels (v1's fails on a PIL image: it stands where a dataset gives arrays); "
            "after a conversion to a tensor it is refused.",
        ),
    ),
    "ToDtype": Measured("exact", (_LAYOUT,)),
    "ConvertImageDtype": Measured("exact", (_LAYOUT,)),
    "Normalize": Measured("exact", (_LAYOUT,), 0.001, 0.001),
    "RandomApply": Measured("distribution", ("One coin per image with torchvision's p.",)),
    "RandomChoice": Measured("distribution", ("One pick per image with torchvision's weights.",)),
    "RandomOrder": Measured(
        "distribution",
        (
            "Up to 3 transforms: one of the n! orders drawn uniformly per image, as torchvision "
            "shuffles them; each transform ported once per order, the image going through its "
            "own order's copies alone: the same pixels as torchvision's for the same order "
            "(CenterCrop, Pad and RandomInvert in each of their 6 orders, 3 photos: max 0 grey levels); "
            "the orders' rates uniform (each of the 6 within its 99.9% binomial interval over "
            "1,200 draws). More than 3 run in the order written (approximate).",
        ),
    ),
    "AutoAugment": Measured(
        "approximate",
        (
            "augexplorer's torchvision_auto_augment node: torchvision's own 25 sub-policies of "
            "the chosen policy on its 10 magnitude bins (DALI's auto_augment image_net policy "
            "is another list, TensorFlow's: 2 of torchvision's 25 hold the same operations "
            "there), drawn as torchvision draws them (a sub-policy per image, a coin per stage, a sign) by "
            "DALI's generator, with torchvision's nearest sampling and fill. Each operation at "
            "every bin the three policies use (the AutoAugment table at the end): posterize, "
            "solarize, invert and the translations (whole pixels, as torchvision) exact; shears "
            "and rotations off only where a source pixel falls on a sampling tie (mean at most "
            "1.44); colour, contrast and brightness within 1 grey level; auto-contrast mean 0.5; "
            "sharpness mean up to 0.47 (max 28 on the 1 px border); equalize mean 1.75.",
        ),
    ),
    "RandAugment": Measured(
        "approximate",
        (
            "DALI's rand_augment with the same n, m and bins, torchvision's sampling and fill; "
            "operation by operation at m=9 (the table at the end): shears exact (DALI's sign "
            "the other way, both drawn at random), posterize exact, brightness, colour, "
            "contrast and auto-contrast within 1 grey level, rotation off only on sampling "
            "ties (mean below 0.005), sharpness max 8, solarize max 103 at the threshold, "
            "equalize mean 1.75; translation up to 150/331 of the image's size as in "
            "torchvision (the policy is given the images' shape), but not truncated to whole "
            "pixels as torchvision truncates it (mean 6-7.5 grey levels).",
        ),
    ),
    "TrivialAugmentWide": Measured(
        "approximate",
        (
            "DALI's trivial_augment_wide with the same bins, torchvision's sampling and fill; "
            "operation by operation at bin 9 (the table at the end): shears exact (DALI's sign "
            "the other way, both drawn at random), posterize exact, colour, contrast and "
            "auto-contrast within 2 grey levels, brightness mean 1.28, rotation off only on "
            "sampling ties, sharpness max 10, solarize max 103 at the threshold, equalize mean "
            "1.75; translation by the same 32 px range but not truncated to whole pixels as "
            "torchvision truncates it (mean 8 grey levels). Its draws (the operation, the sign, "
            "the rotation's bin) follow torchvision's over 1,000 images (chi-square), with the "
            "node's draws seeded apart: DALI's one seed for all three tied them (every "
            "rotation one way, 36-49 degrees).",
        ),
    ),
}
# transforms.v2's random resizes and zoom out: measured by
# tests/test_port_torchvision_v2_sizes.py, the port's draws given to torchvision's transform in
# place of torch's generator (12 photos), and torchvision's own draws against the port's (a
# 30 x 45 and a 52 x 36 image, 360 draws a side), which holds them to these figures
GRADES.update(
    {
        "RandomShortestSize": Measured(
            "approximate",
            (
                "The shorter side picked uniformly from min_size and the ratio "
                "min(size / short, max_size / long) computed in float64, each side truncated, "
                "as torchvision computes them: its sizes to the pixel for the same pick (12 "
                "photos), at its rates (KS over 360 draws: p 0.87 heights, 0.99 widths).",
                "Resampling as Resize's for the same size: bilinear mean 0.14, max 11 grey "
                "levels; bicubic mean 0.14, max 8.",
            ),
            0.15,
            11,
        ),
        "RandomResize": Measured(
            "approximate",
            (
                "The shorter side drawn uniformly from min_size to max_size - 1 as "
                "torch.randint draws it, the longer int(size * long / short) as Resize(int) "
                "sizes it: torchvision's sizes for the same draw (12 photos), at its rates (KS "
                "over 360 draws: p 0.40).",
                "Resampling as Resize's for the same size: bilinear mean 0.13, max 10 grey levels.",
            ),
            0.14,
            10,
        ),
        "ScaleJitter": Measured(
            "approximate",
            (
                "The scale drawn uniformly in scale_range and each side "
                "int(side * min(target[1] / h, target[0] / w) * scale) computed in float32, as "
                "torchvision computes it from torch.rand: its sizes to the pixel for the same "
                "draw (12 photos), drawn alike (KS over 360 draws: p 0.08 heights, 0.23 "
                "widths).",
                "Resampling as Resize's for the same size: bilinear mean 0.13, max 11 grey levels.",
            ),
            0.14,
            11,
        ),
        "RandomZoomOut": Measured(
            "distribution",
            (
                "The canvas int(side * r) and the image's corner int((canvas - side) * u), "
                "drawn uniformly and computed in float32 as torchvision draws them (KS over 360 "
                "draws: p 0.70 canvas heights, 0.82 widths, 0.91 top, 0.97 left); the same "
                "draws give the same pixels (12 photos, fill per channel: max 0 grey levels); "
                "the coin is DALI's (same probability).",
            ),
            0.0,
            0,
        ),
    }
)
GRADES["Scale"] = GRADES["Resize"]
GRADES["RandomSizedCrop"] = GRADES["RandomResizedCrop"]


# RandomErasing(value='random') after the float conversion, measured in
# tests/test_port_torchvision_as_written.py
ERASING_NOISE = (
    "value='random': the window filled with standard normal noise, a draw per value, as "
    "torchvision fills it, by DALI's generator (KS against N(0, 1) over the erased values: "
    "p above 0.05); the pixels outside the window are the image's."
)


def grade(name: str, **facts: Any) -> Grade:
    """The grade of transform `name` as measured, with sentences for the facts of this call
    that the measurement did not cover (another interpolation mode, ...) or that were
    measured apart (antialias=False, pad_if_needed)."""
    measured = GRADES.get(name)
    if measured is None:
        return Grade("approximate", ("Not measured against torchvision yet.",))
    extra: list[str] = []
    mode = facts.get("mode")
    if mode is not None and mode not in measured_modes(name):
        extra.append(f"Interpolation {mode} was not measured; DALI's kernel may differ.")
    fidelity = measured.fidelity
    if extra and fidelity == "exact":
        fidelity = "approximate"
    # measured facts of this call: they leave the grade as it is
    if facts.get("no_antialias"):
        extra.append(NO_ANTIALIAS[facts["no_antialias"]])
    if facts.get("pad_if_needed"):
        extra.append(PAD_IF_NEEDED)
    if facts.get("noise"):
        extra.append(ERASING_NOISE)
    return Grade(fidelity, (*measured.differences, *extra))


def measured_modes(name: str) -> tuple[str, ...]:
    """The interpolation modes a transform's figures were measured with."""
    return MODES.get(name, ("BILINEAR",))


MODES: dict[str, tuple[str, ...]] = {
    "Resize": ("BILINEAR", "BICUBIC", "NEAREST"),
    "Scale": ("BILINEAR", "BICUBIC", "NEAREST"),
    # the window resized as Resize resizes it: its resampling figures are Resize's
    "RandomResizedCrop": ("BILINEAR", "BICUBIC", "NEAREST"),
    "RandomSizedCrop": ("BILINEAR", "BICUBIC", "NEAREST"),
    "RandomShortestSize": ("BILINEAR", "BICUBIC"),
    "RandomRotation": ("NEAREST", "BILINEAR"),
    "RandomAffine": ("NEAREST", "BILINEAR"),
    "AutoAugment": ("NEAREST",),
    "RandAugment": ("NEAREST",),
    "TrivialAugmentWide": ("NEAREST",),
}
