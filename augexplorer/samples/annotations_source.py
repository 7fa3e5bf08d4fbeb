"""The bundled photos' annotations, outlined by hand, and the writer of ``annotations.json``.

Maintainer tool: ``annotations.json`` (COCO instances format, as DALI's ``fn.readers.coco``
reads it) is what ships; this file is its source. Each object is outlined once, in the pixels
of one *reference* photo (the tile the outline was drawn on, listed in :data:`OBJECTS`), and
projected into every tile cut from the same source photograph: clipped to the tile, scaled
with it, and kept where at least :data:`MIN_VISIBLE` of it remains. Boxes are the bounding
boxes of the polygons and areas the polygons' areas, so they always agree.

Photos with nothing to annotate (the textures, one deep-field crop, the wood grain) are listed
with no annotations on purpose: ``readers.coco(skip_empty=True)`` leaves them out.

Regenerate after editing (``make_samples.py`` does this too)::

    python augexplorer/samples/annotations_source.py
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from PIL import Image

HERE = Path(__file__).resolve().parent
IMAGES = HERE / "images"
ANNOTATIONS = HERE / "annotations.json"

# An object cut by a tile's edge is kept when at least this share of its area is inside, or
# when what is inside covers this share of the tile (a big object cut by a close crop)...
MIN_VISIBLE = 0.25
MIN_TILE_SHARE = 0.02
# ...and, always, when it covers at least this many square pixels of the tile.
MIN_AREA = 16.0
DECIMALS = 2  # coordinates are rounded so the file stays readable and exact to compare

Point = tuple[float, float]
Keypoint = tuple[float, float, int]  # x, y, visibility (COCO: 1 labelled but hidden, 2 seen)


@dataclass(frozen=True)
class Category:
    id: int
    name: str
    supercategory: str
    keypoints: tuple[str, ...] = ()
    skeleton: tuple[tuple[int, int], ...] = ()  # pairs of 1-based keypoint indices


# COCO's own ids for the classes COCO has, so a COCO-trained model's labels line up; the ids
# are not 1..N, so DALI's class remapping (avoid_class_remapping) makes a difference.
PERSON_KEYPOINTS = (
    "nose",
    "left_eye",
    "right_eye",
    "left_ear",
    "right_ear",
    "left_shoulder",
    "right_shoulder",
    "left_elbow",
    "right_elbow",
    "left_wrist",
    "right_wrist",
    "left_hip",
    "right_hip",
    "left_knee",
    "right_knee",
    "left_ankle",
    "right_ankle",
)
PERSON_SKELETON = (
    (16, 14), (14, 12), (17, 15), (15, 13), (12, 13), (6, 12), (7, 13), (6, 7), (6, 8),
    (7, 9), (8, 10), (9, 11), (2, 3), (1, 2), (1, 3), (2, 4), (3, 5), (4, 6), (5, 7),
)  # fmt: skip
CAT_KEYPOINTS = ("left_eye", "right_eye", "nose", "left_ear", "right_ear")
CAT_SKELETON = ((1, 2), (1, 3), (2, 3), (1, 4), (2, 5))

CATEGORIES: tuple[Category, ...] = (
    Category(1, "person", "person", PERSON_KEYPOINTS, PERSON_SKELETON),
    Category(17, "cat", "animal", CAT_KEYPOINTS, CAT_SKELETON),
    Category(47, "cup", "kitchen"),
    Category(50, "spoon", "kitchen"),
    Category(91, "rocket", "vehicle"),
    Category(92, "galaxy", "space"),
)


@dataclass(frozen=True)
class SampleObject:
    """One object in its reference photo's pixels: polygons (several when it is occluded) and
    named keypoints; "left"/"right" are the subject's own sides."""

    category: str
    polygons: tuple[tuple[Point, ...], ...]
    keypoints: Mapping[str, Keypoint] = field(default_factory=dict)


