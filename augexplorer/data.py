"""Data sources: the bundled samples, a folder tree, a file list, or in-memory arrays.

Everything a source needs is checked here, when it is opened, so a bad folder or file list gives
one error naming every file at fault (and the line of a file list) instead of a DALI failure
mid-run. Each file's header is read (never its pixels, :mod:`augexplorer.image_header`): a file
DALI could not read is named before anything runs, and the decoded size of each image is kept so
that a batch too big for memory is refused before it is decoded (:meth:`SourceData.check_memory`).

DALI cannot skip a file it fails to read or decode (a reader has no way to hand a decoder a
replacement sample), so skipping happens here: ``open_source(..., skip_bad=True)`` leaves out
the files that would fail and lists them with the reason in :attr:`SourceData.skipped`.

Folders follow :mod:`augexplorer.folder_listing` (hidden folders are never classes); what that
rule leaves out is listed in :attr:`SourceData.ignored` and worded by :meth:`SourceData.notes`.

A big folder (:data:`CHECK_ALL_BELOW` files or more) opened with ``check_all=False``, as the
explorer's session opens it, is not looked at file by file before its first grid: it opens on its
listing (cached, :mod:`augexplorer.folder_cache`), the files of each batch are looked at before
they are decoded, and the rest in the background (:attr:`SourceData.survey`,
:mod:`augexplorer.file_survey`), so a million images open about as fast as DALI's reader opens
them and a bad file is still named, never met as a raw decoder error.
"""

from __future__ import annotations

import dataclasses
import errno
import functools
import itertools
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from . import folder_cache
from .batch_memory import check_batch_memory, decoded_bytes
from .coco_file import CocoIndex, check_coco, read_coco
from .errors import DataError
from .file_list_text import ListTextError, list_text, split_entry
from .file_survey import FileSurvey
from .folder_listing import IMAGE_SUFFIXES, Listing, list_folder
from .header_carry import carry_over
from .image_header import ImageHeader, read_header
from .path_table import PathTable, RunLabels
from .spec import Source

__all__ = [
    "IMAGE_SUFFIXES",
    "SourceData",
    "bad_files_error",
    "check_image",
    "inspect_image",
    "open_source",
    "samples_dir",
    "source_for_path",
]

LABEL_MAX = 2**31 - 1  # DALI's readers carry labels as int32
# A folder of fewer files is looked at whole when opened, even where the batch check would do:
# a thousand headers take about a tenth of a second, and every bad file is named at once.
CHECK_ALL_BELOW = 1000


def samples_dir() -> Path:
    """The bundled sample photos: class sub-folders of JPEGs (see samples/LICENSES.md)."""
    return Path(__file__).parent / "samples" / "images"


def sample_annotations() -> Path:
    """The bundled photos' COCO annotations (boxes, polygons, keypoints), read from
    :func:`samples_dir`."""
    return Path(__file__).parent / "samples" / "annotations.json"


