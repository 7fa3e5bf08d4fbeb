"""Which files of a folder tree are images of which class: the one rule the explorer and an
exported module's ``read_folder`` both follow (the module carries a copy; a test keeps them equal).

- Each sub-folder of the root is a class, in sorted order, except hidden ones: a name starting
  with "." (``.ipynb_checkpoints``, ``.git``) or one of :data:`HIDDEN_NAMES` (``__MACOSX``).
  DALI's ``readers.file(file_root=...)`` would count those as classes, so readers always get
  explicit files and labels.
- A class holds the image files directly in its folder (sorted, hidden names left out), as DALI
  reads a class folder; folders inside it are not searched.
- Without class sub-folders, the images of the root itself are one class.

Whatever the rule leaves out that a user may have meant to include (images beside the class
folders, hidden or nested folders) is listed in :attr:`Listing.ignored` with the reason, never
dropped silently. Entries that cannot be followed (a symbolic link loop, a link to nothing) are
listed in :attr:`Listing.bad`.

Listing costs one directory read per folder and no look at each file: the kind of an entry comes
from the directory itself (its ``d_type``), and only symbolic links are followed with a
``stat``, so a folder of a million images lists about as fast as DALI's own reader lists it.
"""

from __future__ import annotations

import errno
import operator
import os
import re
import stat
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from .path_table import SEPARATOR, PathTable, RunLabels

# The image suffixes DALI's readers.file lists, in any case (measured on DALI 2.4; the audio ones
# it lists too, .flac .ogg .wav, are no images; .gif and the rest it leaves out as the rule does).
_IMAGES = ".jpg .jpeg .png .bmp .tif .tiff .webp .jp2 .pnm .ppm .pgm .pbm"
IMAGE_SUFFIXES = frozenset(_IMAGES.split())
# Folders that tools create beside real data and that are never classes, besides dot-names.
HIDDEN_NAMES = ("__MACOSX",)

EntryKind = Literal["folder", "file", "loop", "broken", "other"]

BESIDE_CLASSES = "an image beside the class folders is in no class; move it into one to use it"
HIDDEN_FOLDER = (
    "a hidden folder is not a class, here or in the exported module (DALI's own "
    "readers.file(file_root=...) counts it as one, and numbers the classes after it one higher)"
)
NESTED_FOLDER = "folders inside a class folder are not searched, as DALI reads classes"
HIDDEN_IMAGE = "a hidden file is not an image of its class"


def is_hidden(name: str) -> bool:
    """Whether a folder or file name is one the listing never reads."""
    return name.startswith(".") or name in HIDDEN_NAMES


def is_image_name(name: str) -> bool:
    """Whether `name` ends in an image suffix, as ``Path(name).suffix`` reads a suffix (a
    leading or trailing dot is none), without making a Path of each of a million names."""
    dot = name.rfind(".")
    return 0 < dot < len(name) - 1 and name[dot:].lower() in IMAGE_SUFFIXES


@dataclass
class Listing:
    """A folder tree, listed: candidate images (`files`, with the label of each in `labels`),
    class names, and what was left out (path, reason). The files are a :class:`PathTable` and
    their labels :class:`RunLabels`: a million images cost their names' bytes, not a million
    path strings and two tuples of pointers."""

    classes: list[str] = field(default_factory=list)
    files: PathTable = field(default_factory=lambda: PathTable([], np.zeros(1, np.int64), b""))
    labels: RunLabels = field(default_factory=lambda: RunLabels([], [0]))
    ignored: list[tuple[str, str]] = field(default_factory=list)
    bad: list[tuple[str, str]] = field(default_factory=list)


def listing_of_runs(
    runs: Sequence[tuple[str, int, bytes]],
    classes: list[str],
    ignored: list[tuple[str, str]],
    bad: list[tuple[str, str]],
) -> Listing:
    """The listing whose files are the (folder, label, block) `runs`, in order: each folder
    ends in a separator, as ``os.path.join(folder, "")`` ends it, and each block holds the
    run's names as :func:`name_block` joins them."""
    runs = [(folder, label, block) for folder, label, block in runs if block]
    files = PathTable.from_blocks((folder, block) for folder, _, block in runs)
    counts = np.cumsum([0, *(block.count(SEPARATOR) + 1 for _, _, block in runs)])
    labels = RunLabels([label for _, label, _ in runs], counts)
    return Listing(classes, files, labels, ignored, bad)


def entry_kind(entry: os.DirEntry[str]) -> EntryKind:
    """What an entry is once symbolic links are followed. The directory says what an entry that
    is not a link is (no system call); a link is followed with a ``stat``."""
    if not entry.is_symlink():
        if entry.is_dir(follow_symlinks=False):
            return "folder"
        return "file" if entry.is_file(follow_symlinks=False) else "other"
    try:
        info = os.stat(entry.path)
    except OSError as error:
        if error.errno == errno.ELOOP:
            return "loop"
        return "broken"
    if stat.S_ISDIR(info.st_mode):
        return "folder"
    if stat.S_ISREG(info.st_mode):
        return "file"
    return "other"


LOOP = "symbolic link loop (the link leads back to itself)"
BROKEN = "broken symbolic link (its target does not exist)"


def _sorted_entries(folder: str) -> list[os.DirEntry[str]]:
    with os.scandir(folder) as entries:
        return sorted(entries, key=_name)


_name = operator.attrgetter("name")


@dataclass(frozen=True)
class KeptClass:
    """A class folder's part of an earlier listing: its images' names as one block
    (:func:`name_block`), and what the rule left out of it (path, reason)."""

    block: bytes
    ignored: list[tuple[str, str]]
    bad: list[tuple[str, str]]


