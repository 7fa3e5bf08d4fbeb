"""A node's output as one small encoded picture per sample, for a grid drawn by the browser.

Captions travel as text beside each picture (the page lays them out, legible at any size); the
pictures are JPEG thumbnails no larger than the tile, so a batch of 16 stays a few hundred KB.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
import simplejpeg

from ..engine.result import RunResult
from ..spec import Ref
from .display import Normalization, is_image_like, to_hwc, to_rgb8
from .grid import fit_into
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
    # the sample's own size in pixels (the thumbnail may be smaller): the page shows every tile
    # of a grid at one scale from these; (0, 0) for values that are not an image
    width: int = 0
    height: int = 0


def picture_size(sample: np.ndarray, layout: str) -> tuple[int, int]:
    """(width, height) of `sample` as a picture; (0, 0) when it is not an image."""
    array = np.asarray(sample)
    if not is_image_like(array, layout):
        return (0, 0)
    height, width = to_hwc(array, layout).shape[:2]
    return (int(width), int(height))


def thumbnail(
    sample: np.ndarray,
    layout: str,
    normalization: Normalization | None,
    size: int,
    quality: int = JPEG_QUALITY,
) -> bytes | None:
    """`sample` fitted into a `size`-pixel square as JPEG; None when it is not an image.

    simplejpeg encodes straight from the array: Pillow's image object and encoder setup cost
    as much again as libjpeg-turbo's work at tile size, on every redraw."""
    array = np.asarray(sample)
    if not is_image_like(array, layout):
        return None
    rgb = to_rgb8(array, layout, normalization)
    if max(rgb.shape[:2]) > size:
        rgb = np.asarray(fit_into(rgb, size))
    return simplejpeg.encode_jpeg(rgb, quality=quality, colorspace="RGB", colorsubsampling="420")


def value_text(sample: np.ndarray) -> str:
    """A short text of a non-image output (a matrix, a label, encoded bytes)."""
    array = np.asarray(sample)
    if array.size == 0:
        shape = "x".join(str(n) for n in array.shape)
        return f"empty: {shape} {array.dtype}, no pixels to show"
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
    """Every sample's thumbnail, in two halves on two threads: libjpeg-turbo runs without the
    GIL, so encoding a batch of 16 224-px tiles takes ~2.2 ms instead of ~3.5 where a second
    core is free."""

    def encode(part: Sequence[np.ndarray]) -> list[bytes | None]:
        return [thumbnail(a, layout, normalization, size) for a in part]

    half = len(arrays) // 2
    if half < 2:
        return encode(arrays)
    second = _encoder().submit(encode, arrays[half:])
    return encode(arrays[:half]) + second.result()


@functools.cache
def _encoder() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=1, thread_name_prefix="augexplorer-thumbnails")


def node_tiles(result: RunResult, ref: Ref, size: int) -> list[Tile]:
    """Every sample of `ref`'s output as a tile, captioned with its label and drawn values.

    A tile's index is its sample's place in the batch: an inner node of a conditional block
    has tiles only for the samples where the block ran."""
    arrays = result.arrays(ref)
    layout = result.layout(ref)
    norm = display_normalization(result, ref, arrays[0]) if arrays else None
    labels = result.captions()
    draws = result.draw_captions(reaching=ref.node)
    files = result.files()
    samples = result.sample_indices(ref)
    sizes = [picture_size(a, layout) for a in arrays]
    return [
        Tile(
            index=i,
            picture=picture,
            text="" if picture is not None else value_text(arrays[position]),
            label=labels[i] if i < len(labels) else "",
            draws=draws[i] if i < len(draws) else "",
            file=files[i] if i < len(files) else "",
            width=dims[0],
            height=dims[1],
        )
        for position, (i, picture, dims) in enumerate(
            zip(samples, pictures(arrays, layout, norm, size), sizes, strict=True)
        )
    ]
