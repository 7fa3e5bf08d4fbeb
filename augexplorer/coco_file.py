"""A COCO annotations file, checked before DALI reads it.

DALI's ``readers.coco`` accepts what this module refuses: a box outside its image reaches
``bb_flip`` or ``random_bbox_crop`` as coordinates outside [0, 1], a zero-area box is dropped
without a word (``size_threshold``), a polygon of two points draws nothing. Here each such thing
is named with the file, the image id or the annotation id, and the fix; ``skip_bad`` leaves the
images that have them out instead (:func:`check_coco`).

The file is decoded once with msgspec (strict types where DALI reads a field, anything else
allowed), so a malformed file is one line naming where, never a traceback.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec

from .errors import DataError

_FIX_FILE = "fix the annotation, or open the source with skip_bad=True to leave such images out"


class _Image(msgspec.Struct):
    id: int
    file_name: str
    width: int
    height: int


class _Category(msgspec.Struct):
    id: int
    name: str = ""
    keypoints: list[str] = []
    skeleton: list[list[int]] = []


class _Annotation(msgspec.Struct):
    id: int
    image_id: int
    category_id: int
    bbox: list[float]
    iscrowd: int = 0
    # polygons ([[x1, y1, x2, y2, ...], ...]) or run-length encoded masks ({"counts", "size"})
    segmentation: list[list[float]] | dict[str, Any] | None = None
    keypoints: list[float] = []


class _CocoFile(msgspec.Struct):
    images: list[_Image]
    annotations: list[_Annotation] = []
    categories: list[_Category] = []


@dataclass(frozen=True)
class CocoObject:
    """One annotation, in the file's pixel coordinates."""

    id: int
    category_id: int
    box: tuple[float, float, float, float]  # x, y, width, height
    polygons: tuple[tuple[float, ...], ...] = ()
    keypoints: tuple[float, ...] = ()  # x, y, visibility, ...
    iscrowd: int = 0


@dataclass(frozen=True)
class CocoImage:
    id: int
    file_name: str
    width: int
    height: int
    objects: tuple[CocoObject, ...] = ()


@dataclass(frozen=True)
class CocoIndex:
    """A checked COCO file: its images (in the file's order) and categories.

    `labels` maps a category id to the label DALI's reader gives it: categories numbered from 1
    in the file's order unless ``avoid_class_remapping`` keeps the ids.
    """

    path: str
    images: tuple[CocoImage, ...]
    category_names: dict[int, str] = field(default_factory=dict)
    keypoint_names: dict[int, tuple[str, ...]] = field(default_factory=dict)
    skeletons: dict[int, tuple[tuple[int, int], ...]] = field(default_factory=dict)

    def labels(self, *, avoid_class_remapping: bool = False) -> dict[int, int]:
        if avoid_class_remapping:
            return {cid: cid for cid in self.category_names}
        return {cid: index for index, cid in enumerate(self.category_names, start=1)}

    def class_names(self, *, avoid_class_remapping: bool = False) -> dict[int, str]:
        """DALI label -> category name."""
        labels = self.labels(avoid_class_remapping=avoid_class_remapping)
        return {labels[cid]: name for cid, name in self.category_names.items()}

    def keypoint_objects(
        self, *, avoid_class_remapping: bool = False
    ) -> dict[int, tuple[tuple[int, tuple[tuple[int, int], ...]], ...]]:
        """Image id -> (label, skeleton) of each of its objects with keypoints, in the file's
        order (the rows of :func:`augexplorer.annotations.keypoints.keypoint_table`)."""
        labels = self.labels(avoid_class_remapping=avoid_class_remapping)
        return {
            image.id: tuple(
                (labels.get(obj.category_id, 0), self.skeletons.get(obj.category_id, ()))
                for obj in image.objects
                if obj.keypoints
            )
            for image in self.images
        }

    def image(self, file_name: str) -> CocoImage | None:
        return next((image for image in self.images if image.file_name == file_name), None)

    @functools.cached_property
    def largest_boxes(self) -> dict[str, tuple[float, float]]:
        """Per image's file name, the largest of its boxes' smaller sides, over every box and
        over the boxes that are no crowd (-inf where there is none): an image keeps a box at a
        size threshold t where that side is at least t. Worked out once per file."""
        none = float("-inf")
        largest: dict[str, tuple[float, float]] = {}
        for image in self.images:
            every = crowdless = none
            for o in image.objects:
                side = min(o.box[2], o.box[3])
                every = max(every, side)
                if not o.iscrowd:
                    crowdless = max(crowdless, side)
            largest[image.file_name] = (every, crowdless)
        return largest

    @functools.cached_property
    def _images_read(self) -> dict[tuple[Any, ...], int]:
        return {}  # images_read's counts, by file names and reader arguments


