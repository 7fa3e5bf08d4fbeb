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
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
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
    return Path(name).suffix.lower() in IMAGE_SUFFIXES


@dataclass
class Listing:
    """A folder tree, listed: candidate images (path, size in bytes, label), class names, and
    what was left out (path, reason)."""

    classes: list[str] = field(default_factory=list)
    images: list[tuple[str, int, int]] = field(default_factory=list)
    ignored: list[tuple[str, str]] = field(default_factory=list)
    bad: list[tuple[str, str]] = field(default_factory=list)


def entry_kind(entry: os.DirEntry[str]) -> tuple[EntryKind, int]:
    """What an entry is once symbolic links are followed, and its size in bytes."""
    try:
        info = os.stat(entry.path)
    except OSError as error:
        if error.errno == errno.ELOOP:
            return "loop", -1
        return ("broken" if entry.is_symlink() else "other"), -1
    if stat.S_ISDIR(info.st_mode):
        return "folder", -1
    if stat.S_ISREG(info.st_mode):
        return "file", info.st_size
    return "other", -1


LOOP = "symbolic link loop (the link leads back to itself)"
BROKEN = "broken symbolic link (its target does not exist)"


def _sorted_entries(folder: str) -> list[os.DirEntry[str]]:
    with os.scandir(folder) as entries:
        return sorted(entries, key=lambda entry: entry.name)


def list_folder(root: str) -> Listing:
    """List `root` by the rule of this module. Raises OSError only for `root` itself."""
    listing = Listing()
    top_images: list[tuple[str, int]] = []
    for entry in _sorted_entries(root):
        kind, size = entry_kind(entry)
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
                top_images.append((entry.path, size))
    if not listing.classes:
        listing.images = [(path, size, 0) for path, size in top_images]
        return listing
    listing.ignored += [(path, BESIDE_CLASSES) for path, _ in top_images]
    for label, name in enumerate(listing.classes):
        _list_class(listing, os.path.join(root, name), label)
    return listing


def _list_class(listing: Listing, folder: str, label: int) -> None:
    try:
        entries = _sorted_entries(folder)
    except OSError as error:
        listing.bad.append((folder, f"class folder cannot be read ({error.strerror or error})"))
        return
    for entry in entries:
        kind, size = entry_kind(entry)
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
            listing.images.append((entry.path, size, label))