# Reference photo ("<class>/<name>", as in make_samples.TILES) -> the objects drawn on it.
OBJECTS: dict[str, tuple[SampleObject, ...]] = {
    "animal/cat": (
        SampleObject(
            "cat",
            ((
                (0, 115), (12, 108), (25, 90), (30, 60), (32, 30), (38, 0), (398, 0),
                (385, 30), (372, 60), (362, 90), (358, 120), (356, 150), (350, 185),
                (345, 215), (338, 245), (333, 270), (328, 300), (0, 300),
            ),),
            {
                "left_eye": (318, 136, 2),
                "right_eye": (170, 115, 2),
                "nose": (262, 242, 2),
                "left_ear": (360, 22, 2),
                "right_ear": (58, 14, 2),
            },
        ),
    ),
    "food/espresso": (
        SampleObject(
            "cup",
            ((
                (220, 34), (192, 57), (176, 88), (174, 119), (185, 155), (206, 205),
                (214, 228), (204, 245), (197, 288), (206, 302), (222, 307), (238, 302),
                (256, 278), (275, 286), (300, 289), (326, 284), (328, 268), (338, 255),
                (355, 247), (372, 238), (380, 222), (386, 200), (400, 163), (407, 127),
                (404, 95), (389, 65), (361, 39), (321, 22), (280, 18), (242, 24),
            ),),
        ),
        # The spoon's handle passes behind the cup: two polygons, one object.
        SampleObject(
            "spoon",
            (
                (
                    (399, 70), (410, 66), (420, 70), (423, 79), (417, 93), (411, 108),
                    (407, 122), (406, 108), (402, 90), (398, 76),
                ),
                (
                    (393, 197), (389, 215), (384, 232), (388, 245), (397, 257), (404, 272),
                    (406, 288), (401, 303), (390, 316), (372, 324), (352, 323), (337, 313),
                    (328, 297), (327, 278), (333, 262), (345, 252), (362, 247), (376, 240),
                    (381, 228), (387, 208),
                ),
            ),
        ),
    ),
    "people/astronaut": (
        SampleObject(
            "person",
            ((
                (225, 15), (280, 30), (296, 50), (301, 78), (296, 105),
                (284, 125), (268, 140), (258, 165), (287, 200), (303, 230), (347, 272), (355, 310), (362, 345), (330, 362), (305, 380),
                (282, 430), (278, 470), (279, 512), (21, 512), (19, 390),
                (40, 293), (64, 246), (109, 208), (116, 188), (145, 155), (180, 150),
                (178, 130), (165, 118), (158, 60), (180, 33),
            ),),
            {
                "nose": (223, 127, 2),
                "left_eye": (247, 103, 2),
                "right_eye": (203, 100, 2),
                "left_ear": (283, 118, 1),
                "right_ear": (172, 118, 1),
                "left_shoulder": (335, 262, 2),
                "right_shoulder": (95, 260, 2),
                "right_elbow": (40, 440, 1),
                "right_wrist": (140, 495, 1),
            },
        ),
        # The space shuttle model on the right.
        SampleObject(
            "rocket",
            ((
                (410, 2), (420, 6), (428, 30), (434, 50), (440, 42), (447, 42), (452, 55),
                (454, 120), (455, 200), (455, 250), (452, 268), (440, 270), (430, 258),
                (420, 250), (410, 262), (400, 272), (390, 265), (378, 250), (370, 238),
                (355, 228), (357, 212), (372, 190), (378, 150), (380, 100), (383, 60),
                (388, 42), (395, 45), (398, 20),
            ),),
        ),
    ),
    "people/cameraman": (
        SampleObject(
            "person",
            ((
                (173, 22), (222, 40), (233, 60), (230, 87), (222, 108),
                (213, 123), (212, 133), (225, 145), (240, 150), (262, 143), (270, 112),
                (285, 108), (292, 125), (290, 145), (275, 170), (267, 182), (267, 210),
                (233, 233), (200, 230), (180, 223), (150, 267), (120, 315),
                (0, 315), (0, 180), (33, 137), (50, 110), (100, 77),
                (130, 60), (143, 50), (155, 32),
            ),),
            {
                "nose": (222, 110, 2),
                "right_eye": (203, 98, 2),
                "right_ear": (160, 87, 2),
                "right_shoulder": (140, 130, 1),
                "right_elbow": (255, 205, 2),
                "right_wrist": (280, 128, 1),
            },
        ),
    ),
    "space/rocket_launch": (
        SampleObject(
            "rocket",
            ((
                (322, 128), (328, 132), (333, 142), (335, 155), (335, 176), (331, 180),
                (331, 300), (332, 400), (330, 408), (314, 408), (312, 400), (312, 300),
                (312, 180), (310, 176), (310, 155), (312, 142), (316, 132),
            ),),
        ),
    ),
    "space/deep_field_spiral": (
        SampleObject(
            "galaxy",
            ((
                (74, 129), (73, 132), (67, 139), (65, 146), (68, 159), (72, 164), (81, 169),
                (96, 168), (100, 163), (102, 152), (99, 148), (95, 137), (91, 134), (86, 134),
            ),),
        ),
        SampleObject(
            "galaxy",
            ((
                (274, 75), (269, 73), (264, 73), (261, 74), (258, 78), (257, 94), (260, 98),
                (269, 95), (272, 95), (281, 91), (279, 88), (278, 81),
            ),),
        ),
        SampleObject(
            "galaxy",
            ((
                (122, 46), (119, 47), (117, 49), (114, 51), (115, 53), (115, 64), (118, 69),
                (122, 66), (124, 62), (125, 59), (125, 51), (124, 48),
            ),),
        ),
    ),
}  # fmt: skip


