"""A small COCO file over the bundled photos, and annotated graphs that read it.

Tests write their own file rather than lean on the package's bundled annotations: what is drawn
must be compared with coordinates the test knows.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from augexplorer.data import samples_dir
from augexplorer.spec import GraphSpec, Node, Ref, Source

# file, (width, height), [(category id, (x, y, w, h))]
IMAGES: list[tuple[str, tuple[int, int], list[tuple[int, tuple[float, float, float, float]]]]] = [
    ("animal/cat.jpg", (451, 300), [(1, (120.0, 40.0, 200.0, 220.0))]),
    ("food/espresso.jpg", (600, 400), [(2, (150.0, 90.0, 280.0, 250.0)), (3, (20, 300, 120, 80))]),
    ("people/astronaut.jpg", (512, 512), [(3, (130.0, 20.0, 300.0, 480.0))]),
    ("space/rocket_launch.jpg", (640, 427), [(4, (280.0, 30.0, 90.0, 360.0))]),
]
CATEGORIES = [
    {"id": 1, "name": "cat"},
    {"id": 2, "name": "cup"},
    {
        "id": 3,
        "name": "person",
        "keypoints": ["head", "left hand", "right hand"],
        "skeleton": [[1, 2], [1, 3]],
    },
    {"id": 4, "name": "rocket"},
]


def _polygon(box: tuple[float, float, float, float]) -> list[float]:
    """A diamond inside the box: vertices a test can check by eye and by number."""
    x, y, w, h = box
    return [x + w / 2, y, x + w, y + h / 2, x + w / 2, y + h, x, y + h / 2]


def write_coco(folder: Path) -> Path:
    """An annotations file beside nothing: its images are read from the bundled samples."""
    images: list[dict[str, Any]] = []
    annotations: list[dict[str, Any]] = []
    for image_id, (name, (width, height), objects) in enumerate(IMAGES, start=1):
        assert (samples_dir() / name).is_file(), name
        images.append({"id": image_id, "file_name": name, "width": width, "height": height})
        for category, box in objects:
            annotation: dict[str, Any] = {
                "id": len(annotations) + 1,
                "image_id": image_id,
                "category_id": category,
                "bbox": list(box),
                "area": box[2] * box[3],
                "iscrowd": 0,
                "segmentation": [_polygon(box)],
            }
            if category == 3:
                x, y, w, h = box
                annotation["keypoints"] = [
                    x + w / 2,
                    y + 10,
                    2,
                    x + 5,
                    y + h / 2,
                    2,
                    x + w - 5,
                    y + h / 2,
                    2,
                ]
            annotations.append(annotation)
    path = folder / "annotations.json"
    path.write_text(
        json.dumps({"images": images, "annotations": annotations, "categories": CATEGORIES})
    )
    return path


def coco_source(path: Path, **reader_args: Any) -> Source:
    args = {"ltrb": True, "ratio": True, "polygon_masks": True, **reader_args}
    return Source(
        "source",
        "coco",
        path=str(path),
        file_root=str(samples_dir()),
        shuffle=False,
        reader_args=args,
    )


def flipped_graph(path: Path, batch_size: int = 4) -> GraphSpec:
    """Decode, then flip images, boxes and polygon vertices with one shared coin."""
    source = coco_source(path)
    nodes = (
        source,
        Node("decode", "decoders.image", inputs=(Ref("source"),), args={"output_type": "RGB"}),
        Node("coin", "random.coin_flip", args={"probability": 0.5}, seed=7),
        Node("flip", "flip", inputs=(Ref("decode"),), args={"horizontal": Ref("coin")}),
        Node(
            "bb_flip",
            "bb_flip",
            inputs=(Ref("source", 1),),
            args={"horizontal": Ref("coin"), "ltrb": True},
        ),
        Node("coord_flip", "coord_flip", inputs=(Ref("source", 4),), args={"flip_x": Ref("coin")}),
    )
    outputs = {"images": Ref("flip"), "boxes": Ref("bb_flip"), "labels": Ref("source", 2)}
    return GraphSpec(nodes=nodes, outputs=outputs, batch_size=batch_size, name="annotated")


def plain_graph(batch_size: int = 4) -> GraphSpec:
    """The bundled samples with no annotations: decode and flip."""
    nodes = (
        Source("source", shuffle=False),
        Node("decode", "decoders.image", inputs=(Ref("source"),), args={"output_type": "RGB"}),
        Node("flip", "flip", inputs=(Ref("decode"),), args={"horizontal": 1}),
    )
    outputs = {"images": Ref("flip"), "labels": Ref("source", 1)}
    return GraphSpec(nodes=nodes, outputs=outputs, batch_size=batch_size, name="plain")
