"""Image grids: many samples as one numpy mosaic, encoded once (JPEG or PNG through Pillow).

Matplotlib costs 80-500 ms per figure; a mosaic of a batch of 16 costs a few milliseconds, which
is what keeps the edit-to-pixels loop interactive.
"""

from __future__ import annotations

import functools
import io
import math
from collections.abc import Sequence
from typing import Literal

import numpy as np
import simplejpeg
from PIL import Image, ImageDraw, ImageFont

from ..annotations import SampleAnnotations
from .annotation_drawing import draw_annotations
from .display import Normalization, is_image_like, to_rgb8

BACKGROUND = (246, 246, 246)
TEXT = (40, 40, 40)
LINE_HEIGHT = 12


@functools.cache
def caption_font() -> ImageFont.ImageFont | ImageFont.FreeTypeFont:
    """Pillow's small bitmap font: ten times faster to draw than a TrueType font."""
    loader = getattr(ImageFont, "load_default_imagefont", None)
    return loader() if loader is not None else ImageFont.load_default()


def fit_into(image: np.ndarray, cell: int) -> Image.Image:
    picture = Image.fromarray(image)
    # BOX (area averaging) is the cheapest filter that does not alias when shrinking.
    picture.thumbnail((cell, cell), Image.Resampling.BOX)
    return picture


def _wrap(text: str, width: int, max_lines: int) -> list[str]:
    chars = max(8, width // 6)
    # The bitmap font covers Latin-1 only; anything else shows as "?" rather than failing.
    text = text.encode("latin-1", "replace").decode("latin-1")
    lines: list[str] = []
    for word in text.split():
        if lines and len(lines[-1]) + 1 + len(word) <= chars:
            lines[-1] += " " + word
        else:
            lines.append(word[:chars])
    if len(lines) > max_lines:
        lines = lines[:max_lines]
        lines[-1] = lines[-1][: chars - 3] + "..."
    return lines


def _value_tile(sample: np.ndarray, cell: int) -> Image.Image:
    """A non-image output (a matrix, a label, a shape) shown as its values."""
    tile = Image.new("RGB", (cell, cell), (255, 255, 255))
    draw = ImageDraw.Draw(tile)
    flat = np.asarray(sample)
    if flat.dtype.kind == "f":
        text = np.array2string(flat, precision=3, suppress_small=True, max_line_width=cell // 6)
    else:
        text = np.array2string(flat, max_line_width=cell // 6, threshold=64)
    draw.multiline_text((6, 6), text, fill=TEXT, font=caption_font(), spacing=2)
    return tile


def balanced_columns(count: int) -> int:
    """A slightly wide grid with as few empty cells as possible (16 -> 4x4, 8 -> 2x4)."""
    low, high = math.ceil(math.sqrt(count)), math.ceil(math.sqrt(count * 2))
    return min(range(low, high + 1), key=lambda c: (math.ceil(count / c) * c - count, -c))


def cell_picture(
    sample: np.ndarray,
    layout: str,
    normalization: Normalization | None,
    cell: int,
    annotations: SampleAnnotations | None = None,
) -> np.ndarray:
    """One sample as its grid cell shows it: fitted into a `cell`-pixel square (a non-image as
    its values), its annotations drawn over it."""
    array = np.asarray(sample)
    if not is_image_like(array, layout):
        return np.asarray(_value_tile(array, cell))
    rgb = to_rgb8(array, layout, normalization)
    tile = fit_into(rgb, cell)
    if annotations is not None:
        tile = draw_annotations(tile, annotations, tile.width / rgb.shape[1], caption_font())
    return np.asarray(tile)


@functools.lru_cache(maxsize=1024)
def caption_strip(text: str, width: int, lines: int) -> np.ndarray:
    """A caption as drawn under its cell, drawn once per text: most edits leave captions as
    they were, and drawing text is most of a grid's cost where pictures are small."""
    strip = Image.new("RGB", (width, lines * LINE_HEIGHT), BACKGROUND)
    draw = ImageDraw.Draw(strip)
    for line_no, line in enumerate(_wrap(text, width, lines)):
        draw.text((2, 1 + line_no * LINE_HEIGHT), line, fill=TEXT, font=caption_font())
    array = np.asarray(strip)
    array.setflags(write=False)  # shared by every grid that shows this caption
    return array


# a grid or two are drawn at a time (a node's, A/B's other side); a large sheet is tens of MB
@functools.lru_cache(maxsize=2)
def _blank_sheet(height: int, width: int) -> np.ndarray:
    """An empty sheet of one size, made once: copying it takes a hundredth of the time numpy
    takes to broadcast the three background values over a new one (2-3 ms for a grid of 16)."""
    sheet = np.empty((height, width, 3), np.uint8)
    sheet[:] = BACKGROUND
    sheet.setflags(write=False)
    return sheet


def compose(
    cells: Sequence[np.ndarray],
    *,
    captions: Sequence[str] = (),
    cell: int = 160,
    columns: int | None = None,
    caption_lines: int = 2,
) -> Image.Image:
    """One sheet of cell pictures (each at most `cell` pixels square, centred in its cell),
    captioned below, pasted with numpy."""
    count = max(1, len(cells))
    columns = columns or balanced_columns(count)
    rows = math.ceil(count / columns)
    text_lines = caption_lines if any(captions) else 0
    pad = 4
    cell_h = cell + text_lines * LINE_HEIGHT + pad
    sheet = _blank_sheet(rows * cell_h + pad, columns * (cell + pad) + pad).copy()
    for index, picture in enumerate(cells):
        x = pad + (index % columns) * (cell + pad)
        y = pad + (index // columns) * cell_h
        height, width = picture.shape[:2]
        top, left = y + (cell - height) // 2, x + (cell - width) // 2
        sheet[top : top + height, left : left + width] = picture[:, :, :3]
        if index < len(captions) and captions[index]:
            strip = caption_strip(captions[index], cell, text_lines)
            sheet[y + cell : y + cell + strip.shape[0], x : x + cell] = strip
    return Image.fromarray(sheet)


def grid(
    samples: Sequence[np.ndarray],
    *,
    layout: str = "",
    captions: Sequence[str] = (),
    normalization: Normalization | None = None,
    cell: int = 160,
    columns: int | None = None,
    caption_lines: int = 2,
    annotations: Sequence[SampleAnnotations | None] = (),
) -> Image.Image:
    """One picture of a batch: each sample fitted into a `cell`-pixel square, captioned below;
    each sample's `annotations` (boxes, names, polygons, masks) drawn over it where given.
    Every cell is drawn anew (``render_node`` keeps the cells of unchanged samples)."""
    cells = [
        cell_picture(
            sample,
            layout,
            normalization,
            cell,
            annotations[index] if index < len(annotations) else None,
        )
        for index, sample in enumerate(samples)
    ]
    return compose(
        cells, captions=captions, cell=cell, columns=columns, caption_lines=caption_lines
    )


def encode(picture: Image.Image, fmt: Literal["jpeg", "png"] = "jpeg", quality: int = 88) -> bytes:
    """Encode a picture once, for a widget or a file. JPEG through simplejpeg (libjpeg-turbo
    straight from the pixels: a 660x756 grid in about half of Pillow's time)."""
    if fmt == "jpeg":
        rgb = np.asarray(picture.convert("RGB") if picture.mode != "RGB" else picture)
        return simplejpeg.encode_jpeg(
            np.ascontiguousarray(rgb), quality=quality, colorspace="RGB", colorsubsampling="420"
        )
    buffer = io.BytesIO()
    picture.save(buffer, format="PNG", compress_level=1)
    return buffer.getvalue()
