"""Data sources: the bundled samples, a folder tree, a file list, or in-memory arrays.

Everything a source needs is checked here, when it is opened, so a bad folder or file list gives
an error naming the file and line instead of a DALI failure mid-run.

DALI cannot skip a file it fails to read or decode (a reader has no way to hand a decoder a
replacement sample), so skipping happens here: ``open_source(..., skip_bad=True)`` pre-scans every
file with a cheap header check and leaves out the ones that would fail, listing them with the
reason in :attr:`SourceData.skipped`.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterable
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
    skipped: tuple[tuple[str, str], ...] = ()  # (path, reason) of files left out by skip_bad

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


def source_for_path(path: str, *, skip_bad: bool = False) -> Source:
    """The source that reads `path`: a folder of class sub-folders, or a file list."""
    if os.path.isdir(path):
        return Source("source", "folder", path, skip_bad=skip_bad)
    if os.path.isfile(path):
        return Source("source", "file_list", path, skip_bad=skip_bad)
    raise DataError(
        "no such folder or file list",
        path=path,
        fix="give a folder of class sub-folders or a file list",
    )


def open_source(source: Source, arrays: Any = None, *, skip_bad: bool = False) -> SourceData:
    """Check and index a source; raises :class:`DataError` naming the path and the fix.

    Empty and unreadable files are always found (they cost one ``stat`` each, taken while
    listing). With `skip_bad`, every file is also pre-scanned (:func:`check_image`) and the ones
    that fail, or that a file list names but do not exist, are left out and listed in
    :attr:`SourceData.skipped` instead of raising.
    """
    if source.kind == "samples":
        return _folder(samples_dir(), skip_bad)
    if source.kind == "folder":
        return _folder(Path(source.path or ""), skip_bad)
    if source.kind == "file_list":
        return _file_list(Path(source.path or ""), skip_bad)
    if source.kind == "arrays":
        return _arrays(source, arrays)
    raise DataError(
        f"unknown source kind {source.kind!r}", fix="use samples, folder, file_list or arrays"
    )


# ---- checking files ----------------------------------------------------------------------------

JPEG_SUFFIXES = frozenset({".jpg", ".jpeg"})
_JPEG_END = b"\xff\xd9"
_TAIL_BYTES = 4096  # where a JPEG's end marker must be (some writers pad after it)
_SHOWN = 5  # files named in an error before "and N more"


def _can_read(path: str) -> bool:
    return os.access(path, os.R_OK)


def quick_problem(path: str, size: int) -> str | None:
    """What is wrong with a file that a ``stat`` shows (empty, unreadable), or None."""
    if size == 0:
        return "empty file (0 bytes)"
    if not _can_read(path):
        return "cannot be read (permission denied)"
    return None


def check_image(path: str) -> str | None:
    """Why DALI would fail to read or decode `path`, from a cheap look at it; None if it looks fine.

    Reads the header (Pillow's ``Image.open`` and ``verify``, which for PNG checks every chunk)
    and, for JPEG, that the end-of-image marker is there, which a truncated file lacks. It does
    not decode pixels, so a file whose compressed data is damaged in the middle can pass; the
    live engine then names it when its decoder fails.
    """
    from PIL import Image, UnidentifiedImageError

    try:
        size = os.stat(path).st_size
    except FileNotFoundError:
        return "file not found"
    except OSError as error:
        return f"cannot be read ({error.strerror or error})"
    problem = quick_problem(path, size)
    if problem:
        return problem
    try:
        with warnings.catch_warnings():
            # Huge images are fine for DALI; Pillow's decompression-bomb guard is not ours.
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(path) as image:
                image_format = image.format
                image.verify()
    except Image.DecompressionBombError:
        return None
    except UnidentifiedImageError:
        return "not an image (unknown format)"
    except PermissionError:
        return "cannot be read (permission denied)"
    except (OSError, SyntaxError, ValueError) as error:  # Pillow's ways of saying "corrupt"
        return f"corrupt image ({error})"
    if image_format == "JPEG" and not _jpeg_has_end(path, size):
        return "truncated JPEG (no end-of-image marker)"
    return None


def _jpeg_has_end(path: str, size: int) -> bool:
    with open(path, "rb") as stream:
        stream.seek(max(0, size - _TAIL_BYTES))
        return _JPEG_END in stream.read()


def _bad_files_error(bad: list[tuple[str, str]], where: str) -> DataError:
    shown = "; ".join(f"{path}: {reason}" for path, reason in bad[:_SHOWN])
    more = f"; and {len(bad) - _SHOWN} more" if len(bad) > _SHOWN else ""
    noun = "file" if len(bad) == 1 else "files"
    return DataError(
        f"{len(bad)} {noun} cannot be read: {shown}{more}",
        path=where,
        fix="remove or replace them, or open the source with skip_bad=True to leave them out",
    )


def _keep_good(
    candidates: Iterable[tuple[str, int, int]], skip_bad: bool, where: str
) -> tuple[list[tuple[str, int]], list[tuple[str, str]]]:
    """Split (path, size, label) into kept (path, label) and skipped (path, reason).

    Without `skip_bad` an empty or unreadable file raises; with it, every file is pre-scanned.
    """
    kept: list[tuple[str, int]] = []
    bad: list[tuple[str, str]] = []
    for path, size, label in candidates:
        reason = check_image(path) if skip_bad else quick_problem(path, size)
        if reason is None:
            kept.append((path, label))
        else:
            bad.append((path, reason))
    if bad and not skip_bad:
        raise _bad_files_error(bad, where)
    return kept, bad


# ---- folders -----------------------------------------------------------------------------------


def _images_in(folder: Path) -> list[tuple[str, int]]:
    """(path, size) of the image files directly in `folder`, sorted by name."""
    found = []
    with os.scandir(folder) as entries:
        for entry in entries:
            if entry.is_file() and Path(entry.name).suffix.lower() in IMAGE_SUFFIXES:
                found.append((entry.path, entry.stat().st_size))
    return sorted(found)


def _folder(root: Path, skip_bad: bool = False) -> SourceData:
    if not root.exists():
        raise DataError(
            "folder not found", path=str(root), fix="check the path, or use the bundled samples"
        )
    if not root.is_dir():
        raise DataError(
            "not a folder", path=str(root), fix="give the folder that holds the class sub-folders"
        )
    if not _can_read(str(root)):
        raise DataError("folder cannot be read (permission denied)", path=str(root))
    classes = sorted(p.name for p in root.iterdir() if p.is_dir() and not p.name.startswith("."))
    candidates: list[tuple[str, int, int]] = []
    if classes:
        for label, name in enumerate(classes):
            candidates += [(path, size, label) for path, size in _images_in(root / name)]
    else:
        candidates = [(path, size, 0) for path, size in _images_in(root)]
    if not candidates:
        raise DataError(
            "no images found (looked for "
            + ", ".join(sorted(IMAGE_SUFFIXES))
            + " files in class sub-folders)",
            path=str(root),
            fix="point at a folder with one sub-folder of images per class",
        )
    kept, skipped = _keep_good(candidates, skip_bad, str(root))
    if not kept:
        raise _bad_files_error(skipped, str(root))
    return SourceData(
        kind="folder",
        files=tuple(path for path, _ in kept),
        labels=tuple(label for _, label in kept),
        # DALI lists a file_root itself; with files left out the reader gets the list instead.
        file_root=None if skipped else str(root),
        classes=tuple(classes),
        skipped=tuple(skipped),
    )


def _file_list(path: Path, skip_bad: bool = False) -> SourceData:
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
    missing: list[tuple[str, str]] = []
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
            if skip_bad:
                missing.append((str(image_path), f"line {number}: file not found"))
                rows.append(label_values)  # keeps the label count check honest
                files.append("")
                continue
            raise DataError(
                f"line {number}: image {image!r} not found (looked at {image_path})",
                path=str(path),
                fix="fix the path or drop the line (or open the source with skip_bad=True)",
            )
        files.append(str(image_path))
        rows.append(label_values)
    if not files:
        raise DataError(
            "the file list names no images", path=str(path), fix="add lines 'image.jpg label'"
        )
    listed = [(file, row) for file, row in zip(files, rows, strict=True) if file]
    kept, bad = _keep_good(
        ((file, _size(file), index) for index, (file, _) in enumerate(listed)),
        skip_bad,
        str(path),
    )
    skipped = tuple(missing + bad)
    if not kept:
        raise _bad_files_error(list(skipped), str(path))
    files = [file for file, _ in kept]
    rows = [listed[index][1] for _, index in kept]
    if len(rows[0]) == 1:
        return SourceData(
            kind="file_list",
            files=tuple(files),
            labels=tuple(r[0] for r in rows),
            skipped=skipped,
        )
    return SourceData(
        kind="file_list",
        files=tuple(files),
        labels=tuple(range(len(files))),
        label_table=np.asarray(rows, dtype=np.int64),
        skipped=skipped,
    )


def _size(path: str) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return -1  # vanished since listing: check_image / the reader will say so


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