@dataclass(frozen=True)
class SourceData:
    """A source, opened: the files it reads and the label(s) of each.

    `labels` holds one integer per file; for a multi-label file list it holds each file's index and
    `label_table` the labels of every file (row = index), since a DALI reader carries one
    integer label per file. Readers always get `files` and `labels` (`file_root` is never set:
    DALI's own folder listing counts hidden folders as classes).
    """

    kind: str
    # a tuple, or for a big folder a PathTable and RunLabels (augexplorer.path_table): sequences
    # equal to the tuples of the same items, holding no Python object per file
    files: Sequence[str] = ()
    labels: Sequence[int] = ()
    file_root: str | None = None
    classes: tuple[str, ...] = ()
    label_table: np.ndarray | None = None
    arrays: tuple[np.ndarray, ...] = field(default=(), repr=False)
    skipped: tuple[tuple[str, str], ...] = ()  # (path, reason) of files left out by skip_bad
    # (path, reason) of what a folder holds but the folder rule does not read
    ignored: tuple[tuple[str, str], ...] = ()
    # estimated bytes of each file decoded to RGB, from its header
    decoded_sizes: np.ndarray | None = field(default=None, repr=False, compare=False)
    # a COCO source: its annotations file (checked and indexed), and the images DALI reads
    annotations_file: str | None = None
    coco: CocoIndex | None = field(default=None, repr=False, compare=False)
    coco_images: tuple[str, ...] = ()  # file names relative to file_root, in the file's order
    box_classes: Mapping[int, str] = field(default_factory=dict)  # a box's label -> its name
    # a big source opened without looking at every file: the look going on in the background
    survey: FileSurvey | None = field(default=None, repr=False, compare=False)
    skip_bad: bool = False  # whether files the survey finds bad are left out (or named)
    # `files` and `labels` as a DALI file list of absolute paths, for a big folder: the reader
    # reads it instead of a `files` argument (and names each sample's file as `files` does)
    reader_list: str | None = field(default=None, repr=False, compare=False)

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

    def box_caption(self, labels: Iterable[int]) -> str:
        """The classes of an annotated image's boxes, in order of first appearance, with counts:
        ``cat, person x2``."""
        counts: dict[str, int] = {}
        for label in labels:
            name = self.box_classes.get(int(label), str(int(label)))
            counts[name] = counts.get(name, 0) + 1
        return ", ".join(name if n == 1 else f"{name} x{n}" for name, n in counts.items())

    def caption(self, label: int) -> str:
        values = self.labels_of(label)
        if self.classes and len(values) == 1 and 0 <= values[0] < len(self.classes):
            return self.classes[values[0]]
        return " ".join(map(str, values))

    def notes(self) -> list[str]:
        """One line per kind of thing left out (ignored by the folder rule, or skipped as bad),
        naming a few paths, after how many files were skipped: for the command line and the
        panel to show."""
        lines = _grouped("not read", self.ignored)
        lines += _empty_classes_note(self.empty_classes)
        if self.skipped:
            total = len(self.files) + len(self.skipped)
            lines.append(f"{len(self.skipped)} of {total} images skipped as bad (skip_bad)")
        lines += _grouped("skipped", self.skipped)
        if self.survey is None:
            return lines
        found = self.found_bad()
        if found and self.skip_bad:
            lines += _grouped("found bad in the background, left out from the next batch", found)
        elif found:
            lines.append(
                f"{len(found)} image(s) found bad in the background: training would stop "
                f"on them ({_BAD_FILES_FIX})"
            )
            lines += _grouped("cannot be read", found)
        if not self.survey.done:
            lines.append(self.survey.progress().line())
        return lines

    @functools.cached_property
    def empty_classes(self) -> tuple[tuple[int, str], ...]:
        """A folder's class folders with no image read (empty, or every image left out as
        bad), with the label each still takes: classes are numbered over every class folder,
        as DALI's reader numbers them (worked out once: every grid asks for the notes)."""
        if self.kind != "folder" or not self.classes:
            return ()
        labels = self.labels
        present = labels.present() if isinstance(labels, RunLabels) else frozenset(labels)
        return tuple((i, name) for i, name in enumerate(self.classes) if i not in present)

    def found_bad(self) -> list[tuple[str, str]]:
        """Bad files the background look found that this source still reads."""
        if self.survey is None:
            return []
        skipped = {path for path, _ in self.skipped}
        return [(path, reason) for path, reason in self.survey.bad() if path not in skipped]

    def leaving_out(self, bad: Sequence[tuple[str, str]]) -> SourceData:
        """This source without the files of `bad` (path, reason), which join :attr:`skipped`
        (skip_bad, as :func:`open_source` would have left them out); a DataError if none is
        left."""
        gone = {path for path, _ in bad}
        files: Sequence[str]
        labels: Sequence[int]
        if isinstance(self.files, PathTable) and isinstance(self.labels, RunLabels):
            at = [self.files.index(path) for path in gone if path in self.files]
            files, labels = self.files.without(at), self.files.labels_without(self.labels, at)
        else:
            keep = [file not in gone for file in self.files]
            files = tuple(itertools.compress(self.files, keep))
            labels = tuple(itertools.compress(self.labels, keep))
        skipped = (*self.skipped, *bad)
        if not files:
            raise bad_files_error(skipped, _where(self), _BAD_FILES_FIX)
        reader_list = None
        if self.reader_list is not None:  # a new list beside it: a `files` argument of a
            # million entries would cost the reader's build seconds
            reader_list = folder_cache.save_kept_list(self.reader_list, files, labels, gone)
        return dataclasses.replace(
            self,
            files=files,
            labels=labels,
            skipped=skipped,
            decoded_sizes=None,
            reader_list=reader_list,
        )

    def check_memory(self, batch_size: int, budget: int | None = None) -> None:
        """Raise :class:`DataError` if a batch of the largest images could exceed the memory
        budget (:mod:`augexplorer.batch_memory`); in-memory arrays are never refused."""
        sizes, files = self.decoded_sizes, self.files
        if sizes is None and self.survey is not None:  # known once the survey is done
            sizes, files = self.survey.decoded_sizes(), self.survey.files
        if sizes is None or not len(sizes):
            return
        check_batch_memory(sizes, batch_size, files=files, where=_where(self), budget=budget)


