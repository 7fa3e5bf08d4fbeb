"""Data sources: the bundled samples, a folder tree, a file list, or in-memory arrays.

Everything a source needs is checked here, when it is opened, so a bad folder or file list gives
an error naming the file and line instead of a DALI failure mid-run.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .errors import DataError
from .spec import Source

IMAGE_SUFFIXES = frozenset(
    {".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp", ".jp2", ".pnm", ".ppm", ".pgm"}
)


def samples_dir() -> Path:
    """The bundled sample photos: class sub-folders of JPEGs (see samples/LICENSES.md)."""
    return Path(__file__).parent / "samples" / "images"


@dataclass(frozen=True)
class SourceData:
    """A source, opened: the files it reads and the label(s) of each.

    `labels` holds one integer per file; for a multi-label file list it holds each file's index and
    `label_table` the labels of every file (row = index), since a DALI reader carries one
    integer label per file.
    """

    kind: str
    files: tuple[str, ...] = ()
    labels: tuple[int, ...] = ()
    file_root: str | None = None
    classes: tuple[str, ...] = ()
    label_table: np.ndarray | None = None
    arrays: tuple[np.ndarray, ...] = field(default=(), repr=False)

    def __len__(self) -> int:
        return len(self.arrays) if self.kind == "arrays" else len(self.files)

    @property
    def multi_label(self) -> bool:
        return self.label_table is not None

    def labels_of(self, label: int) -> list[int]:
        """The label(s) a reader label stands for."""
        if self.label_table is not None:
            return [int(x) for x in self.label_table[label]]
        return [int(label)]

    def caption(self, label: int) -> str:
        values = self.labels_of(label)
        if self.classes and len(values) == 1 and 0 <= values[0] < len(self.classes):
            return self.classes[values[0]]
        return " ".join(map(str, values))


def open_source(source: Source, arrays: Any = None) -> SourceData:
    """Check and index a source; raises :class:`DataError` naming the path and the fix."""
    if source.kind == "samples":
        return _folder(samples_dir())
    if source.kind == "folder":
        return _folder(Path(source.path or ""))
    if source.kind == "file_list":
        return _file_list(Path(source.path or ""))
    if source.kind == "arrays":
        return _arrays(source, arrays)
    raise DataError(
        f"unknown source kind {source.kind!r}", fix="use samples, folder, file_list or arrays"
    )


def _folder(root: Path) -> SourceData:
    if not root.exists():
        raise DataError(
            "folder not found", path=str(root), fix="check the path, or use the bundled samples"
        )
    if not root.is_dir():
        raise DataError(
            "not a folder", path=str(root), fix="give the folder that holds the class sub-folders"
        )
    classes = sorted(p.name for p in root.iterdir() if p.is_dir() and not p.name.startswith("."))
    files: list[str] = []
    labels: list[int] = []
    if classes:
        for label, name in enumerate(classes):
            for path in sorted((root / name).iterdir()):
                if path.is_file() and path.suffix.lower() in IMAGE_SUFFIXES:
                    files.append(str(path))
                    labels.append(label)
    else:
        files = [
            str(p)
            for p in sorted(root.iterdir())
            if p.is_file() and p.suffix.lower() in IMAGE_SUFFIXES
        ]
        labels = [0] * len(files)
    if not files:
        raise DataError(
            "no images found (looked for "
            + ", ".join(sorted(IMAGE_SUFFIXES))
            + " files in class sub-folders)",
            path=str(root),
            fix="point at a folder with one sub-folder of images per class",
        )
    return SourceData(
        kind="folder",
        files=tuple(files),
        labels=tuple(labels),
        file_root=str(root),
        classes=tuple(classes),
    )


def _file_list(path: Path) -> SourceData:
    if not path.exists():
        raise DataError("file list not found", path=str(path), fix="check the path")
    if not path.is_file():
        raise DataError(
            "not a file",
            path=str(path),
            fix="give a text file with 'image label [label ...]' per line",
        )
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise DataError(
            "not a text file",
            path=str(path),
            fix="a file list has one 'image label [label ...]' per line",
        ) from None
    files: list[str] = []
    rows: list[list[int]] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        parts = line.split()
        if len(parts) < 2:
            raise DataError(
                f"line {number}: expected an image path and at least one integer label, got {line!r}",
                path=str(path),
                fix="write 'path/to/image.jpg 3' (or several labels: 'image.jpg 3 7 12')",
            )
        image, *label_text = parts
        try:
            label_values = [int(x) for x in label_text]
        except ValueError:
            raise DataError(
                f"line {number}: labels must be integers, got {' '.join(label_text)!r}",
                path=str(path),
                fix="map class names to integer ids",
            ) from None
        if any(v < 0 for v in label_values):
            raise DataError(
                f"line {number}: labels must be >= 0",
                path=str(path),
                fix="use non-negative class ids",
            )
        if rows and len(label_values) != len(rows[0]):
            raise DataError(
                f"line {number}: {len(label_values)} label(s), but line 1 has {len(rows[0])}; every line needs the same number",
                path=str(path),
                fix="pad lines to the same label count, or use one label per line",
            )
        image_path = (path.parent / image) if not Path(image).is_absolute() else Path(image)
        if not image_path.is_file():
            raise DataError(
                f"line {number}: image {image!r} not found (looked at {image_path})",
                path=str(path),
                fix="fix the path or drop the line",
            )
        files.append(str(image_path))
        rows.append(label_values)
    if not files:
        raise DataError(
            "the file list names no images", path=str(path), fix="add lines 'image.jpg label'"
        )
    if len(rows[0]) == 1:
        return SourceData(kind="file_list", files=tuple(files), labels=tuple(r[0] for r in rows))
    return SourceData(
        kind="file_list",
        files=tuple(files),
        labels=tuple(range(len(files))),
        label_table=np.asarray(rows, dtype=np.int64),
    )


def _arrays(source: Source, arrays: Any) -> SourceData:
    if arrays is None:
        raise DataError(
            f"source {source.id!r} reads in-memory arrays, but none were given",
            fix="pass data=(images, labels) or data=[array, ...] when opening the session",
        )
    images, labels = arrays if isinstance(arrays, tuple) and len(arrays) == 2 else (arrays, None)
    images = [np.ascontiguousarray(image) for image in images]
    if not images:
        raise DataError("the image array list is empty", fix="give at least one image")
    for index, image in enumerate(images):
        if image.ndim not in (2, 3) or image.dtype != np.uint8:
            raise DataError(
                f"image {index}: expected a uint8 HxW or HxWxC array, got {image.dtype} with shape {image.shape}",
                fix="convert with np.asarray(img, dtype=np.uint8)",
            )
    images = [image[:, :, None] if image.ndim == 2 else image for image in images]
    label_list = [0] * len(images) if labels is None else [int(x) for x in labels]
    if len(label_list) != len(images):
        raise DataError(
            f"{len(images)} images but {len(label_list)} labels", fix="give one label per image"
        )
    return SourceData(kind="arrays", labels=tuple(label_list), arrays=tuple(images))