class _SourceLike(Protocol):
    @property
    def filename(self) -> str: ...


class TileLike(Protocol):
    """What this module needs of ``make_samples.Tile``."""

    @property
    def label(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def source(self) -> _SourceLike: ...
    @property
    def box(self) -> tuple[int, int, int, int]: ...


@dataclass(frozen=True)
class Frame:
    """Where a tile sits in its source photograph: tile pixel = (source - origin) * scale."""

    file_name: str
    source: str
    left: float
    top: float
    scale_x: float
    scale_y: float
    width: int
    height: int

    def from_source(self, x: float, y: float) -> Point:
        return (x - self.left) * self.scale_x, (y - self.top) * self.scale_y

    def to_source(self, x: float, y: float) -> Point:
        return x / self.scale_x + self.left, y / self.scale_y + self.top


def frame_of(tile: TileLike, images: Path = IMAGES) -> Frame:
    """A tile's frame, from its crop box and the size of its JPEG as shipped."""
    file_name = f"{tile.label}/{tile.name}.jpg"
    with Image.open(images / file_name) as img:
        width, height = img.size
    left, top, right, bottom = tile.box
    return Frame(
        file_name,
        tile.source.filename,
        left,
        top,
        width / (right - left),
        height / (bottom - top),
        width,
        height,
    )


def polygon_area(points: Sequence[Point]) -> float:
    """Shoelace formula; the absolute area, whichever way the points go round."""
    twice = 0.0
    for (x0, y0), (x1, y1) in zip(points, [*points[1:], points[0]], strict=True):
        twice += x0 * y1 - x1 * y0
    return abs(twice) / 2


def clip_polygon(points: Sequence[Point], width: float, height: float) -> list[Point]:
    """Sutherland-Hodgman clip of a polygon to the rectangle [0, width] x [0, height]."""

    def clip_edge(pts: list[Point], axis: int, limit: float, keep_below: bool) -> list[Point]:
        def inside(p: Point) -> bool:
            return p[axis] <= limit if keep_below else p[axis] >= limit

        def crossing(a: Point, b: Point) -> Point:
            t = (limit - a[axis]) / (b[axis] - a[axis])
            return a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1])

        out: list[Point] = []
        for i, cur in enumerate(pts):
            prev = pts[i - 1]
            if inside(cur):
                if not inside(prev):
                    out.append(crossing(prev, cur))
                out.append(cur)
            elif inside(prev):
                out.append(crossing(prev, cur))
        return out

    pts = list(points)
    for axis, limit, keep_below in (
        (0, 0.0, False),
        (0, width, True),
        (1, 0.0, False),
        (1, height, True),
    ):
        if not pts:
            break
        pts = clip_edge(pts, axis, limit, keep_below)
    return pts


def _rounded(points: Iterable[Point]) -> list[Point]:
    """Round to DECIMALS and drop points that repeat the one before (clipping makes some)."""
    out: list[Point] = []
    for x, y in points:
        p = (round(x, DECIMALS), round(y, DECIMALS))
        if not out or p != out[-1]:
            out.append(p)
    if len(out) > 1 and out[0] == out[-1]:
        out.pop()
    return out


def _bbox(polygons: Sequence[Sequence[Point]]) -> list[float]:
    xs = [x for poly in polygons for x, _ in poly]
    ys = [y for poly in polygons for _, y in poly]
    x0, y0 = min(xs), min(ys)
    return [x0, y0, round(max(xs) - x0, DECIMALS), round(max(ys) - y0, DECIMALS)]


