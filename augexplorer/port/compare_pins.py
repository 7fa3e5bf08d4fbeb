"""Fixed parameter values for random transforms, so that one transform run alone gives one
output on both sides and its pixels can be compared: a range collapsed to one value
(``RandomRotation(30)`` -> ``degrees=(15, 15)``), on the library's class and, through the port
of that call, on the DALI nodes with the same constant."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from .model import TransformCall


@dataclass(frozen=True)
class Pin:
    """`values`: (positional index or None, keyword) -> the fixed value; `label` says it.
    `if_given`: keywords pinned only where the call gives them, as something other than None
    (a translation left out is none, already fixed: pinning both of albumentations' ways of
    giving one would be refused)."""

    label: str
    values: tuple[tuple[int | None, str, Any], ...]
    if_given: frozenset[str] = frozenset()

    def apply(self, call: TransformCall) -> TransformCall:
        args, kwargs = list(call.args), dict(call.kwargs)
        for index, name, value in self.values:
            given = kwargs.get(name) is not None or (index is not None and index < len(args))
            if name in self.if_given and not given:
                continue
            if index is not None and index < len(args) and name not in kwargs:
                args[index] = value
            else:
                kwargs[name] = value
        return dataclasses.replace(call, args=tuple(args), kwargs=kwargs)


PINS: dict[tuple[str, str], Pin] = {
    ("torchvision", "RandomRotation"): Pin("angle 15", ((0, "degrees", (15.0, 15.0)),)),
    ("torchvision", "ColorJitter"): Pin(
        "brightness 1.2 alone",
        (
            (0, "brightness", (1.2, 1.2)),
            (1, "contrast", 0.0),
            (2, "saturation", 0.0),
            (3, "hue", 0.0),
        ),
    ),
    ("albumentations", "Rotate"): Pin("angle 15", ((0, "limit", (15.0, 15.0)),)),
    ("albumentations", "SafeRotate"): Pin("angle 15", ((0, "limit", (15.0, 15.0)),)),
    ("albumentations", "ColorJitter"): Pin(
        "brightness 1.2 alone",
        (
            (0, "brightness", (1.2, 1.2)),
            (1, "contrast", (1.0, 1.0)),
            (2, "saturation", (1.0, 1.0)),
            (3, "hue", (0.0, 0.0)),
        ),
    ),
    # the families below are graded exact for the same parameter values: pinned, their pixels
    # are measured against the library's (tests/test_port_compare_pins.py)
    ("torchvision", "GaussianBlur"): Pin("sigma 1.2", ((1, "sigma", (1.2, 1.2)),)),
    # approximate, pinned for its figure: a translation range cannot be pinned to a shift
    # (torchvision draws it symmetric about 0), so none is compared
    ("torchvision", "RandomAffine"): Pin(
        "angle 10, scale 1.1, shear 5, no translation",
        (
            (0, "degrees", (10.0, 10.0)),
            (1, "translate", None),
            (2, "scale", (1.1, 1.1)),
            (3, "shear", (5.0, 5.0)),
        ),
        frozenset({"scale", "shear"}),
    ),
    ("albumentations", "Affine"): Pin(
        "angle 10, scale 1.1, shear 5, shift 5% or 4 px",
        (
            (None, "rotate", (10.0, 10.0)),
            (None, "scale", (1.1, 1.1)),
            (None, "shear", (5.0, 5.0)),
            (None, "translate_percent", (0.05, 0.05)),
            (None, "translate_px", (4, 4)),
        ),
        frozenset({"shear", "translate_percent", "translate_px"}),
    ),
    ("albumentations", "ShiftScaleRotate"): Pin(
        "angle 10, scale 1.1, shift 5%",
        (
            (0, "shift_limit", (0.05, 0.05)),
            (1, "scale_limit", (0.1, 0.1)),
            (2, "rotate_limit", (10.0, 10.0)),
            (None, "shift_limit_x", (0.05, 0.05)),
            (None, "shift_limit_y", (0.05, 0.05)),
        ),
        frozenset({"shift_limit_x", "shift_limit_y"}),
    ),
    ("albumentations", "RandomScale"): Pin("scale 1.1", ((0, "scale_limit", (0.1, 0.1)),)),
    ("albumentations", "Blur"): Pin("size 5", ((0, "blur_limit", (5, 5)),)),
    ("albumentations", "GaussianBlur"): Pin(
        "size 5, sigma 1.2", ((0, "blur_limit", (5, 5)), (1, "sigma_limit", (1.2, 1.2)))
    ),
    ("albumentations", "Emboss"): Pin(
        "alpha 0.4, strength 0.5", ((0, "alpha", (0.4, 0.4)), (1, "strength", (0.5, 0.5)))
    ),
    ("albumentations", "Sharpen"): Pin(
        "alpha 0.3, lightness 0.8", ((0, "alpha", (0.3, 0.3)), (1, "lightness", (0.8, 0.8)))
    ),
    ("albumentations", "RandomBrightnessContrast"): Pin(
        "brightness 0.1, contrast 0.2",
        ((0, "brightness_limit", (0.1, 0.1)), (1, "contrast_limit", (0.2, 0.2))),
    ),
    ("albumentations", "RandomGamma"): Pin("gamma 120", ((0, "gamma_limit", (120, 120)),)),
    ("albumentations", "RGBShift"): Pin(
        "shifts 10, -10, 5",
        (
            (0, "r_shift_limit", (10, 10)),
            (1, "g_shift_limit", (-10, -10)),
            (2, "b_shift_limit", (5, 5)),
        ),
    ),
    ("albumentations", "MultiplicativeNoise"): Pin(
        "multiplier 1.1", ((0, "multiplier", (1.1, 1.1)),)
    ),
    # at angle 0 and size 3 the line's first point falls on a half (x = 0.5), which
    # albumentations rounds to even (0): rounded up, the kernel would lose a cell
    ("albumentations", "MotionBlur"): Pin(
        "size 3, angle 0, direction 0.5, centred",
        (
            (0, "blur_limit", (3, 3)),
            (1, "allow_shifted", False),
            (2, "angle_range", (0.0, 0.0)),
            (3, "direction_range", (0.5, 0.5)),
        ),
    ),
}


def pin_of(call: TransformCall) -> Pin | None:
    return PINS.get((call.library, call.name))