def _where(data: SourceData) -> str | None:
    return data.file_root or (os.path.dirname(data.files[0]) if data.files else None)


def _empty_classes_note(empty: Sequence[tuple[int, str]]) -> list[str]:
    """One line for the class folders that hold no image: each still takes its label, so the
    labels after it are not what a count of the classes with images would give."""
    if not empty:
        return []
    named = ", ".join(f"'{name}' (label {label})" for label, name in empty[:5])
    more = f" and {len(empty) - 5} more" if len(empty) > 5 else ""
    which = "class folder holds" if len(empty) == 1 else "class folders hold"
    return [
        f"{len(empty)} {which} no image read, and still take{'s' if len(empty) == 1 else ''} "
        f"a label: {named}{more} (the exported module numbers every class folder but hidden ones "
        "in sorted order, as DALI's reader numbers folders; torchvision's ImageFolder refuses "
        "an empty class; fix: remove the folder or fill it)"
    ]


def _grouped(verb: str, entries: Sequence[tuple[str, str]]) -> list[str]:
    by_reason: dict[str, list[str]] = {}
    for path, reason in entries:
        by_reason.setdefault(reason, []).append(path)
    lines = []
    for reason, paths in by_reason.items():
        shown = ", ".join(paths[:_SHOWN])
        more = f" and {len(paths) - _SHOWN} more" if len(paths) > _SHOWN else ""
        lines.append(f"{verb} ({reason}): {shown}{more}")
    return lines


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


def open_source(
    source: Source,
    arrays: Any = None,
    *,
    skip_bad: bool = False,
    batch_size: int | None = None,
    memory_budget: int | None = None,
    check_all: bool = True,
) -> SourceData:
    """Check and index a source; raises :class:`DataError` naming the path and the fix.

    Every file is looked at once (its header and end, :func:`inspect_image`); every file that
    DALI could not read is named in one error, or, with `skip_bad`, left out and listed in
    :attr:`SourceData.skipped`. With `batch_size`, a batch that could exceed the memory budget
    (`memory_budget` bytes, default :func:`augexplorer.batch_memory.memory_budget`) is refused.

    With `check_all` False, a folder of :data:`CHECK_ALL_BELOW` files or more opens on its
    (cached) listing alone, and :attr:`SourceData.survey` looks at its files in the background
    once the caller starts it; the caller looks at each batch's files before decoding them
    (:meth:`FileSurvey.check_now`).
    """
    data = _open(source, arrays, skip_bad, check_all)
    if batch_size is not None:
        data.check_memory(batch_size, memory_budget)
    return data


