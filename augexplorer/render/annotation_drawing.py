"""Annotations drawn into a picture, for the static grids (the ``render`` command, a notebook's
static display): boxes in their class colour with the class name, polygons and masks
translucent, labelled keypoints joined by their skeleton. The live panel draws the same things in the browser instead (overlay_data)."""

from __future__ import annotations

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from ..annotations import SampleAnnotations
from .palette import MASK_ALPHA, class_rgb, mask_rgba, text_colour

FILL_ALPHA = 80  # polygons and masks: the picture stays readable underneath
HALO = (0, 0, 0, 160)  # a dark line under every box: a light colour still reads on a light photo


def draw_annotations(
    picture: Image.Image,
    sample: SampleAnnotations,
    scale: float,
    font: ImageFont.ImageFont | ImageFont.FreeTypeFont,
) -> Image.Image:
    """`picture` (the sample's image shrunk by `scale`) with `sample`'s annotations over it."""
    layer = Image.new("RGBA", picture.size, (0, 0, 0, 0))
    if sample.mask is not None:
        layer = Image.alpha_composite(layer, _mask_layer(sample.mask, picture.size))
    draw = ImageDraw.Draw(layer)
    labels = [int(x) for x in sample.labels]
    for points, owner in zip(sample.polygons, sample.polygon_masks, strict=False):
        if len(points) < 3:
            continue
        colour = class_rgb(labels[owner] if 0 <= owner < len(labels) else 1)
        xy = [(float(x) * scale, float(y) * scale) for x, y in np.asarray(points)]
        draw.polygon(xy, fill=(*colour, FILL_ALPHA), outline=(*colour, 255))
    for box, label, name in zip(sample.boxes, labels, sample.names, strict=False):
        left, top, right, bottom = (float(v) * scale for v in box)
        colour = class_rgb(label)
        draw.rectangle((left - 1, top - 1, right + 1, bottom + 1), outline=HALO, width=1)
        draw.rectangle((left, top, right, bottom), outline=(*colour, 255), width=2)
        _name_chip(draw, name, label, left, top, font, picture.size)
    _keypoints(draw, sample, scale)
    out = Image.alpha_composite(picture.convert("RGBA"), layer)
    return out.convert("RGB")


def _keypoints(draw: ImageDraw.ImageDraw, sample: SampleAnnotations, scale: float) -> None:
    """Each object's labelled keypoints (visibility > 0), its skeleton's bones between them."""
    if sample.keypoints is None:
        return
    for index, points in enumerate(np.asarray(sample.keypoints, np.float32)):
        label = sample.keypoint_labels[index] if index < len(sample.keypoint_labels) else 1
        colour = (*class_rgb(label), 255)
        xy = points[:, :2] * scale
        width, height = draw.im.size
        # a point a crop cut off is not in this picture: neither it nor its bones are drawn
        inside = (xy[:, 0] >= 0) & (xy[:, 1] >= 0) & (xy[:, 0] <= width) & (xy[:, 1] <= height)
        labelled = (points[:, 2] > 0) & inside
        bones = sample.skeletons[index] if index < len(sample.skeletons) else ()
        for a, b in bones:  # COCO's pairs count points from 1
            if 0 < a <= len(xy) and 0 < b <= len(xy) and labelled[a - 1] and labelled[b - 1]:
                draw.line([tuple(xy[a - 1]), tuple(xy[b - 1])], fill=colour, width=2)
        for (x, y), seen in zip(xy, labelled, strict=True):
            if seen:
                draw.ellipse((x - 2.5, y - 2.5, x + 2.5, y + 2.5), fill=colour, outline=HALO)


def _name_chip(
    draw: ImageDraw.ImageDraw,
    name: str,
    label: int,
    left: float,
    top: float,
    font: ImageFont.ImageFont | ImageFont.FreeTypeFont,
    size: tuple[int, int],
) -> None:
    """The class name on a chip of its colour, at the box's top-left corner, inside the picture."""
    text = name.encode("latin-1", "replace").decode("latin-1")  # the bitmap font is Latin-1
    x0, y0, x1, y1 = draw.textbbox((0, 0), text, font=font)
    width, height = x1 - x0 + 4, y1 - y0 + 3
    x = min(max(0.0, left), max(0.0, size[0] - width))
    y = max(0.0, top - height) if top - height >= 0 else max(0.0, top)
    draw.rectangle((x, y, x + width, y + height), fill=(*class_rgb(label), 230))
    ink = (0, 0, 0, 255) if text_colour(label) == "#000000" else (255, 255, 255, 255)
    draw.text((x + 2 - x0, y + 1 - y0), text, fill=ink, font=font)


def _mask_layer(mask: np.ndarray, size: tuple[int, int]) -> Image.Image:
    layer = Image.fromarray(mask_rgba(mask, MASK_ALPHA), "RGBA")
    return layer.resize(size, Image.Resampling.NEAREST)
