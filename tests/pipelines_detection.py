"""DALI detection and segmentation pipelines written the way DALI users write them, and the small
COCO file over the bundled photos they read, for the import round trip tests.

Each entry builds a pipeline from `root` (the bundled photos) and `annotations` (a COCO file
whose image names are relative to `root`, written by :func:`write_coco`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from nvidia.dali import fn, pipeline_def, types
from PIL import Image

BATCH = 4

# file, [(category id, (x, y, w, h))]: boxes inside each photo, a few with two objects
OBJECTS: list[tuple[str, list[tuple[int, tuple[float, float, float, float]]]]] = [
    ("animal/cat.jpg", [(1, (120.0, 40.0, 200.0, 220.0))]),
    ("food/espresso.jpg", [(2, (150.0, 90.0, 280.0, 250.0)), (3, (20.0, 300.0, 120.0, 80.0))]),
    ("people/astronaut.jpg", [(3, (130.0, 20.0, 300.0, 480.0))]),
    ("space/rocket_launch.jpg", [(4, (280.0, 30.0, 90.0, 360.0)), (2, (10.0, 10.0, 60.0, 50.0))]),
    ("animal/cat_face.jpg", [(1, (30.0, 20.0, 160.0, 180.0))]),
    ("food/strawberries.jpg", [(2, (40.0, 30.0, 100.0, 90.0))]),
]
CATEGORIES = [
    {"id": 1, "name": "cat"},
    {"id": 2, "name": "cup"},
    {"id": 3, "name": "person"},
    {"id": 4, "name": "rocket"},
]


def _polygon(box: tuple[float, float, float, float]) -> list[float]:
    """A diamond inside the box."""
    x, y, w, h = box
    return [x + w / 2, y, x + w, y + h / 2, x + w / 2, y + h, x, y + h / 2]


def write_coco(root: Path, target: Path, *, missing: str | None = None) -> Path:
    """A COCO file (boxes and polygons) over the photos of `root` named in :data:`OBJECTS`;
    with `missing`, it also lists that image, which is not in `root` (for skip_bad)."""
    images: list[dict[str, Any]] = []
    annotations: list[dict[str, Any]] = []
    listed = [(name, objects) for name, objects in OBJECTS if (root / name).is_file()]
    assert len(listed) >= 5, "the bundled photos changed: update OBJECTS"
    if missing is not None:
        listed.insert(2, (missing, [(1, (1.0, 1.0, 20.0, 20.0))]))
    for image_id, (name, objects) in enumerate(listed, start=1):
        path = root / name
        width, height = Image.open(path).size if path.is_file() else (100, 100)
        images.append({"id": image_id, "file_name": name, "width": width, "height": height})
        for category, box in objects:
            annotations.append(
                {
                    "id": len(annotations) + 1,
                    "image_id": image_id,
                    "category_id": category,
                    "bbox": list(box),
                    "area": box[2] * box[3],
                    "iscrowd": 0,
                    "segmentation": [_polygon(box)],
                }
            )
    document = {"images": images, "annotations": annotations, "categories": CATEGORIES}
    target.write_text(json.dumps(document), encoding="utf-8")
    return target


def _anchors(grid: int = 4, sizes: tuple[float, ...] = (0.3, 0.6)) -> list[float]:
    """Default boxes (left, top, right, bottom, relative) on a small grid, as SSD's, fewer."""
    boxes: list[float] = []
    for row in range(grid):
        for column in range(grid):
            cx, cy = (column + 0.5) / grid, (row + 0.5) / grid
            for size in sizes:
                boxes += [cx - size / 2, cy - size / 2, cx + size / 2, cy + size / 2]
    return boxes


ANCHORS = _anchors()


@pipeline_def
def ssd_training(root: str, annotations: str) -> Any:
    # DALI's SSD example (single_stage_detector): box-safe crop, colour twist, flip, normalize,
    # boxes encoded against the default boxes
    jpegs, bboxes, labels = fn.readers.coco(
        file_root=root,
        annotations_file=annotations,
        ratio=True,
        ltrb=True,
        skip_empty=True,
        random_shuffle=True,
        seed=5,
        name="Reader",
    )
    crop_begin, crop_size, bboxes, labels = fn.random_bbox_crop(
        bboxes,
        labels,
        aspect_ratio=[0.5, 2.0],
        thresholds=[0, 0.1, 0.3, 0.5, 0.7, 0.9],
        scaling=[0.3, 1.0],
        bbox_layout="xyXY",
        allow_no_crop=True,
        num_attempts=50,
        seed=6,
    )
    images = fn.decoders.image_slice(jpegs, crop_begin, crop_size, output_type=types.RGB)
    coin = fn.random.coin_flip(probability=0.5, seed=7)
    images = fn.flip(images, horizontal=coin)
    bboxes = fn.bb_flip(bboxes, ltrb=True, horizontal=coin)
    images = fn.resize(images, resize_x=120, resize_y=120)
    saturation = fn.random.uniform(range=[0.5, 1.5], seed=8)
    contrast = fn.random.uniform(range=[0.5, 1.5], seed=9)
    brightness = fn.random.uniform(range=[0.875, 1.125], seed=10)
    hue = fn.random.uniform(range=[-0.5, 0.5], seed=11)
    images = fn.hsv(images, hue=hue, saturation=saturation, dtype=types.FLOAT)
    images = fn.brightness_contrast(
        images, brightness=brightness, contrast=contrast, contrast_center=128, dtype=types.UINT8
    )
    images = fn.crop_mirror_normalize(
        images,
        crop=(120, 120),
        mean=[0.0, 0.0, 0.0],
        std=[255.0, 255.0, 255.0],
        mirror=0,
        dtype=types.FLOAT,
        output_layout="CHW",
    )
    bboxes, labels = fn.box_encoder(bboxes, labels, criteria=0.5, anchors=ANCHORS)
    return images, bboxes, labels


@pipeline_def
def flip_with_boxes(root: str, annotations: str) -> Any:
    jpegs, bboxes, labels, ids = fn.readers.coco(
        file_root=root,
        annotations_file=annotations,
        ltrb=True,
        ratio=True,
        image_ids=True,
        random_shuffle=True,
        initial_fill=4,
        seed=3,
    )
    images = fn.decoders.image(jpegs, output_type=types.RGB)
    images = fn.resize(images, resize_x=64, resize_y=48)
    mirror = fn.random.coin_flip(seed=4)
    images = fn.flip(images, horizontal=mirror)
    bboxes = fn.bb_flip(bboxes, ltrb=True, horizontal=mirror)
    return images, bboxes, labels, ids


@pipeline_def
def polygons_flipped(root: str, annotations: str) -> Any:
    jpegs, _bboxes, labels, polygons, vertices = fn.readers.coco(
        file_root=root, annotations_file=annotations, polygon_masks=True, ratio=True
    )
    images = fn.decoders.image(jpegs, output_type=types.RGB)
    images = fn.resize(images, resize_x=56, resize_y=56)
    coin = fn.random.coin_flip(probability=0.5, seed=12)
    images = fn.flip(images, horizontal=coin, vertical=coin)
    vertices = fn.coord_flip(vertices, flip_x=coin, flip_y=coin)
    return images, labels, polygons, vertices


DETECTION: dict[str, Callable[..., Any]] = {
    "ssd_training": ssd_training,
    "flip_with_boxes": flip_with_boxes,
    "polygons_flipped": polygons_flipped,
}