def _open(source: Source, arrays: Any, skip_bad: bool, check_all: bool = True) -> SourceData:
    if source.kind == "samples":
        return _folder(samples_dir(), skip_bad)
    if source.kind == "folder":
        return _folder(Path(source.path or ""), skip_bad, check_all)
    if source.kind == "file_list":
        root = Path(source.file_root) if source.file_root else None
        if root is not None and not root.is_dir():
            raise DataError(
                "file_root is not a folder" if root.exists() else "file_root not found",
                path=str(root),
                fix="give the folder the list's entries are relative to, or remove file_root "
                "to read them from the list's folder",
            )
        return _file_list(Path(source.path or ""), skip_bad, root, check_all)
    if source.kind == "arrays":
        return _arrays(source, arrays)
    if source.kind == "coco":
        return _coco(source, skip_bad)
    if source.kind == "yolo":
        return _yolo(source, skip_bad)
    raise DataError(
        f"unknown source kind {source.kind!r}",
        fix="use samples, folder, file_list, arrays, coco or yolo",
    )


# ---- checking files ----------------------------------------------------------------------------

_SHOWN = 5  # files named in an error before "and N more"
_BAD_FILES_FIX = "remove or replace them, or open the source with skip_bad=True to leave them out"


def fix_on_the_command_line(said: str) -> str:
    """`said` (an error's text) with its bad-files fix as a command that reads data gives it:
    those commands take --skip-bad, not the keyword."""
    return said.replace(
        _BAD_FILES_FIX, "remove or replace them, or pass --skip-bad to leave them out"
    )


def _can_read(path: str) -> bool:
    return os.access(path, os.R_OK)


def quick_problem(path: str, size: int) -> str | None:
    """What is wrong with a file that a ``stat`` shows (empty, unreadable), or None."""
    if size == 0:
        return "empty file (0 bytes)"
    if not _can_read(path):
        return "cannot be read (permission denied)"
    return None


def inspect_image(path: str) -> ImageHeader | str:
    """The header of the image at `path`, or why DALI would fail to read or decode it.

    A ``stat``, then the header and the end of the file (:func:`~augexplorer.image_header.read_header`);
    no pixel is decoded.
    """
    try:
        size = os.stat(path).st_size
    except FileNotFoundError:
        return "file not found"
    except OSError as error:
        if error.errno == errno.ELOOP:
            return "symbolic link loop (the link leads back to itself)"
        return f"cannot be read ({error.strerror or error})"
    return quick_problem(path, size) or read_header(path)


def check_image(path: str) -> str | None:
    """Why DALI would fail to read or decode `path`, from a cheap look at it; None if it looks
    fine (see :func:`inspect_image`)."""
    found = inspect_image(path)
    return found if isinstance(found, str) else None


def bad_files_error(
    bad: Sequence[tuple[str, str]], where: str | None, fix: str = _BAD_FILES_FIX
) -> DataError:
    """The error naming files DALI could not read (path, reason): a few named, the rest
    counted, and what to do about them."""
    shown = "; ".join(f"{path}: {reason}" for path, reason in bad[:_SHOWN])
    more = f"; and {len(bad) - _SHOWN} more" if len(bad) > _SHOWN else ""
    noun = "file" if len(bad) == 1 else "files"
    return DataError(f"{len(bad)} {noun} cannot be read: {shown}{more}", path=where, fix=fix)


@dataclass
class _Checked:
    kept: list[tuple[str, int]]  # (path, label)
    bad: list[tuple[str, str]]  # (path, reason)
    sizes: list[int]  # decoded bytes of each kept file


