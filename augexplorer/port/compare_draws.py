"""Which drawn quantities of a random transform are compared, and where the DALI side's figure
is found: a random argument of one of the transform's nodes (``angle``), the output of one of
its drawing nodes (``node.hue_draw``; ``node.crop_start_int``, RandomCrop's window start, a value
a side), or the crop windows a random crop drew (``window.area``, ``window.aspect``); the last
two are read sample by sample (:mod:`.compare_samples`). The
original side's values come from the library's own ``get_params`` or replay
(:mod:`augexplorer.bench.original_outputs`, which draws the same quantity names)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Quantity:
    """`name` as the original side draws it; `dali` the argument (or ``node.*``, ``window.*``)
    holding the DALI side's draws; `scale` turns the original's unit into DALI's (hue: a fraction of a turn
    there, degrees here); `element` is the value of a drawing node's output read (a corner's
    top is 0, its left 1)."""

    name: str
    dali: str
    scale: float = 1.0
    element: int = 0


CROP = (Quantity("area", "window.area"), Quantity("aspect", "window.aspect"))
ANGLE = (Quantity("angle", "angle"),)
COLOUR = (
    Quantity("brightness", "brightness"),
    Quantity("contrast", "contrast"),
    Quantity("saturation", "saturation"),
    Quantity("hue", "hue", 360.0),
)
# torchvision's ColorJitter ported step by step: its hue factor is a node of its own, drawn in
# torchvision's units (a fraction of a turn), read sample by sample
TORCHVISION_COLOUR = (*COLOUR[:3], Quantity("hue", "node.hue_draw"))
# RandomCrop's window start in the image's own pixels (negative inside the padding): the port's
# corner node, (top, left), against torchvision's draw moved by the padding before the image
CROP_START = (
    Quantity("top", "node.crop_start_int"),
    Quantity("left", "node.crop_start_int", element=1),
)

QUANTITIES: dict[tuple[str, str], tuple[Quantity, ...]] = {
    ("torchvision", "RandomResizedCrop"): CROP,
    ("torchvision", "RandomSizedCrop"): CROP,
    ("torchvision", "RandomRotation"): ANGLE,
    ("torchvision", "ColorJitter"): TORCHVISION_COLOUR,
    ("torchvision", "RandomAffine"): ANGLE,
    ("torchvision", "RandomCrop"): CROP_START,
    ("albumentations", "RandomResizedCrop"): CROP,
    ("albumentations", "RandomSizedCrop"): CROP,
    ("albumentations", "Rotate"): ANGLE,
    ("albumentations", "SafeRotate"): ANGLE,
    ("albumentations", "ColorJitter"): COLOUR,
    ("albumentations", "Affine"): ANGLE,
    ("albumentations", "ShiftScaleRotate"): ANGLE,
}


def quantities(library: str, transform: str) -> tuple[Quantity, ...]:
    return QUANTITIES.get((library, transform), ())
