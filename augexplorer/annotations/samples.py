"""A run's annotations at an image node, per sample, in that image's pixel coordinates."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..spec import Ref
from .tracks import Tracks

# a keypoint object's label and its skeleton (COCO's 1-based pairs of points to join)
KeypointObject = tuple[int, tuple[tuple[int, int], ...]]


@dataclass(frozen=True)
class SampleAnnotations:
    """One sample's annotations, ready to draw over its image.

    `boxes` are (N, 4) left, top, right, bottom in pixels; `labels` their DALI labels and `names`
    their class names; `polygons` (x, y) pixel vertices each with `polygon_masks` its mask id
    (the index of the box it outlines); `mask` the (H, W) pixelwise mask (a box's label per pixel,
    0 for none), where the source reads masks.
    """

    boxes: np.ndarray = field(default_factory=lambda: np.zeros((0, 4), np.float32))
    labels: np.ndarray = field(default_factory=lambda: np.zeros((0,), np.int32))
    names: tuple[str, ...] = ()
    polygons: tuple[np.ndarray, ...] = ()
    polygon_masks: tuple[int, ...] = ()
    mask: np.ndarray | None = None
    # (objects, points, 3): x, y in pixels and COCO's visibility (0: not labelled)
    keypoints: np.ndarray | None = None
    # per keypoint object, its category's skeleton: COCO's 1-based pairs of keypoints to join
    skeletons: tuple[tuple[tuple[int, int], ...], ...] = ()
    keypoint_labels: tuple[int, ...] = ()  # per keypoint object, its category's label

    def keeping(self, kinds: Collection[str]) -> SampleAnnotations:
        """These annotations with only `kinds` of ``boxes``, ``polygons``, ``masks`` and
        ``keypoints`` left in (the others emptied: not to be drawn)."""
        empty = SampleAnnotations()
        kept = self
        if "boxes" not in kinds:
            kept = dataclasses.replace(kept, boxes=empty.boxes, labels=empty.labels, names=())
        if "polygons" not in kinds:
            kept = dataclasses.replace(kept, polygons=(), polygon_masks=())
        if "masks" not in kinds:
            kept = dataclasses.replace(kept, mask=None)
        if "keypoints" not in kinds:
            kept = dataclasses.replace(kept, keypoints=None, skeletons=(), keypoint_labels=())
        return kept

    def to_json(self) -> dict[str, Any]:
        """Plain lists for a browser view."""
        return {
            "boxes": np.round(self.boxes, 2).tolist(),
            "labels": [int(x) for x in self.labels],
            "names": list(self.names),
            "polygons": [np.round(p, 2).tolist() for p in self.polygons],
            "polygon_masks": list(self.polygon_masks),
            "keypoints": [] if self.keypoints is None else np.round(self.keypoints, 2).tolist(),
            "skeletons": [[list(pair) for pair in pairs] for pairs in self.skeletons],
            "keypoint_labels": list(self.keypoint_labels),
        }


def annotations_at(
    tracks: Tracks,
    arrays: Callable[[Ref], list[np.ndarray]],
    image_sizes: list[tuple[int, int]],
    class_names: Mapping[int, str],
    keypoint_objects: Mapping[int, tuple[KeypointObject, ...]] | None = None,
) -> list[SampleAnnotations]:
    """Each sample's annotations where `tracks` point; `arrays` reads a node output as host
    arrays, `image_sizes` are the (height, width) of each sample's image at that node, and
    `keypoint_objects` gives an image id's keypoint objects their labels and skeletons."""
    count = len(image_sizes)
    boxes = _read(tracks.get("boxes"), arrays, count)
    labels = _read(tracks.get("labels"), arrays, count)
    polygons = _read(tracks.get("polygons"), arrays, count)
    vertices = _read(tracks.get("vertices"), arrays, count)
    masks = _read(tracks.get("masks"), arrays, count)
    keypoints = _read(tracks.get("keypoints"), arrays, count)
    visibility = _read(tracks.get("keypoint_visibility"), arrays, count)
    image_ids = _read(tracks.get("image_ids"), arrays, count)
    out = []
    for i, (height, width) in enumerate(image_sizes):
        scale = np.array([width, height], np.float32) if tracks.format.ratio else np.ones(2)
        box = np.asarray(boxes[i], np.float32).reshape(-1, 4) if boxes else np.zeros((0, 4))
        if len(box) and not tracks.format.ltrb:
            box = np.concatenate([box[:, :2], box[:, :2] + box[:, 2:]], axis=1)
        box = box * np.tile(scale, 2)
        label = np.asarray(labels[i]).reshape(-1).astype(np.int32) if labels else np.zeros(0)
        shapes, owners = _polygons(polygons[i], vertices[i], scale) if polygons else ((), ())
        mask = np.asarray(masks[i]) if masks else None
        points = None
        objects: tuple[KeypointObject, ...] = ()
        if keypoints and visibility and image_ids:
            image_id = int(np.asarray(image_ids[i]).reshape(-1)[0])
            objects = (keypoint_objects or {}).get(image_id, ())
        if keypoints and visibility:
            seen = np.asarray(visibility[i], np.float32)
            xy = np.asarray(keypoints[i], np.float32).reshape(*seen.shape, 2) * scale
            points = np.concatenate([xy, seen[..., None]], axis=-1)
        out.append(
            SampleAnnotations(
                boxes=box.astype(np.float32),
                labels=label,
                names=tuple(class_names.get(int(x), str(int(x))) for x in label),
                polygons=shapes,
                polygon_masks=owners,
                mask=mask[..., 0] if mask is not None and mask.ndim == 3 else mask,
                keypoints=points,
                skeletons=tuple(skeleton for _, skeleton in objects),
                keypoint_labels=tuple(label for label, _ in objects),
            )
        )
    return out


def _read(
    ref: Ref | None, arrays: Callable[[Ref], list[np.ndarray]], count: int
) -> list[np.ndarray]:
    if ref is None:
        return []
    values = arrays(ref)
    return values if len(values) == count else []


def _polygons(
    polygons: np.ndarray, vertices: np.ndarray, scale: np.ndarray
) -> tuple[tuple[np.ndarray, ...], tuple[int, ...]]:
    """DALI's polygons ([mask id, first vertex, end vertex) per row) and vertices (x, y)."""
    table = np.asarray(polygons).reshape(-1, 3)
    points = np.asarray(vertices, np.float32).reshape(-1, 2) * scale
    shapes = tuple(points[int(start) : int(end)] for _, start, end in table)
    return shapes, tuple(int(mask_id) for mask_id, _, _ in table)