def _keep_good(
    candidates: Iterable[tuple[str, int, str]],
    skip_bad: bool,
    where: str,
    *,
    bad: Sequence[tuple[str, str]] = (),
    fix: str = _BAD_FILES_FIX,
) -> _Checked:
    """Look at each (path, label, prefix of its reason) once; split into kept files and bad
    ones (with `bad`, found earlier). Without `skip_bad`, any bad file raises one error that
    names them all, each once."""
    kept: list[tuple[str, int]] = []
    sizes: list[int] = []
    problems = dict(bad)  # path -> reason: a file listed twice is named once
    seen: dict[str, ImageHeader | str] = {}
    for path, label, prefix in candidates:
        found = seen.get(path)
        if found is None:
            found = seen[path] = inspect_image(path)
        if isinstance(found, str):
            problems.setdefault(path, prefix + found)
        else:
            kept.append((path, label))
            sizes.append(decoded_bytes(found.width, found.height))
    checked = _Checked(kept, list(problems.items()), sizes)
    if checked.bad and (not skip_bad or not checked.kept):
        raise bad_files_error(checked.bad, where, fix)
    return checked


# ---- folders -----------------------------------------------------------------------------------


def _folder(root: Path, skip_bad: bool = False, check_all: bool = True) -> SourceData:
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
    known = None if check_all else folder_cache.load(str(root))
    stamps = known.stamps if known is not None else None
    kept = None  # the class folders of the listing kept last that did not change since
    if known is None and not check_all:
        stamps = folder_cache.stamps_before_listing(str(root))
        kept = folder_cache.kept_classes(str(root), stamps) if stamps is not None else None
    try:
        listing = known.listing if known is not None else list_folder(str(root), kept)
    except OSError as error:
        raise DataError(
            f"folder cannot be read ({error.strerror or error})", path=str(root)
        ) from None
    if not listing.files and not listing.bad:
        ignored = _grouped("not read", listing.ignored)
        raise DataError(
            "no images found (looked for "
            + ", ".join(sorted(IMAGE_SUFFIXES))
            + " files in class sub-folders)"
            + "".join(f"; {line}" for line in ignored),
            path=str(root),
            fix="point at a folder with one sub-folder of images per class",
        )
    if not check_all and len(listing.files) >= CHECK_ALL_BELOW:
        return _big_folder(str(root), listing, skip_bad, known, stamps)
    checked = _keep_good(
        ((path, label, "") for path, label in zip(listing.files, listing.labels, strict=True)),
        skip_bad,
        str(root),
        bad=listing.bad,
    )
    return SourceData(
        kind="folder",
        files=tuple(path for path, _ in checked.kept),
        labels=tuple(label for _, label in checked.kept),
        classes=tuple(listing.classes),
        skipped=tuple(checked.bad),
        ignored=tuple(listing.ignored),
        decoded_sizes=np.asarray(checked.sizes, dtype=np.int64),
    )