def _project(obj: SampleObject, ref: Frame, tile: Frame) -> dict[str, Any] | None:
    """The object as it appears in `tile` (without ids), or None when too little of it shows."""
    full: list[list[Point]] = []
    shown: list[list[Point]] = []
    for poly in obj.polygons:
        moved = [tile.from_source(*ref.to_source(x, y)) for x, y in poly]
        full.append(moved)
        clipped = _rounded(clip_polygon(moved, tile.width, tile.height))
        if len(clipped) >= 3 and polygon_area(clipped) > 0:
            shown.append(clipped)
    full_area = sum(polygon_area(p) for p in full)
    area = round(sum(polygon_area(p) for p in shown), DECIMALS)
    big_enough = (
        area >= MIN_VISIBLE * full_area or area >= MIN_TILE_SHARE * tile.width * tile.height
    )
    if area < MIN_AREA or not big_enough:
        return None
    entry: dict[str, Any] = {
        "segmentation": [[c for point in poly for c in point] for poly in shown],
        "area": area,
        "bbox": _bbox(shown),
        "iscrowd": 0,
    }
    names = next(c.keypoints for c in CATEGORIES if c.name == obj.category)
    if names:
        flat: list[float] = []
        for name in names:
            x, y, v = obj.keypoints.get(name, (0, 0, 0))
            tx, ty = tile.from_source(*ref.to_source(x, y))
            if v and 0 <= tx <= tile.width and 0 <= ty <= tile.height:
                flat += [round(tx, DECIMALS), round(ty, DECIMALS), v]
            else:  # not labelled, or cut off by this tile: COCO writes 0, 0, 0
                flat += [0, 0, 0]
        entry["keypoints"] = flat
        entry["num_keypoints"] = sum(1 for v in flat[2::3] if v)
    return entry


def build_coco(tiles: Sequence[TileLike], images: Path = IMAGES) -> dict[str, Any]:
    """The COCO instances document for `tiles` (``make_samples.TILES``), ids in tile order."""
    frames = {f"{t.label}/{t.name}": frame_of(t, images) for t in tiles}
    category_ids = {c.name: c.id for c in CATEGORIES}
    unknown = sorted(set(OBJECTS) - set(frames))
    if unknown:
        msg = f"OBJECTS names reference photos that are not tiles: {unknown}; fix the keys"
        raise ValueError(msg)
    doc_images: list[dict[str, Any]] = []
    annotations: list[dict[str, Any]] = []
    for image_id, tile in enumerate(frames.values(), start=1):
        doc_images.append(
            {
                "id": image_id,
                "file_name": tile.file_name,
                "width": tile.width,
                "height": tile.height,
            }
        )
        for ref_key, objects in OBJECTS.items():
            ref = frames[ref_key]
            if ref.source != tile.source:
                continue
            for obj in objects:
                entry = _project(obj, ref, tile)
                if entry is None:
                    continue
                annotations.append(
                    {
                        "id": len(annotations) + 1,
                        "image_id": image_id,
                        "category_id": category_ids[obj.category],
                        **entry,
                    }
                )
    categories: list[dict[str, Any]] = []
    for c in CATEGORIES:
        cat: dict[str, Any] = {"id": c.id, "name": c.name, "supercategory": c.supercategory}
        if c.keypoints:
            cat["keypoints"] = list(c.keypoints)
            cat["skeleton"] = [list(pair) for pair in c.skeleton]
        categories.append(cat)
    return {
        "info": {
            "description": "augexplorer sample photos: boxes, polygon masks and keypoints",
            "version": "1.0",
            "contributor": "augexplorer (annotations made by the project, same licence)",
        },
        "licenses": [],
        "images": doc_images,
        "annotations": annotations,
        "categories": categories,
    }


def dumps(doc: Mapping[str, Any]) -> str:
    """The file's exact text: one image, annotation or category per line, stable to diff."""
    lines = ["{"]
    keys = list(doc)
    for i, key in enumerate(keys):
        tail = "," if i < len(keys) - 1 else ""
        value = doc[key]
        if isinstance(value, list) and value:
            items = [json.dumps(v, separators=(", ", ": ")) for v in value]
            body = ",\n".join(f"    {item}" for item in items)
            lines.append(f'  "{key}": [\n{body}\n  ]{tail}')
        else:
            lines.append(f'  "{key}": {json.dumps(value)}{tail}')
    lines.append("}")
    return "\n".join(lines) + "\n"


def write_annotations(tiles: Sequence[TileLike], path: Path = ANNOTATIONS) -> dict[str, Any]:
    """Write ``annotations.json`` for `tiles`; returns the document written."""
    doc = build_coco(tiles, path.parent / "images")
    path.write_text(dumps(doc), encoding="utf-8")
    return doc


def main() -> None:
    # Run as a script next to make_samples.py (no package import, so no DALI needed).
    sys.path.insert(0, str(HERE))
    from make_samples import TILES

    doc = write_annotations(TILES)
    annotated = len({a["image_id"] for a in doc["annotations"]})
    sys.stdout.write(
        f"wrote {ANNOTATIONS.name}: {len(doc['images'])} images ({annotated} annotated), "
        f"{len(doc['annotations'])} annotations, {len(doc['categories'])} categories\n"
    )


if __name__ == "__main__":
    main()
