"""A node's output as one small encoded picture per sample, for a grid drawn by the browser.

Captions travel as text beside each picture (the page lays them out, legible at any size); the
pictures are JPEG thumbnails no larger than the tile, so a batch of 16 stays a few hundred KB.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..engine.result import RunResult
from ..spec import Ref
from .display import Normalization, is_image_like, to_rgb8
from .grid import encode, fit_into
from .result_view import normalization_for

# A preview, redrawn on every edit: 80 looks the same as 90 at tile size, in fewer bytes.
JPEG_QUALITY = 80


@dataclass(frozen=True)
class Tile:
    """One sample: its picture (None for values that are not an image) and its caption."""

    index: int
    picture: bytes | None
    text: str  # the values themselves, for outputs that are not images
    label: str
    draws: str
    file: str


def thumbnail(
    sample: np.ndarray,
    layout: str,
    normalization: Normalization | None,
    size: int,
    quality: int = JPEG_QUALITY,
) -> bytes | None:
    """`sample` fitted into a `size`-pixel square as JPEG; None when it is not an image."""
    array = np.asarray(sample)
    if not is_image_like(array, layout):
        return None
    return encode(fit_into(to_rgb8(array, layout, normalization), size), "jpeg", quality=quality)


def value_text(sample: np.ndarray) -> str:
    """A short text of a non-image output (a matrix, a label, encoded bytes)."""
    array = np.asarray(sample)
    if array.ndim == 1 and array.dtype == np.uint8 and array.size > 64:
        return f"{array.size} bytes of an encoded file"
    if array.dtype.kind == "f":
        return np.array2string(array, precision=3, suppress_small=True, threshold=64)
    return np.array2string(array, threshold=64)


def display_normalization(result: RunResult, ref: Ref, sample: np.ndarray) -> Normalization | None:
    """How floats of `ref` map back to pixels (None for integer outputs)."""
    if np.asarray(sample).dtype.kind != "f":
        return None
    return normalization_for(result.plan, ref.node)


def pictures(
    arrays: Sequence[np.ndarray],
    layout: str,
    normalization: Normalization | None,
    size: int,
) -> list[bytes | None]:
    return [thumbnail(a, layout, normalization, size) for a in arrays]


def node_tiles(result: RunResult, ref: Ref, size: int) -> list[Tile]:
    """Every sample of `ref`'s output as a tile, captioned with its label and drawn values.

    A tile's index is its sample's place in the batch: an inner node of a conditional block
    has tiles only for the samples where the block ran."""
    arrays = result.arrays(ref)
    layout = result.layout(ref)
    norm = display_normalization(result, ref, arrays[0]) if arrays else None
    labels = result.captions()
    draws = result.draw_captions()
    files = result.files()
    samples = result.sample_indices(ref)
    return [
        Tile(
            index=i,
            picture=picture,
            text="" if picture is not None else value_text(arrays[position]),
            label=labels[i] if i < len(labels) else "",
            draws=draws[i] if i < len(draws) else "",
            file=files[i] if i < len(files) else "",
        )
        for position, (i, picture) in enumerate(
            zip(samples, pictures(arrays, layout, norm, size), strict=True)
        )
    ]