def _big_folder(
    root: str,
    listing: Listing,
    skip_bad: bool,
    known: folder_cache.Known | None,
    stamps: dict[str, int] | None,
) -> SourceData:
    """A big folder opened on its listing: only what the listing found bad (links that lead
    nowhere) is named now; a survey looks at the files in the background once the caller
    starts it (after the first grid: it would slow it) and the cache keeps what it learns. `stamps`: the folders' times before it was listed."""
    reader_list = known.reader_list if known is not None else None
    if reader_list is None and stamps is not None:
        reader_list = folder_cache.save_reader_list(root, stamps, listing)
    listed_now = known is None and stamps is not None
    save_stamps = stamps or {}
    to_keep = [listing] if listed_now else []  # let go once kept: the source holds its own
    cache = folder_cache.cache_folder(root)  # as the environment says now, not when written

    def keep_listing() -> None:  # in the survey's thread, behind the grid
        if not to_keep:
            return
        # read before the new listing replaces it: what the last survey found, so that only
        # the files added or changed since are read again (a removed one is just not listed)
        earlier = folder_cache.load_earlier(root, cache)
        listing_kept = folder_cache.save_listing(root, save_stamps, to_keep.pop(), cache)
        if earlier is None:
            return
        carried = carry_over(earlier, files)
        survey.carry(carried.sizes, carried.file_stamps, carried.bad)
        if listing_kept and stamps is not None:  # kept with the new listing now: a survey cut
            # short still leaves them, the new files' stamps unknown (read next time)
            folder_cache.save_checked(
                root, stamps, dict(survey.bad()), carried.sizes, carried.file_stamps, cache
            )

    if listed_now and stamps is not None:
        stamps = {name: stamps[name] for name in ("", *listing.classes) if name in stamps}
    if listing.bad and not skip_bad:
        raise bad_files_error(listing.bad, root, _BAD_FILES_FIX)

    def keep(survey: FileSurvey) -> None:
        sizes, file_stamps = survey.decoded_sizes(), survey.stamps()
        if stamps is not None and sizes is not None and file_stamps is not None:
            folder_cache.save_checked(root, stamps, dict(survey.bad()), sizes, file_stamps, cache)

    files = listing.files  # one table of the paths, shared with the survey
    survey = FileSurvey(
        files,
        inspect_image,
        known_bad=known.bad if known is not None else None,
        sizes=known.sizes if known is not None else None,
        stamps=known.file_stamps if known is not None else None,
        on_start=keep_listing,
        on_done=keep,
    )
    data = SourceData(
        kind="folder",
        files=files,
        labels=listing.labels,
        classes=tuple(listing.classes),
        skipped=tuple(listing.bad),
        ignored=tuple(listing.ignored),
        survey=survey,
        skip_bad=skip_bad,
        reader_list=reader_list,
    )
    if skip_bad and survey.again:  # every bad file known from the cache: left out now
        found = data.found_bad()
        data = data.leaving_out(found) if found else data
    return data


# ---- file lists --------------------------------------------------------------------------------

_LIST_FIX = (
    "fix their paths or drop their lines, replace the files, or open the source with "
    "skip_bad=True to leave them out"
)


def _list_fix(path: Path, root: Path | None, missing: bool) -> str:
    """What to do about a list's files that cannot be read; where a file is missing, say which
    folder its entry was read from, as DALI reads it."""
    if not missing:
        return _LIST_FIX
    if root is not None:
        return (
            f"entries are read from file_root {root} (as DALI's reader reads them): set "
            "file_root to the folder the entries are relative to (or remove it to read them "
            f"from the list's folder), or {_LIST_FIX}"
        )
    return (
        f"entries are read from the list's folder {path.parent}: if they are relative to "
        f"another folder, set the source's file_root to it (DALI's file_root), or {_LIST_FIX}"
    )


def _list_text(path: Path) -> str:
    """The list's text (:func:`augexplorer.file_list_text.list_text`), or a DataError."""
    try:
        return list_text(path.read_bytes())
    except ListTextError as error:
        raise DataError(
            str(error),
            path=str(path),
            fix="save the list as UTF-8 (any editor's 'save with encoding'); a file list has one "
            "'image label [label ...]' per line",
        ) from None
    except OSError as error:
        raise DataError(f"cannot be read ({error.strerror or error})", path=str(path)) from None


def _label_values(label_text: list[str], number: int, path: Path) -> list[int]:
    try:
        values = [int(x) for x in label_text]
    except ValueError:
        raise DataError(
            f"line {number}: labels must be integers, got {' '.join(label_text)!r:.80}",
            path=str(path),
            fix="map class names to integer ids; the label(s) end the line, after the file "
            "name (which may hold spaces: 'my photo.jpg 3')",
        ) from None
    if any(v < 0 for v in values):
        raise DataError(
            f"line {number}: labels must be >= 0",
            path=str(path),
            fix="use non-negative class ids",
        )
    too_big = next(
        (text for text, v in zip(label_text, values, strict=True) if v > LABEL_MAX), None
    )
    if too_big is not None:
        shown = too_big if len(too_big) <= 24 else f"{too_big[:12]}...({len(too_big)} digits)"
        raise DataError(
            f"line {number}: label {shown} is above {LABEL_MAX}, the largest label DALI "
            "carries (a 32-bit integer; larger ones would wrap around)",
            path=str(path),
            fix="number the classes from 0 (a label is a class index, not an id or a hash)",
        )
    return values


