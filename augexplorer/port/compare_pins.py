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
    """`values`: (positional index or None, keyword) -> the fixed value; `label` says it."""

    label: str
    values: tuple[tuple[int | None, str, Any], ...]

    def apply(self, call: TransformCall) -> TransformCall:
        args, kwargs = list(call.args), dict(call.kwargs)
        for index, name, value in self.values:
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
}


def pin_of(call: TransformCall) -> Pin | None:
    return PINS.get((call.library, call.name))