# readers.coco's default size_threshold: a box narrower or lower than this (in the file's
# pixels) is left out, and with skip_empty an image with no box left is not read
SIZE_THRESHOLD = 0.1


def images_read(
    index: CocoIndex,
    file_names: Sequence[str],
    *,
    skip_empty: bool,
    size_threshold: float,
    include_iscrowd: bool = True,
) -> int:
    """How many of `file_names` (images of `index`) DALI's ``readers.coco`` reads in an epoch:
    all of them, or with ``skip_empty`` those with a box at least ``size_threshold`` wide and
    high, crowd boxes counting unless ``include_iscrowd`` is false (measured on DALI 2.4: a
    0 x 0 box counts at size_threshold 0)."""
    if not skip_empty:
        return len(file_names)
    # every run's result asks (its epoch, its padding): counted once per list and arguments
    key = (tuple(file_names), size_threshold, include_iscrowd)
    counts = index._images_read
    if key not in counts:
        largest, column = index.largest_boxes, 0 if include_iscrowd else 1
        missing = (float("-inf"), float("-inf"))
        counts[key] = sum(
            largest.get(name, missing)[column] >= size_threshold for name in file_names
        )
    return counts[key]


def read_coco(path: Path) -> CocoIndex:
    """Decode and index a COCO file; a malformed file is a :class:`DataError` saying where."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise DataError(
            "annotations file not found", path=str(path), fix="give the COCO annotations file"
        ) from None
    except IsADirectoryError:
        raise DataError(
            "is a folder, not an annotations file",
            path=str(path),
            fix="give the COCO .json file; its images are read from file_root",
        ) from None
    except OSError as error:
        raise DataError(f"cannot be read ({error.strerror or error})", path=str(path)) from None
    try:
        decoded = msgspec.json.decode(raw, type=_CocoFile)
    except msgspec.ValidationError as error:
        raise DataError(
            f"not a COCO annotations file: {_where(error)}",
            path=str(path),
            fix="a COCO file holds 'images' (id, file_name, width, height), 'annotations' "
            "(id, image_id, category_id, bbox) and 'categories' (id, name)",
        ) from None
    except msgspec.DecodeError as error:
        raise DataError(
            f"malformed JSON: {error}", path=str(path), fix="repair the file's JSON"
        ) from None
    by_image: dict[int, list[CocoObject]] = {image.id: [] for image in decoded.images}
    for annotation in decoded.annotations:
        polygons = (
            tuple(tuple(p) for p in annotation.segmentation)
            if isinstance(annotation.segmentation, list)
            else ()
        )
        box = tuple(annotation.bbox) + (0.0,) * max(0, 4 - len(annotation.bbox))
        by_image.setdefault(annotation.image_id, []).append(
            CocoObject(
                annotation.id,
                annotation.category_id,
                (box[0], box[1], box[2], box[3]),
                polygons,
                tuple(annotation.keypoints),
                annotation.iscrowd,
            )
        )
    images = tuple(
        CocoImage(i.id, i.file_name, i.width, i.height, tuple(by_image.get(i.id, ())))
        for i in decoded.images
    )
    index = CocoIndex(
        str(path),
        images,
        category_names={c.id: c.name or str(c.id) for c in decoded.categories},
        keypoint_names={c.id: tuple(c.keypoints) for c in decoded.categories if c.keypoints},
        skeletons={
            c.id: tuple((pair[0], pair[1]) for pair in c.skeleton if len(pair) == 2)
            for c in decoded.categories
            if c.skeleton
        },
    )
    orphans = [a for a in decoded.annotations if a.image_id not in {i.id for i in images}]
    if orphans:
        shown = ", ".join(str(a.id) for a in orphans[:5])
        raise DataError(
            f"annotation(s) {shown} name an image id that is not in 'images'",
            path=str(path),
            fix="add the image to 'images' or remove the annotation",
        )
    return index


def write_subset(index: CocoIndex, file_names: Sequence[str], path: Path) -> Path:
    """A COCO file holding only the images `file_names` (each once, with its annotations) and
    every category of `index`, so that DALI numbers the labels exactly as in the whole file."""
    wanted = set(file_names)
    images = [image for image in index.images if image.file_name in wanted]
    categories = []
    for cid, name in index.category_names.items():
        category: dict[str, Any] = {"id": cid, "name": name}
        if cid in index.keypoint_names:
            category["keypoints"] = list(index.keypoint_names[cid])
        if cid in index.skeletons:
            category["skeleton"] = [list(pair) for pair in index.skeletons[cid]]
        categories.append(category)
    annotations = [
        {
            "id": obj.id,
            "image_id": image.id,
            "category_id": obj.category_id,
            "bbox": list(obj.box),
            "area": obj.box[2] * obj.box[3],
            "iscrowd": obj.iscrowd,
            **({"segmentation": [list(p) for p in obj.polygons]} if obj.polygons else {}),
            **({"keypoints": list(obj.keypoints)} if obj.keypoints else {}),
        }
        for image in images
        for obj in image.objects
    ]
    data = {
        "images": [
            {"id": i.id, "file_name": i.file_name, "width": i.width, "height": i.height}
            for i in images
        ],
        "annotations": annotations,
        "categories": categories,
    }
    path.write_bytes(msgspec.json.encode(data))
    return path


def _where(error: msgspec.ValidationError) -> str:
    text = str(error).replace("Object missing required field", "missing field")
    message, _, at = text.partition(" - at `$")
    return f"{at.rstrip('`').lstrip('.')}: {message}" if at else message


def problems_of(index: CocoIndex, image: CocoImage) -> Iterator[str]:
    """Why DALI would read an image's annotations wrongly: each reason names the annotation."""
    if image.width <= 0 or image.height <= 0:
        yield f"image id {image.id}: width and height must be positive ({image.width}x{image.height})"
        return
    for obj in image.objects:
        where = f"image id {image.id}, annotation id {obj.id}"
        x, y, w, h = obj.box
        if obj.category_id not in index.category_names:
            yield f"{where}: unknown category id {obj.category_id}"
        if w <= 0 or h <= 0:
            yield f"{where}: zero-area box {list(obj.box)}"
        elif x < 0 or y < 0 or x + w > image.width + 0.5 or y + h > image.height + 0.5:
            yield (
                f"{where}: box {list(obj.box)} lies outside the {image.width}x{image.height} image"
            )
        for polygon in obj.polygons:
            if len(polygon) < 6 or len(polygon) % 2:
                yield f"{where}: a polygon needs at least 3 points (x, y pairs), got {len(polygon)} numbers"


@dataclass(frozen=True)
class CheckedCoco:
    index: CocoIndex
    kept: tuple[CocoImage, ...]
    bad: tuple[tuple[str, str], ...]  # (image file, reason)


def check_coco(index: CocoIndex, skip_bad: bool) -> CheckedCoco:
    """Split images into those DALI reads right and those with a bad annotation; without
    `skip_bad`, any bad annotation raises one error naming them (five at most, then a count)."""
    kept: list[CocoImage] = []
    bad: list[tuple[str, str]] = []
    for image in index.images:
        reasons = list(problems_of(index, image))
        if reasons:
            bad.append((image.file_name, "; ".join(reasons)))
        else:
            kept.append(image)
    if bad and (not skip_bad or not kept):
        lines = [reason for _, reason in bad]
        shown = "; ".join(lines[:5]) + (f"; and {len(lines) - 5} more" if len(lines) > 5 else "")
        raise DataError(shown, path=index.path, fix=_FIX_FILE)
    return CheckedCoco(index, tuple(kept), tuple(bad))