def _not_a_file(path: Path) -> str:
    if path.is_dir():
        return "a folder, not an image file"
    found = inspect_image(str(path))  # says "symbolic link loop" where that is why
    return found if isinstance(found, str) else "file not found"


def _file_list(
    path: Path, skip_bad: bool = False, root: Path | None = None, check_all: bool = True
) -> SourceData:
    """The files and labels of a list; relative entries are read from `root` when given (DALI's
    ``file_root``), else from the list's own folder. A big list opened without `check_all` is
    read (every line's form and labels checked) but its files are not looked at: a
    :class:`FileSurvey` does that, naming a bad file by its line."""
    if not path.exists():
        raise DataError("file list not found", path=str(path), fix="check the path")
    if not path.is_file():
        raise DataError(
            "not a file",
            path=str(path),
            fix="give a text file with 'image label [label ...]' per line",
        )
    text = _list_text(path)
    look_later = not check_all and text.count("\n") + 1 >= CHECK_ALL_BELOW
    listed: list[tuple[str, list[int], int]] = []  # (image, labels, line number)
    missing: list[tuple[str, str]] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        entry = split_entry(line, len(listed[0][1]) if listed else None)
        image, label_text = entry.name, entry.labels
        if not label_text:
            raise DataError(
                f"line {number}: expected an image path and at least one integer label, got {line!r:.80}",
                path=str(path),
                fix="write 'path/to/image.jpg 3' (or several labels: 'image.jpg 3 7 12')",
            )
        label_values = _label_values(list(label_text), number, path)
        if listed and len(label_values) != len(listed[0][1]):
            raise DataError(
                f"line {number}: {len(label_values)} label(s), but line 1 has {len(listed[0][1])}; every line needs the same number",
                path=str(path),
                fix="pad lines to the same label count, or use one label per line",
            )
        image_path = (root if root is not None else path.parent) / image  # absolute stays
        if not look_later and not image_path.is_file():
            missing.append((str(image_path), f"line {number}: {_not_a_file(image_path)}"))
        listed.append((str(image_path), label_values, number))
    if not listed:
        raise DataError(
            "the file list names no images", path=str(path), fix="add lines 'image.jpg label'"
        )
    if look_later:
        return _big_file_list(listed, skip_bad)
    missing_paths = {file for file, _ in missing}
    checked = _keep_good(
        (
            (file, index, f"line {number}: ")
            for index, (file, _, number) in enumerate(listed)
            if file not in missing_paths
        ),
        skip_bad,
        str(path),
        bad=missing,
        fix=_list_fix(path, root, bool(missing)),
    )
    files = [file for file, _ in checked.kept]
    rows = [listed[index][1] for _, index in checked.kept]
    common: dict[str, Any] = {
        "kind": "file_list",
        "files": tuple(files),
        "skipped": tuple(checked.bad),
        "decoded_sizes": np.asarray(checked.sizes, dtype=np.int64),
    }
    if len(rows[0]) == 1:
        return SourceData(labels=tuple(r[0] for r in rows), **common)
    return SourceData(
        labels=tuple(range(len(files))), label_table=np.asarray(rows, dtype=np.int64), **common
    )


def _big_file_list(listed: list[tuple[str, list[int], int]], skip_bad: bool) -> SourceData:
    """A big list's files, not looked at: the survey (started by the caller) names a bad one
    by its line, as opening the list whole names it."""
    lines = np.asarray([number for _, _, number in listed], dtype=np.int64)
    files = tuple(file for file, _, _ in listed)
    survey = FileSurvey(files, inspect_image, reason_prefix=lambda index: f"line {lines[index]}: ")
    common: dict[str, Any] = {
        "kind": "file_list",
        "files": tuple(files),
        "survey": survey,
        "skip_bad": skip_bad,
    }
    if len(listed[0][1]) == 1:
        return SourceData(labels=tuple(labels[0] for _, labels, _ in listed), **common)
    rows = [labels for _, labels, _ in listed]
    return SourceData(
        labels=tuple(range(len(files))), label_table=np.asarray(rows, dtype=np.int64), **common
    )