def list_folder(root: str, kept: Callable[[str], KeptClass | None] | None = None) -> Listing:
    """List `root` by the rule of this module. Raises OSError only for `root` itself.

    `kept` gives, by class name, the part of an earlier listing of a class folder unchanged
    since (:func:`augexplorer.folder_cache.kept_classes`: its modification time as it was),
    taken instead of reading that folder again; the root is always read, so classes come and
    go by the rule."""
    classes: list[str] = []
    ignored: list[tuple[str, str]] = []
    bad: list[tuple[str, str]] = []
    top_images: list[str] = []
    for entry in _sorted_entries(root):
        kind = entry_kind(entry)
        if kind in ("loop", "broken"):
            bad.append((entry.path, LOOP if kind == "loop" else BROKEN))
        elif kind == "folder":
            if is_hidden(entry.name):
                ignored.append((entry.path, HIDDEN_FOLDER))
            else:
                classes.append(entry.name)
        elif kind == "file" and is_image_name(entry.name):
            if is_hidden(entry.name):
                ignored.append((entry.path, HIDDEN_IMAGE))
            else:
                top_images.append(entry.name)
    top = os.path.join(root, "")  # what os.scandir puts before a name
    if not classes:
        return listing_of_runs([(top, 0, name_block(top_images))], classes, ignored, bad)
    ignored += [(top + name, BESIDE_CLASSES) for name in top_images]
    runs = []
    for label, name in enumerate(classes):
        folder = os.path.join(root, name)
        earlier = kept(name) if kept is not None else None
        if earlier is not None:
            ignored += earlier.ignored
            bad += earlier.bad
            runs.append((os.path.join(folder, ""), label, earlier.block))
            continue
        # each class's names made one block at once: the listing never holds a string a file
        names = _list_class(folder, ignored, bad)
        runs.append((os.path.join(folder, ""), label, name_block(names)))
    return listing_of_runs(runs, classes, ignored, bad)


def name_block(names: list[str]) -> bytes:
    """`names` as one block of a :class:`PathTable` (encoded as ``os.fsencode`` encodes)."""
    return "\0".join(names).encode("utf-8", "surrogateescape")


def _list_class(
    folder: str, ignored: list[tuple[str, str]], bad: list[tuple[str, str]]
) -> list[str]:
    """The names of the images of class folder `folder`, sorted; what the rule leaves out goes
    to `ignored`, what cannot be followed to `bad`."""
    try:
        with os.scandir(folder) as found:
            entries = list(found)
    except OSError as error:
        bad.append((folder, f"class folder cannot be read ({error.strerror or error})"))
        return []
    plain = [entry.name for entry in entries if entry.is_file(follow_symlinks=False)]
    if len(plain) == len(entries):
        plain.sort()
        return _plain_images(os.path.join(folder, ""), plain, ignored)
    entries.sort(key=_name)
    images = []
    for entry in entries:
        kind = entry_kind(entry)
        if kind == "folder":
            if not is_hidden(entry.name):
                ignored.append((entry.path, NESTED_FOLDER))
        elif not is_image_name(entry.name):
            continue
        elif is_hidden(entry.name):
            ignored.append((entry.path, HIDDEN_IMAGE))
        elif kind in ("loop", "broken"):
            bad.append((entry.path, LOOP if kind == "loop" else BROKEN))
        elif kind == "file":
            images.append(entry.name)
    return images


def _plain_images(prefix: str, names: list[str], ignored: list[tuple[str, str]]) -> list[str]:
    """The images among `names`, sorted, of a class folder of plain files only (no folder, no
    link): the rule's branches for a file, on names alone. The usual folder, whose every name
    is an image's and none hidden, is known so by one match over its names joined, in C, not
    a Python call per name (a million names take a second less this way)."""
    if _all_shown_images(names):
        return names
    images = [name for name in names if is_image_name(name)]
    if any(is_hidden(name) for name in images):
        ignored += [(prefix + name, HIDDEN_IMAGE) for name in images if is_hidden(name)]
        images = [name for name in images if not is_hidden(name)]
    return images


def _all_shown_images(names: list[str]) -> bool:
    """Whether every one of `names` is an image name that is not hidden: most often all end in
    the first one's suffix (counted at each line's end of the names joined, in C), else one
    match of :data:`_ALL_SHOWN_IMAGES`."""
    if not names or not is_image_name(names[0]):
        return False
    joined = "\n" + "\n".join(names) + "\n"
    if "\n." in joined or joined.count("\n") != len(names) + 1:
        return False  # a hidden name, or a name holding a line break: each looked at alone
    first = names[0]
    suffix = first[first.rfind(".") :]  # holds no line break: "suffix\n" ends a line only
    if joined.count(suffix + "\n") == len(names):
        return True  # each name ends in an image suffix, after its last dot, and not hidden
    return _ALL_SHOWN_IMAGES.fullmatch(joined[1:-1]) is not None


def _any_case(suffix: str) -> str:
    """`suffix` as a pattern that matches it in any ASCII case, as ``str.lower`` reads it
    (a class of the two letters, never the regex module's wider Unicode case folding)."""
    return "".join(f"[{c}{c.upper()}]" if c.isalpha() else re.escape(c) for c in suffix)


# Names, one a line, each an image name (is_image_name) that is not hidden (is_hidden): a
# first character that is no dot, and an image suffix after the last dot. HIDDEN_NAMES hold no
# image suffix, so only the dot is to be ruled out.
_ALL_SHOWN_IMAGES = re.compile(
    r"(?:[^.\n][^\n]*\.(?:"
    + "|".join(_any_case(suffix[1:]) for suffix in sorted(IMAGE_SUFFIXES))
    + r")(?:\n|\Z))*"
)
