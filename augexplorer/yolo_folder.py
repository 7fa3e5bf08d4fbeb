"""A YOLO folder (images with one ``.txt`` label file each) turned into a COCO file, so that DALI's
``readers.coco`` reads it and everything after the reader is the COCO source's.

The layout is YOLO's: ``images/a.jpg`` is labelled by ``labels/a.txt`` (the last ``images``
folder of the path replaced by ``labels``), else by ``a.txt`` beside the image; an image with no
label file has no objects. Each line of a label file is ``class cx cy w h``: the box's centre and
size as fractions of the image's size, or, in a segmentation dataset, ``class x1 y1 x2 y2 x3 y3
...``: a polygon's points as fractions (read as a COCO polygon, with the box around it; a source
with ``polygon_masks=True`` gives them). In a pose dataset (``kpt_shape`` in ``data.yaml``) a line
is a box followed by its keypoints, which a source with ``keypoints=True`` gives. Class names come from ``classes.txt`` (one a line) or the
``names:`` of ``data.yaml``/``dataset.yaml`` at the folder's top; without them a class is named by
its number. Category ids are the class numbers plus one, listed in order, so DALI's labels are
the class numbers plus one.

The functions that convert (:data:`CARRIED`) use nothing but ``os``, ``json`` and ``hashlib``:
an exported module carries their source and converts the same folder when its pipeline is built,
so its outputs are the explorer's.
"""

from __future__ import annotations

import hashlib
import json
import os
from typing import Any

from .folder_listing import HIDDEN_NAMES, IMAGE_SUFFIXES

YOLO_IMAGE_SUFFIXES = tuple(sorted(IMAGE_SUFFIXES))
YOLO_HIDDEN_NAMES = HIDDEN_NAMES
# How far past the image's border (as a fraction of its size) a box edge may reach and be clipped:
# writers round, and 1.0000001 is not a labelling mistake.
YOLO_EDGE_SLACK = 1e-4
# Part of every cached conversion's name: a new way of converting must not read an old file
# (2: sizes as DALI's decoder turns EXIF-rotated JPEGs; 3: segmentation lines as polygons;
# 4: pose datasets' keypoints; 5: a labelled keypoint off the image refused, the rest clamped).
YOLO_CONVERSION = "yolo-to-coco 5"
YOLO_LINE_FIX = (
    "write each line as 'class cx cy w h' (a whole class number, then the box's centre and size "
    "as fractions of the image's size in [0, 1]) or 'class x1 y1 x2 y2 x3 y3 ...' (a polygon's "
    "points), or open the source with skip_bad=True to leave such images out"
)
YOLO_POSE_LINE_FIX = (
    "write each line as 'class cx cy w h' and then kpt_shape's points as 'x y v' (fractions of "
    "the image's size in [0, 1]; v is 0 for a point not labelled, 1 hidden, 2 visible; a point "
    "outside the image is written 0 0 0), or open the source with skip_bad=True to leave such "
    "images out"
)


def yolo_image_size(path: str) -> tuple[int, int] | None:
    """(width, height) of a JPEG or PNG from its header, as DALI's decoder shows the image: a
    JPEG whose EXIF orientation turns it a quarter (5-8) has the two swapped, since YOLO label
    lines are fractions of the picture as it is seen. None for any other file."""
    turned = False  # by the EXIF orientation, read before the frame's size
    with open(path, "rb") as stream:
        head = stream.read(24)
        if head[:8] == b"\x89PNG\r\n\x1a\n" and len(head) == 24:
            return int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")
        if head[:2] != b"\xff\xd8":
            return None
        stream.seek(2)
        while True:
            marker = stream.read(2)
            if len(marker) < 2 or marker[0] != 0xFF:
                return None
            if marker[1] == 0xFF:  # fill byte before a marker
                stream.seek(-1, 1)
                continue
            if marker[1] == 0x01 or 0xD0 <= marker[1] <= 0xD8:  # markers with no length
                continue
            length = int.from_bytes(stream.read(2), "big")
            if 0xC0 <= marker[1] <= 0xCF and marker[1] not in (0xC4, 0xC8, 0xCC):  # start of frame
                frame = stream.read(5)
                width, height = int.from_bytes(frame[3:5], "big"), int.from_bytes(frame[1:3], "big")
                return (height, width) if turned else (width, height)
            if marker[1] == 0xE1:  # APP1: EXIF, whose orientation tag (0x0112) may turn the image
                segment = stream.read(length - 2)
                if segment[:6] == b"Exif\x00\x00" and segment[6:8] in (b"II", b"MM"):
                    tiff, big = segment[6:], segment[6:8] == b"MM"
                    ifd = int.from_bytes(tiff[4:8], "big" if big else "little")
                    entries = int.from_bytes(tiff[ifd : ifd + 2], "big" if big else "little")
                    for index in range(entries):
                        entry = tiff[ifd + 2 + 12 * index : ifd + 14 + 12 * index]
                        if int.from_bytes(entry[0:2], "big" if big else "little") == 0x0112:
                            value = int.from_bytes(entry[8:10], "big" if big else "little")
                            turned = value in (5, 6, 7, 8)
                continue
            stream.seek(length - 2, 1)