# ---- COCO ---------------------------------------------------------------------------------------


def _coco(source: Source, skip_bad: bool) -> SourceData:
    """A COCO file and its images: every image's file and annotations checked (one error naming
    them, or with `skip_bad` the images left out and listed)."""
    path = Path(source.path) if source.path else sample_annotations()
    default_root = samples_dir() if not source.path else path.parent
    root = Path(source.file_root) if source.file_root else default_root
    if not root.is_dir():
        raise DataError(
            "file_root is not a folder" if root.exists() else "file_root not found",
            path=str(root),
            fix="give the folder the COCO file's image file names are relative to",
        )
    index = read_coco(path)
    if not index.images:
        raise DataError("the annotations file lists no images", path=str(path))
    annotated = check_coco(index, skip_bad)
    by_path = {str(root / image.file_name): image for image in annotated.kept}
    checked = _keep_good(
        (
            (file, position, f"image id {image.id}: ")
            for position, (file, image) in enumerate(by_path.items())
        ),
        skip_bad,
        str(path),
        bad=[(str(root / name), reason) for name, reason in annotated.bad],
        fix="fix file_root or the file names, replace the files, or open the source with "
        "skip_bad=True to leave them out",
    )
    kept = [by_path[file] for file, _ in checked.kept]
    return SourceData(
        kind="coco",
        files=tuple(file for file, _ in checked.kept),
        labels=tuple(range(len(kept))),
        file_root=str(root),
        classes=(),
        skipped=tuple(checked.bad),
        decoded_sizes=np.asarray(checked.sizes, dtype=np.int64),
        annotations_file=str(path),
        coco=index,
        box_classes=index.class_names(
            avoid_class_remapping=bool(source.reader_args.get("avoid_class_remapping"))
        ),
        coco_images=tuple(image.file_name for image in kept),
    )


def _yolo(source: Source, skip_bad: bool) -> SourceData:
    """A YOLO folder: every label file checked (one error naming each file and line, or with
    `skip_bad` the images left out and listed), then converted to a COCO file in the cache and
    opened as a COCO source (so it reads ``kind == "coco"`` from here on)."""
    from .yolo_folder import (
        YOLO_LINE_FIX,
        YOLO_POSE_LINE_FIX,
        scan_yolo,
        yolo_annotations_file,
        yolo_keypoint_shape,
    )

    folder = Path(source.path or "")
    if not folder.is_dir():
        raise DataError(
            "the YOLO folder is not a folder" if folder.exists() else "YOLO folder not found",
            path=str(folder),
            fix="give the folder holding the images and their .txt label files",
        )
    coco, problems = scan_yolo(str(folder))
    bad = [(str(folder / name), reason) for name, reason in problems]
    if bad and (not skip_bad or not coco["images"]):
        shown = "; ".join(reason for _, reason in bad[:_SHOWN])
        more = f"; and {len(bad) - _SHOWN} more" if len(bad) > _SHOWN else ""
        raise DataError(
            f"{len(bad)} image(s) with bad labels: {shown}{more}",
            path=str(folder),
            fix=YOLO_LINE_FIX if yolo_keypoint_shape(str(folder)) is None else YOLO_POSE_LINE_FIX,
        )
    if not coco["images"]:
        raise DataError(
            "the YOLO folder holds no images", path=str(folder), fix="add images (.jpg, .png)"
        )
    annotations_file = yolo_annotations_file(str(folder), coco)
    as_coco = dataclasses.replace(source, kind="coco", path=annotations_file, file_root=str(folder))
    data = _coco(as_coco, skip_bad)
    return dataclasses.replace(data, skipped=(*bad, *data.skipped))


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
