"""A node's output as one small encoded picture per sample, for a grid drawn by the browser.

Captions travel as text beside each picture (the page lays them out, legible at any size); the
pictures are JPEG thumbnails no larger than the size they are shown at, so a batch of 16 stays a
few hundred KB. A sample whose pixels did not change since the grid was last drawn keeps its
encoded picture (:mod:`.pixel_history`): an edit re-encodes only the samples it changed, and
:func:`changed_tiles` says which those are.

The codec was chosen by measurement (BENCHMARKS.md, "Tiles"): libjpeg-turbo through simplejpeg
encodes 16 tiles of 240 px in 2-4 ms, as fast as any JPEG library tried and ten times faster than
WebP (Pillow, method 0) for near the same bytes; raw RGB costs nothing to encode but is 14 times
the bytes to move through the Jupyter server.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import simplejpeg
from nvidia.dali.types import to_numpy_type
from PIL import Image

from ..engine.result import RunResult, draw_text
from ..spec import Ref
from .class_colours import CLASS_IDS_SAID, class_pixels, draws_classes, is_mask_output
from .display import Normalization, drawn_as, is_image_like, to_hwc, to_rgb8
from .grid import fit_into
from .pixel_history import Histories
from .result_view import normalization_for
from .workers import parallel_map

# A preview, redrawn on every edit: 80 looks the same as 90 at tile size, in fewer bytes.
JPEG_QUALITY = 80
# During a drag: fewer bytes and a cheaper shrink; the full tile replaces it when the drag rests.
PREVIEW_QUALITY = 60

# The grids' pixel histories: which samples changed since each grid was last drawn.
HISTORIES = Histories()


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
    # the identity of the picture: the version of the pixels it was made of, its size and
    # quality. Equal keys, equal pictures; a tile whose key and captions did not change since
    # the last run need not travel again (:func:`changed_tiles`)
    key: str = ""
    preview: bool = False  # a drag's quick picture, to be replaced by the full one


def changed_tiles(before: Sequence[Tile], now: Sequence[Tile]) -> list[int]:
    """The sample indices of `now` whose picture or captions differ from `before`'s (every one
    where `before` had no tile for that sample): what the page must receive anew."""
    old = {tile.index: tile for tile in before}
    return [tile.index for tile in now if old.get(tile.index) != tile]


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
    *,
    preview: bool = False,
    classes: bool = False,
) -> bytes | None:
    """`sample` fitted into a `size`-pixel square (never larger, never enlarged) as JPEG; None
    when it is not an image. A `preview` shrinks by taking every n-th pixel first (a 1080p photo
    to a 240 px tile in a tenth of the time, with some aliasing) and encodes at a lower quality.

    simplejpeg encodes straight from the array: Pillow's image object and encoder setup cost
    as much again as libjpeg-turbo's work at tile size, on every redraw.

    `classes`: `sample` is a mask, drawn as class colours where it holds class ids
    (:mod:`.class_colours`), shrunk by nearest pixel and stored as PNG: a colour between two
    classes, or JPEG's blur of colours at their edges, would be a class that is not there."""
    array = np.asarray(sample)
    if not is_image_like(array, layout):
        return None
    if classes and draws_classes(array, layout):
        return _class_picture(class_pixels(array, layout), size)
    rgb = to_rgb8(array, layout, normalization)
    if preview:
        step = max(rgb.shape[:2]) // (2 * size)
        if step > 1:
            rgb = np.ascontiguousarray(rgb[::step, ::step])
        quality = min(quality, PREVIEW_QUALITY)
    if max(rgb.shape[:2]) > size:
        rgb = np.asarray(fit_into(rgb, size))
    return simplejpeg.encode_jpeg(rgb, quality=quality, colorspace="RGB", colorsubsampling="420")