def yolo_class_names(folder: str) -> list[str] | None:
    """The class names of ``classes.txt``, else of the ``names:`` of ``data.yaml`` (a list
    written inline or one ``- name`` or ``number: name`` a line); None when neither names any."""
    listed = os.path.join(folder, "classes.txt")
    if os.path.isfile(listed):
        with open(listed, encoding="utf-8") as file:
            return [line.strip() for line in file if line.strip()]
    for yaml_name in ("data.yaml", "dataset.yaml"):
        path = os.path.join(folder, yaml_name)
        if not os.path.isfile(path):
            continue
        with open(path, encoding="utf-8") as file:
            lines = file.read().splitlines()
        for index, line in enumerate(lines):
            if not line.startswith("names:"):
                continue
            inline = line[len("names:") :].split("#")[0].strip()
            if inline.startswith("["):
                items = inline.strip("[]").split(",")
            else:
                items = []
                for entry in lines[index + 1 :]:
                    if not entry.startswith((" ", "\t", "-")) or not entry.strip():
                        break
                    entry = entry.strip()
                    items.append(entry[1:] if entry.startswith("-") else entry.partition(":")[2])
            names = [item.strip().strip("'\"") for item in items]
            return [name for name in names if name] or None
    return None


def yolo_keypoint_shape(folder: str) -> list[int] | None:
    """``kpt_shape: [points, values]`` of ``data.yaml`` (a pose dataset: every line is a box and
    that many keypoints of x, y and, with 3 values, a visibility); None when it says none."""
    for yaml_name in ("data.yaml", "dataset.yaml"):
        path = os.path.join(folder, yaml_name)
        if not os.path.isfile(path):
            continue
        with open(path, encoding="utf-8") as file:
            for line in file.read().splitlines():
                if line.startswith("kpt_shape:"):
                    value = line[len("kpt_shape:") :].split("#")[0]
                    shape = [
                        int(item)
                        for item in value.strip(" []").split(",")
                        if item.strip().isdigit()
                    ]
                    if len(shape) == 2 and shape[0] > 0 and shape[1] in (2, 3):
                        return shape
    return None


def yolo_label_file(folder: str, file_name: str) -> str | None:
    """The label file of image `file_name` (relative to `folder`): under ``labels`` in place of
    the last ``images`` folder of its path, else beside it; None when there is none."""
    stem = os.path.splitext(file_name)[0]
    parts = stem.split("/")
    candidates = []
    if "images" in parts[:-1]:
        last = len(parts) - 2 - parts[-2::-1].index("images")
        candidates.append("/".join([*parts[:last], "labels", *parts[last + 1 :]]) + ".txt")
    candidates.append(stem + ".txt")
    for candidate in candidates:
        if os.path.isfile(os.path.join(folder, candidate)):
            return candidate
    return None


