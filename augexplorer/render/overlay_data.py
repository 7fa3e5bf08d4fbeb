"""A node's annotations as data a browser draws over its pictures (SVG over each tile).

Coordinates stay in the pixels of the node's images, with the image's width and height beside
them: the page scales the drawing with the picture, so the bitmap stays clean and switching a
kind of annotation off is instant. Pixel masks travel as small translucent PNGs, coloured by
class.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
from PIL import Image

from ..annotations import SampleAnnotations
from ..annotations.drawable import OverlayState
from ..engine.result import RunResult
from ..spec import Ref
from .palette import MASK_ALPHA, PALETTE, class_colour, mask_rgba, text_colour

# What the overlays can draw; each kind can be switched off in the panel.
OVERLAY_KINDS = ("boxes", "names", "polygons", "masks", "keypoints")
# A mask in a large view is sent at most this many pixels on its longer side.
MAX_MASK_SIDE = 2048


def image_size(shape: Sequence[int], layout: str) -> tuple[int, int]:
    """(height, width) of an image from its shape and layout (HWC when none is given)."""
    if "H" in layout and "W" in layout:
        return int(shape[layout.index("H")]), int(shape[layout.index("W")])
    return int(shape[0]), int(shape[1]) if len(shape) > 1 else 1


def node_overlays(
    result: RunResult, ref: Ref, mask_side: int | None = None
) -> list[dict[str, Any]] | None:
    """One overlay per sample of `ref`'s images; None where the images carry no annotations
    (no annotated source, a source's encoded files, or an output that is not the images)."""
    if ref.output != 0:
        return None
    annotations = result.drawn_annotations(ref.node)
    if annotations is None:
        return None
    layout = result.layout(ref)
    batch = result.output(ref)
    sizes = [image_size(tuple(batch[i].shape()), layout) for i in range(len(batch))]
    return [
        sample_overlay(sample, height, width, mask_side)
        for sample, (height, width) in zip(annotations, sizes, strict=True)
    ]


def sample_overlay(
    sample: SampleAnnotations, height: int, width: int, mask_side: int | None = None
) -> dict[str, Any]:
    """One sample's annotations with their colours, in the pixels of a `width` x `height` image.

    Keys: width, height; boxes (left, top, right, bottom), labels, names, colors, text_colors;
    polygons (lists of x, y) with polygon_colors; mask (PNG bytes or None); keypoints (one entry
    per object: points as x, y, visibility, the skeleton's edges as pairs of point indices).
    """
    data = sample.to_json()
    labels: list[int] = data["labels"]
    owners: list[int] = data["polygon_masks"]
    return {
        "width": int(width),
        "height": int(height),
        "boxes": data["boxes"],
        "labels": labels,
        "names": data["names"],
        "colors": [class_colour(label) for label in labels],
        "text_colors": [text_colour(label) for label in labels],
        "polygons": data["polygons"],
        "polygon_masks": owners,
        "polygon_colors": [
            class_colour(labels[owner]) if 0 <= owner < len(labels) else PALETTE[0]
            for owner in owners
        ],
        "mask": mask_png(sample.mask, mask_side) if sample.mask is not None else None,
        "keypoints": keypoint_overlay(sample, width, height),
    }


def mask_png(mask: np.ndarray, side: int | None = None) -> bytes:
    """A label-per-pixel mask as a translucent PNG coloured by class (0 is see-through),
    shrunk with nearest-neighbour to at most `side` pixels (never blending two labels)."""
    picture = Image.fromarray(mask_rgba(mask, MASK_ALPHA), "RGBA")
    limit = min(side or MAX_MASK_SIDE, MAX_MASK_SIDE)
    if max(picture.size) > limit:
        picture.thumbnail((limit, limit), Image.Resampling.NEAREST)
    buffer = io.BytesIO()
    picture.save(buffer, format="PNG", compress_level=1)
    return buffer.getvalue()


def keypoint_overlay(
    sample: SampleAnnotations, width: float | None = None, height: float | None = None
) -> list[dict[str, Any]]:
    """Keypoints where the annotations carry them (a COCO source read with ``keypoints=True``):
    one entry per object that has a labelled point, its points as x, y, visibility, its
    skeleton's edges as 0-based point index pairs, coloured by its class. A point outside a
    `width` x `height` image (a crop cut it off) is not labelled there: visibility 0."""
    if sample.keypoints is None:
        return []
    out = []
    for index, points in enumerate(np.asarray(sample.keypoints, np.float32)):
        if width is not None and height is not None:
            x, y = points[:, 0], points[:, 1]
            outside = (x < 0) | (y < 0) | (x > width) | (y > height)
            points = points.copy()
            points[outside, 2] = 0
        if not (points[:, 2] > 0).any():
            continue  # padding: an image with fewer keypoint objects than the most
        label = sample.keypoint_labels[index] if index < len(sample.keypoint_labels) else 0
        edges = sample.skeletons[index] if index < len(sample.skeletons) else ()
        out.append(
            {
                "points": np.round(points, 2).tolist(),
                "edges": [[int(a) - 1, int(b) - 1] for a, b in edges],
                "color": class_colour(label),
            }
        )
    return out


def available_kinds(
    overlays: Sequence[dict[str, Any] | None],
    states: Mapping[str, OverlayState] | None = None,
) -> dict[str, str | None]:
    """Each kind -> None where some sample has it to draw, else why there is nothing: first
    what the graph says (`states`, :meth:`RunResult.overlay_states`: a kind it did not carry
    to these images is not drawn), then what the batch holds."""
    present = [o for o in overlays if o is not None]

    def has(key: str) -> bool:
        return any(o[key] for o in present)

    said = {kind: state.reason for kind, state in (states or {}).items() if state.reason}
    return {kind: said.get(kind, found) for kind, found in _in_batch(present, has).items()}


def overlay_fixes(states: Mapping[str, OverlayState] | None) -> dict[str, str]:
    """Each kind the graph can be made to carry to the images -> the fix's label ("Carry
    polygons through 'crop'"), for a button beside its switch."""
    return {kind: state.fix for kind, state in (states or {}).items() if state.carry_kinds}


def left_behind(states: Mapping[str, OverlayState] | None) -> dict[str, str]:
    """Each kind the source reads that the graph did not carry to the images, where the graph
    reads it (a node moves it, or an output gives it) -> why: said on the row of switches, not
    only on hover (the names once, with their boxes). A kind no node reads (the segmentation
    preset's boxes) is only not drawn: said on hover."""
    said = {k: s.reason for k, s in (states or {}).items() if s.left_behind and s.used and s.reason}
    if "boxes" in said:
        said.pop("names", None)
    return said


def _in_batch(
    present: Sequence[dict[str, Any]], has: Callable[[str], bool]
) -> dict[str, str | None]:
    """Each kind -> None where some sample of the batch has it, else why there is nothing."""
    return {
        "boxes": None if has("boxes") else "no boxes in this batch",
        "names": None if has("boxes") else "no boxes in this batch",
        "polygons": None
        if has("polygons")
        else "no polygons (readers.coco reads them with polygon_masks=True)",
        "masks": None
        if any(o["mask"] is not None for o in present)
        else "no pixel masks (readers.coco reads them with pixelwise_masks=True)",
        "keypoints": None
        if has("keypoints")
        else "no keypoints (a COCO source gives them with keypoints=True)",
    }


def pane_overlay(result: RunResult, ref: Ref, index: int) -> dict[str, Any] | None:
    """Sample `index`'s overlay at full resolution, for a large view; None where `ref`'s
    images carry no annotations."""
    if ref.output != 0:
        return None
    annotations = result.drawn_annotations(ref.node)
    if annotations is None or not 0 <= index < len(annotations):
        return None
    height, width = image_size(tuple(result.output(ref)[index].shape()), result.layout(ref))
    return sample_overlay(annotations[index], height, width)