def _class_picture(rgb: np.ndarray, size: int) -> bytes:
    picture = Image.fromarray(rgb)
    picture.thumbnail((size, size), Image.Resampling.NEAREST)
    out = io.BytesIO()
    picture.save(out, format="PNG", compress_level=1)  # flat colours: small even at level 1
    return out.getvalue()


def value_text(sample: np.ndarray) -> str:
    """A short text of a non-image output (a matrix, a label, encoded bytes)."""
    array = np.asarray(sample)
    if array.size == 0:
        shape = "x".join(str(n) for n in array.shape)
        return f"empty: {shape} {array.dtype}, no pixels to show"
    if array.ndim == 1 and array.dtype == np.uint8 and array.size > 64:
        return f"{array.size} bytes of an encoded file"
    if array.ndim == 0:  # one value (a random node's draw): as the captions write draws
        return draw_text(array.item())
    if array.dtype.kind == "f":
        return np.array2string(array, precision=3, suppress_small=True, threshold=64)
    return np.array2string(array, threshold=64)


def display_normalization(result: RunResult, ref: Ref, sample: np.ndarray) -> Normalization | None:
    """How floats of `ref` map back to pixels (None for integer outputs)."""
    if np.asarray(sample).dtype.kind != "f":
        return None
    return normalization_for(result.plan, ref.node)


def node_drawn_as(result: RunResult, ref: Ref) -> str:
    """How `ref`'s samples become the pixels of their tiles, in words ("" where they are drawn
    as they are: uint8)."""
    dtype = np.dtype(to_numpy_type(result.output(ref).dtype))
    if dtype.kind in "iu" and is_mask_output(result.plan.spec, ref):
        return CLASS_IDS_SAID
    norm = normalization_for(result.plan, ref.node) if dtype.kind == "f" else None
    return drawn_as(dtype, norm)


def pictures(
    arrays: Sequence[np.ndarray],
    layout: str,
    normalization: Normalization | None,
    size: int,
    *,
    preview: bool = False,
) -> list[bytes | None]:
    """Every sample's thumbnail, encoded on the picture threads side by side (libjpeg-turbo and
    Pillow's shrinking run without the GIL)."""
    return parallel_map(
        lambda array: thumbnail(array, layout, normalization, size, preview=preview), arrays
    )


def node_tiles(result: RunResult, ref: Ref, size: int, *, preview: bool = False) -> list[Tile]:
    """Every sample of `ref`'s output as a tile no larger than `size` pixels, captioned with its
    label and drawn values; a `preview` (during a drag) is quicker to make and smaller.

    Only samples whose pixels changed since `ref`'s grid was last drawn are encoded; the others
    keep their pictures. A tile's index is its sample's place in the batch: an inner node of a
    conditional block has tiles only for the samples where the block ran."""
    history = HISTORIES.of(("tiles", str(ref)))
    arrays, versions = history.update(result.output(ref), lambda: result.arrays(ref))
    layout = result.layout(ref)
    norm = display_normalization(result, ref, arrays[0]) if arrays else None
    classes = is_mask_output(result.plan.spec, ref)
    variant = ("tile", size, preview, layout, norm, classes)
    made = history.made(
        variant,
        lambda place: (
            thumbnail(arrays[place], layout, norm, size, preview=preview, classes=classes),
        ),
    )
    labels = result.captions(node_id=ref.node)
    draws = result.draw_captions(reaching=ref.node)
    files = result.files()
    samples = result.sample_indices(ref)
    quality = "p" if preview else "f"
    tiles = []
    for position, (i, (picture,), version) in enumerate(zip(samples, made, versions, strict=True)):
        width, height = picture_size(arrays[position], layout)
        tiles.append(
            Tile(
                index=i,
                picture=picture,
                text="" if picture is not None else value_text(arrays[position]),
                label=labels[i] if i < len(labels) else "",
                draws=draws[i] if i < len(draws) else "",
                file=files[i] if i < len(files) else "",
                width=width,
                height=height,
                key=f"{version}-{size}{quality}",
                preview=preview,
            )
        )
    return tiles
