"""Keypoints for a COCO source, which DALI's ``readers.coco`` does not read.

The file's keypoints become two constant tables with a row per image: every keypoint annotation
of the image (persons, ...) padded to the most any image has, as ``(objects * points, 2)`` x, y
coordinates and ``(objects, points)`` COCO visibilities (0: not labelled, or padding). Inside the
pipeline the reader's image id picks the row (``fn.lookup_table`` then a subscript), so the
keypoints are plain DALI data, (N, 2) coordinates that ``coord_flip`` and ``coord_transform``
move like polygon vertices, in the explorer and in an exported module alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..coco_file import CocoImage


@dataclass(frozen=True)
class KeypointTable:
    ids: list[int]  # image id of each row
    points: np.ndarray  # (images, objects * points, 2) float32 x, y
    visibility: np.ndarray  # (images, objects, points) int32


def keypoint_table(images: Sequence[CocoImage], *, ratio: bool) -> KeypointTable:
    """The keypoints of `images`; with `ratio`, x and y are fractions of the image's width and
    height (as ``ratio=True`` writes boxes)."""
    per_image = [[obj.keypoints for obj in image.objects if obj.keypoints] for image in images]
    objects = max((len(found) for found in per_image), default=0) or 1
    points = max((len(k) // 3 for found in per_image for k in found), default=0) or 1
    xy = np.zeros((len(images), objects, points, 2), np.float32)
    visibility = np.zeros((len(images), objects, points), np.int32)
    for row, (image, found) in enumerate(zip(images, per_image, strict=True)):
        for column, values in enumerate(found):
            array = np.asarray(values, np.float32).reshape(-1, 3)
            if ratio:
                array[:, 0] /= image.width
                array[:, 1] /= image.height
            xy[row, column, : len(array)] = array[:, :2]
            visibility[row, column, : len(array)] = array[:, 2].astype(np.int32)
    flat = xy.reshape(len(images), objects * points, 2)
    return KeypointTable([image.id for image in images], flat, visibility)


def call_keypoints(image_ids: Any, table: KeypointTable) -> list[Any]:
    """The DALI calls that give each sample its rows of `table` (inside a pipeline definition):
    [keypoints, keypoint_visibility]."""
    from nvidia.dali import fn, types

    rows = list(range(len(table.ids)))
    row = fn.lookup_table(
        image_ids, keys=table.ids, values=rows, dtype=types.DALIDataType.INT32, default_value=0
    )
    index = row[0]
    return [types.Constant(table.points)[index], types.Constant(table.visibility)[index]]