def yolo_box(
    line: str, class_count: int | None, keypoint_shape: list[int] | None = None
) -> tuple[int, list[float], list[float], list[float]] | str:
    """(class, [left, top, right, bottom], polygon, keypoints) of one label line, all as
    fractions of the image, or what is wrong with it. A box line (``class cx cy w h``) has no
    polygon (empty); a segmentation line (``class x1 y1 x2 y2 x3 y3 ...``) gives its points (x, y,
    x, y, ...) and the box around them. In a pose dataset (`keypoint_shape`, from ``kpt_shape``)
    a line is a box and its keypoints, given as x, y, visibility each (COCO's 0: not labelled,
    1: hidden, 2: visible; 2 where only x, y are written and they are not 0, 0)."""
    values = line.split()
    keypoints: list[float] = []
    low, high = -YOLO_EDGE_SLACK, 1 + YOLO_EDGE_SLACK  # a fraction of the image, give or take
    if keypoint_shape is not None:
        points, per_point = keypoint_shape
        if len(values) != 5 + points * per_point:
            return (
                f"{len(values)} values, expected {5 + points * per_point}: class cx cy w h and "
                f"{points} keypoints of {per_point} values each (kpt_shape in data.yaml)"
            )
        try:
            written = [float(value) for value in values[5:]]
        except ValueError:
            return f"{' '.join(values[5:])!r}: the keypoints must be numbers"
        for index in range(points):
            x, y = written[index * per_point], written[index * per_point + 1]
            if per_point == 3:
                visibility = written[index * per_point + 2]
            else:
                visibility = 2.0 if (x, y) != (0.0, 0.0) else 0.0
            if visibility not in (0.0, 1.0, 2.0):
                return f"keypoint {index}: visibility {visibility:g} is not 0, 1 or 2"
            if visibility and not (low <= x <= high and low <= y <= high):
                # pose datasets write a point outside the picture as 0 0 0: a labelled one
                # there would be drawn, and trained on, off the image
                return (
                    f"keypoint {index}: x {x:g}, y {y:g} is outside [0, 1] (fractions of the "
                    "image's size); a point outside the image is written 0 0 0"
                )
            keypoints += [min(max(x, 0.0), 1.0), min(max(y, 0.0), 1.0), visibility]
        values = values[:5]
    if len(values) != 5 and (len(values) < 7 or len(values) % 2 == 0):
        return (
            f"{len(values)} values, expected 5: class cx cy w h "
            "(or a class and three or more x y points: class x1 y1 x2 y2 x3 y3 ...)"
        )
    try:
        label = int(values[0])
    except ValueError:
        return f"class {values[0]!r} is not a whole number"
    if label < 0 or (class_count is not None and label >= class_count):
        return f"class {label} is not one of the {class_count or 0} names (0 to {(class_count or 1) - 1})"
    try:
        numbers = [float(value) for value in values[1:]]
    except ValueError:
        what = "cx cy w h" if len(values) == 5 else "the points' x y"
        return f"{' '.join(values[1:])!r}: {what} must be numbers"
    polygon: list[float] = []
    if len(values) == 5:
        cx, cy, w, h = numbers
        left, top, right, bottom = cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2
    else:
        polygon = numbers
        left, right = min(numbers[0::2]), max(numbers[0::2])
        top, bottom = min(numbers[1::2]), max(numbers[1::2])
        w, h = right - left, bottom - top
    if not (w > 0 and h > 0):
        return f"zero-area box (w {w:g}, h {h:g})"
    if not (low <= left and low <= top and right <= high and bottom <= high):
        return (
            f"box x {left:g} to {right:g}, y {top:g} to {bottom:g} reaches outside [0, 1] "
            "(YOLO coordinates are fractions of the image's size)"
        )
    clipped = [max(left, 0.0), max(top, 0.0), min(right, 1.0), min(bottom, 1.0)]
    return label, clipped, [min(max(value, 0.0), 1.0) for value in polygon], keypoints


def yolo_images(folder: str) -> list[str]:
    """The images under `folder` (names relative to it, ``/``-separated, sorted); hidden names
    left out."""
    found = []
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in YOLO_HIDDEN_NAMES)
        relative = os.path.relpath(root, folder).replace(os.sep, "/")
        for name in files:
            hidden = name.startswith(".") or name in YOLO_HIDDEN_NAMES
            if not hidden and os.path.splitext(name)[1].lower() in YOLO_IMAGE_SUFFIXES:
                found.append(name if relative == "." else relative + "/" + name)
    return sorted(found)


