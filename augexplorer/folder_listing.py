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
import stat
from dataclasses import dataclass, field
from typing import Literal

IMAGE_SUFFIXES = frozenset(
    {".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp", ".jp2", ".pnm", ".ppm", ".pgm"}
)
# Folders that tools create beside real data and that are never classes, besides dot-names.
HIDDEN_NAMES = ("__MACOSX",)

EntryKind = Literal["folder", "file", "loop", "broken", "other"]

BESIDE_CLASSES = "an image beside the class folders is in no class; move it into one to use it"
HIDDEN_FOLDER = "a hidden folder is not a class"
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
    class names, and what was left out (path, reason). Two flat lists rather than a tuple per
    image: a million images cost a million paths, not a million tuples as well."""

    classes: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    labels: list[int] = field(default_factory=list)
    ignored: list[tuple[str, str]] = field(default_factory=list)
    bad: list[tuple[str, str]] = field(default_factory=list)


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


def list_folder(root: str) -> Listing:
    """List `root` by the rule of this module. Raises OSError only for `root` itself."""
    listing = Listing()
    top_images: list[str] = []
    for entry in _sorted_entries(root):
        kind = entry_kind(entry)
        if kind in ("loop", "broken"):
            listing.bad.append((entry.path, LOOP if kind == "loop" else BROKEN))
        elif kind == "folder":
            if is_hidden(entry.name):
                listing.ignored.append((entry.path, HIDDEN_FOLDER))
            else:
                listing.classes.append(entry.name)
        elif kind == "file" and is_image_name(entry.name):
            if is_hidden(entry.name):
                listing.ignored.append((entry.path, HIDDEN_IMAGE))
            else:
                top_images.append(entry.path)
    if not listing.classes:
        listing.files = top_images
        listing.labels = [0] * len(top_images)
        return listing
    listing.ignored += [(path, BESIDE_CLASSES) for path in top_images]
    for label, name in enumerate(listing.classes):
        _list_class(listing, os.path.join(root, name), label)
    return listing


def _list_class(listing: Listing, folder: str, label: int) -> None:
    try:
        with os.scandir(folder) as found:
            entries = list(found)
    except OSError as error:
        listing.bad.append((folder, f"class folder cannot be read ({error.strerror or error})"))
        return
    plain = [entry.name for entry in entries if entry.is_file(follow_symlinks=False)]
    if len(plain) == len(entries):
        plain.sort()
        _list_plain_files(listing, folder, label, plain)
        return
    entries.sort(key=_name)
    for entry in entries:
        kind = entry_kind(entry)
        if kind == "folder":
            if not is_hidden(entry.name):
                listing.ignored.append((entry.path, NESTED_FOLDER))
        elif not is_image_name(entry.name):
            continue
        elif is_hidden(entry.name):
            listing.ignored.append((entry.path, HIDDEN_IMAGE))
        elif kind in ("loop", "broken"):
            listing.bad.append((entry.path, LOOP if kind == "loop" else BROKEN))
        elif kind == "file":
            listing.files.append(entry.path)
            listing.labels.append(label)


def _list_plain_files(listing: Listing, folder: str, label: int, names: list[str]) -> None:
    """The usual class folder, of plain files only (no folder, no link): the rule's branches
    for a file, on names alone, without an object per entry (a million entries take a
    second less this way)."""
    prefix = os.path.join(folder, "")  # what os.scandir puts before a name
    images = [name for name in names if is_image_name(name)]
    if any(is_hidden(name) for name in images):
        listing.ignored += [(prefix + name, HIDDEN_IMAGE) for name in images if is_hidden(name)]
        images = [name for name in images if not is_hidden(name)]
    listing.files += [prefix + name for name in images]
    listing.labels += [label] * len(images)
