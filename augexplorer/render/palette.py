"""One colour per class, the same in the browser's overlays and in the static grids.

Saturated colours of middle lightness: each stands out on a light page, on a dark page and on a
photo (the overlays also draw a dark halo under every line, and names on a chip of their
colour with black or white text, whichever reads better). The first twelve classes take the
curated colours below; later ones (Pascal VOC has 20 classes, COCO 80) are spread over hues by
the golden angle at alternating lightness, so that no two of ids -255 to 255 share a
colour and a mask interpolated between two ids shows a colour of its own.
"""

from __future__ import annotations

import colorsys
from functools import lru_cache

import numpy as np

# How opaque a pixel mask is drawn (of 255): the picture stays readable under it.
MASK_ALPHA = 110

PALETTE: tuple[str, ...] = (
    "#e6194b",  # red
    "#3cb44b",  # green
    "#4f7bff",  # blue
    "#f58231",  # orange
    "#b45cf0",  # violet
    "#19c8e6",  # cyan
    "#f032e6",  # magenta
    "#a5d62a",  # lime
    "#ffd21f",  # yellow
    "#2fb3a0",  # teal
    "#ff8fa8",  # pink
    "#c08a4a",  # tan
)


GOLDEN_ANGLE = 137.508  # degrees: successive hues never fall on each other
# Chosen for the colour difference (CIELAB distance) between any two of the first 21 class ids
# (Pascal VOC's 20 classes and one): at least 15.7, and 10.1 among the first 40.
HUE_START = 330.0  # degrees
LATER_LIGHTNESS = (0.4, 0.6)  # of later classes, in turn
LATER_SATURATION = 0.7


@lru_cache(maxsize=1024)
def class_colour(label: int) -> str:
    """The colour of a class label as ``#rrggbb`` (COCO labels count from 1)."""
    index = int(label) - 1
    if 0 <= index < len(PALETTE):
        return PALETTE[index]
    # ids from 13 on, then 0 and below (some sources count classes from 0) past the first 255
    later = index - len(PALETTE) if index >= 0 else 255 - index
    hue = (later * GOLDEN_ANGLE + HUE_START) % 360.0 / 360.0
    lightness = LATER_LIGHTNESS[later % len(LATER_LIGHTNESS)]
    red, green, blue = colorsys.hls_to_rgb(hue, lightness, LATER_SATURATION)
    return "#" + "".join(f"{round(channel * 255):02x}" for channel in (red, green, blue))


def class_rgb(label: int) -> tuple[int, int, int]:
    code = class_colour(label)
    return int(code[1:3], 16), int(code[3:5], 16), int(code[5:7], 16)


def text_colour(label: int) -> str:
    """Black or white, whichever reads better on the class colour (WCAG relative luminance)."""

    def linear(channel: int) -> float:
        c = channel / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (linear(c) for c in class_rgb(label))
    luminance = 0.2126 * r + 0.7152 * g + 0.0722 * b
    # contrast with black (L + 0.05) / 0.05 against white 1.05 / (L + 0.05)
    return "#000000" if (luminance + 0.05) ** 2 > 0.05 * 1.05 else "#ffffff"


def mask_rgba(mask: np.ndarray, alpha: int) -> np.ndarray:
    """A label-per-pixel mask as (H, W, 4) uint8 colours by class, `alpha` opaque; label 0
    (no object) is see-through."""
    labels = np.asarray(mask)
    if labels.ndim == 3:
        labels = labels[..., 0]
    labels = labels.astype(np.int64)
    top = max(int(labels.max(initial=0)), 0)
    lut = np.zeros((top + 1, 4), np.uint8)
    for label in range(1, top + 1):
        lut[label] = (*class_rgb(label), alpha)
    return lut[np.clip(labels, 0, top)]