def scan_yolo(folder: str) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    """The COCO form of a YOLO folder and its problems, (image name, reason naming the label
    file and line). An image with a problem is left out of the COCO form."""
    names = yolo_class_names(folder)
    classes = None if names is None else len(names)
    keypoint_shape = yolo_keypoint_shape(folder)
    images: list[dict[str, Any]] = []
    annotations: list[dict[str, Any]] = []
    problems: list[tuple[str, str]] = []
    top_class = -1
    for file_name in yolo_images(folder):
        size = yolo_image_size(os.path.join(folder, file_name))
        if size is None or size[0] <= 0 or size[1] <= 0:
            problems.append((file_name, f"{file_name}: size not readable (JPEG and PNG are read)"))
            continue
        width, height = size
        label_file = yolo_label_file(folder, file_name)
        boxes, reasons = [], []
        if label_file is not None:
            with open(os.path.join(folder, label_file), encoding="utf-8", errors="replace") as file:
                for number, line in enumerate(file, start=1):
                    if line.strip():
                        found = yolo_box(line, classes, keypoint_shape)
                        if isinstance(found, str):
                            reasons.append(f"{label_file} line {number}: {found}")
                        else:
                            boxes.append(found)
        if reasons:
            problems.append((file_name, "; ".join(reasons)))
            continue
        image_id = len(images) + 1
        images.append({"id": image_id, "file_name": file_name, "width": width, "height": height})
        for label, (left, top, right, bottom), polygon, keypoints in boxes:
            box = [left * width, top * height, (right - left) * width, (bottom - top) * height]
            annotation = {
                "id": len(annotations) + 1,
                "image_id": image_id,
                "category_id": label + 1,
                "bbox": box,
                "area": box[2] * box[3],
                "iscrowd": 0,
            }
            if polygon:  # x, y, x, y, ... in pixels
                points = [v * (height if i % 2 else width) for i, v in enumerate(polygon)]
                annotation["segmentation"] = [points]
            if keypoint_shape is not None:  # x, y in pixels, visibility
                scales = [width, height, 1]
                annotation["keypoints"] = [v * scales[i % 3] for i, v in enumerate(keypoints)]
                annotation["num_keypoints"] = len([v for v in keypoints[2::3] if v > 0])
            annotations.append(annotation)
            top_class = max(top_class, label)
    if names is None:
        names = [str(label) for label in range(top_class + 1)]
    categories = [{"id": label + 1, "name": name} for label, name in enumerate(names)]
    if keypoint_shape is not None:  # YOLO names no keypoints: numbered, no skeleton
        for category in categories:
            category["keypoints"] = [str(point) for point in range(keypoint_shape[0])]
    return {"images": images, "annotations": annotations, "categories": categories}, problems


def yolo_to_coco(folder: str) -> dict[str, Any]:
    """The COCO form of a YOLO folder: images (names relative to `folder`) with their sizes,
    one annotation per label line (box in pixels), categories ``class + 1``; images whose label
    file has a bad line are left out (:func:`scan_yolo` says which and why)."""
    return scan_yolo(folder)[0]


def yolo_cache_file(folder: str) -> str:
    """Where the COCO form of `folder` is kept: a name made of the folder's path and the size and
    modification time of every file in it, under ``$XDG_CACHE_HOME/augexplorer`` (default
    ``~/.cache/augexplorer``)."""
    folder = os.path.abspath(folder)
    stamps = [YOLO_CONVERSION, folder]
    for root, dirs, files in os.walk(folder):
        dirs.sort()
        for name in sorted(files):
            info = os.stat(os.path.join(root, name))
            stamps.append(
                f"{os.path.relpath(os.path.join(root, name), folder)} {info.st_size} {info.st_mtime_ns}"
            )
    digest = hashlib.sha256("\n".join(stamps).encode("utf-8")).hexdigest()[:20]
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(cache, "augexplorer", "yolo", f"{digest}.json")


def yolo_annotations_file(folder: str, coco: dict[str, Any] | None = None) -> str:
    """The COCO file of a YOLO folder (`coco`, else :func:`yolo_to_coco`), written into the cache
    unless the folder's unchanged form is there already; its image names are relative to `folder`."""
    path = yolo_cache_file(folder)
    if not os.path.isfile(path):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        written = f"{path}.{os.getpid()}.tmp"
        with open(written, "w", encoding="utf-8") as file:
            json.dump(yolo_to_coco(folder) if coco is None else coco, file)
        os.replace(written, path)  # whole or not at all, for a reader at the same time
    return path


# What an exported module carries, in order (constants first).
CARRIED_CONSTANTS = (
    "YOLO_IMAGE_SUFFIXES",
    "YOLO_HIDDEN_NAMES",
    "YOLO_EDGE_SLACK",
    "YOLO_CONVERSION",
)
CARRIED = (
    yolo_image_size,
    yolo_class_names,
    yolo_keypoint_shape,
    yolo_label_file,
    yolo_box,
    yolo_images,
    scan_yolo,
    yolo_to_coco,
    yolo_cache_file,
    yolo_annotations_file,
)
