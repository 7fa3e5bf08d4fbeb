"""Turn one sample of any node's output into an RGB uint8 picture for display.

Handles HWC/CHW/HW layouts (and sequences, by their first frame), uint8/float16/float32 and
other integer types, grayscale and alpha, and floats normalized by a known mean and std.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Normalization:
    """How a float output was normalized: ``out = (pixel - mean) / std * scale + shift``."""

    mean: tuple[float, ...] = (0.0,)
    std: tuple[float, ...] = (1.0,)
    scale: float = 1.0
    shift: float = 0.0
    node: str = ""  # the node that normalized, to name where it is said how values are drawn

    def undo(self, values: np.ndarray) -> np.ndarray:
        """Map normalized HWC floats back to pixel values. Where the image has more channels
        than the normalization has values (crop_mirror_normalize's pad_output adds a fourth,
        of zeros), the first ones are undone and the rest left as they are."""
        mean = np.asarray(self.mean, dtype=np.float32).reshape(-1)
        std = np.asarray(self.std, dtype=np.float32).reshape(-1)
        values = values.astype(np.float32)
        given = max(mean.size, std.size)
        channels = values.shape[-1] if values.ndim == 3 else 1
        if given == 1 or given == channels:
            return (values - self.shift) / self.scale * std + mean
        undone = values.copy()
        first = min(given, channels)
        undone[..., :first] = (values[..., :first] - self.shift) / self.scale * np.resize(
            std, first
        ) + np.resize(mean, first)
        return undone


def drawn_as(dtype: np.dtype[Any] | str, normalization: Normalization | None) -> str:
    """How samples of `dtype` become the 8-bit pixels on screen, in words ("" for uint8, drawn
    as they are): a picture of floats looks like a photo, and says what was done to it."""
    kind = np.dtype(dtype)
    if kind == np.uint8:
        return ""
    if kind == np.bool_:
        return "bool values drawn black (false) and white (true)"
    if np.issubdtype(kind, np.floating):
        if normalization is not None:
            where = f"{normalization.node}'s" if normalization.node else "the"
            undo = "value * std + mean"
            if normalization.scale != 1.0 or normalization.shift != 0.0:
                undo = "(value - shift) / scale * std + mean"
            return f"{kind.name} values drawn as pixels: {where} normalization undone ({undo})"
        return (
            f"{kind.name} values drawn as pixels: times 255 where all lie in [0, 1], else "
            "clipped to 0-255"
        )
    return (
        f"{kind.name} values drawn as pixels: divided by 257 where any is over 255, clipped "
        "to 0-255"
    )


def is_image_like(sample: np.ndarray, layout: str = "") -> bool:
    if sample.size == 0:
        return False  # an image with no pixels (a crop to 0x0) is said in words, not drawn
    if layout and ("H" in layout and "W" in layout):
        return True
    return (sample.ndim == 2 and min(sample.shape) > 4) or (
        sample.ndim == 3 and min(sample.shape[:2]) > 4
    )


def to_hwc(sample: np.ndarray, layout: str = "") -> np.ndarray:
    """Reorder a sample to HWC (one channel for grayscale)."""
    array = np.asarray(sample)
    layout = layout or _guess_layout(array)
    while len(layout) > 3 or (len(layout) == array.ndim and layout[0] in "FD" and array.ndim > 2):
        array, layout = array[0], layout[1:]  # the first frame / slice of a sequence or volume
    if layout == "CHW":
        array = np.transpose(array, (1, 2, 0))
    elif layout in ("HW", "WH"):
        array = array[:, :, None] if layout == "HW" else array.T[:, :, None]
    elif layout == "WHC":
        array = np.transpose(array, (1, 0, 2))
    if array.ndim == 2:
        array = array[:, :, None]
    return array


def _guess_layout(array: np.ndarray) -> str:
    if array.ndim == 2:
        return "HW"
    if array.ndim == 3:
        if array.shape[-1] in (1, 2, 3, 4):
            return "HWC"
        if array.shape[0] in (1, 3, 4):
            return "CHW"
        return "HWC"
    return "F" * (array.ndim - 3) + "HWC"


def to_rgb8(
    sample: np.ndarray, layout: str = "", normalization: Normalization | None = None
) -> np.ndarray:
    """A displayable RGB uint8 image of one sample."""
    array = to_hwc(sample, layout)
    if array.dtype == np.bool_:
        array = array.astype(np.uint8) * 255
    elif np.issubdtype(array.dtype, np.floating):
        values = array.astype(np.float32)
        if normalization is not None:
            values = normalization.undo(values)
        elif (
            values.size
            and float(np.nanmax(values)) <= 1.0 + 1e-3
            and float(np.nanmin(values)) >= -1e-3
        ):
            values = values * 255.0  # floats in [0, 1]
        array = np.clip(np.nan_to_num(values), 0, 255).astype(np.uint8)
    elif array.dtype != np.uint8:
        top = float(array.max()) if array.size else 1.0
        scale = 255.0 / 65535.0 if top > 255 else 1.0
        array = np.clip(array.astype(np.float32) * scale, 0, 255).astype(np.uint8)
    channels = array.shape[2]
    if channels == 1:
        array = np.repeat(array, 3, axis=2)
    elif channels == 2:
        array = np.concatenate([array, array[:, :, :1]], axis=2)
    elif channels > 3:
        array = array[:, :, :3]
    return np.ascontiguousarray(array)
