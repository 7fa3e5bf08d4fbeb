"""Readers given their files in code (``fn.readers.file(files=[...], labels=[...])``, lists built
in Python) as a file-list source.

The list is written as a DALI file list (one ``path label [label ...]`` per line) and the graph's
source reads it, rather than the spec carrying the list: a file list is DALI's own format, stays
readable and editable beside the graph, scales to an ImageNet-sized list (a spec, and the GRAPH
literal of every module exported from it, would otherwise hold a million paths), and everything
that opens a file-list source (the explorer, ``skip_bad``, the exported loader's ``data=``)
reads it unchanged. The command line writes it beside the spec it writes; :func:`import_graph`
writes it to a content-named file in the cache unless told where.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..errors import AugExplorerError
from ..file_list_text import split_entry
from ..files import atomic_write_text

# (file name, such as "reader.txt", and its text) -> the path the source reads it from
ListWriter = Callable[[str, str], str]


class InlineListRefused(AugExplorerError):
    """A list given in code that a file list cannot hold."""


def list_text(files: Sequence[str], labels: Sequence[Any] | None) -> str:
    """The file list of `files` and `labels` (DALI numbers files given without labels 0, 1,
    ...). A name with spaces inside is written as it is ("my photo.jpg 3": the labels are the
    integers that end a line, :mod:`augexplorer.file_list_text`); one a line cannot hold as
    written is refused, naming it and why."""
    if labels is not None and len(labels) not in (0, len(files)):
        raise InlineListRefused(
            f"files= has {len(files)} entries and labels= {len(labels)} (fix: give one label per "
            "file)"
        )
    rows = labels if labels else list(range(len(files)))
    lines = []
    for index, (file, label) in enumerate(zip(files, rows, strict=True)):
        why = _unlistable(file)
        if why:
            raise InlineListRefused(
                f"files[{index}] is {file!r}: {why}, which a file list cannot hold (fix: "
                "rename the file, or read its folder with file_root=)"
            )
        values = label if isinstance(label, list | tuple) else [label]
        lines.append(" ".join([file, *(str(int(value)) for value in values)]))
    return "\n".join(lines) + "\n"


def _unlistable(file: str) -> str | None:
    """Why `file` cannot be a name in a file list's line, or None: a list's lines are stripped,
    split at line breaks, skipped when they start with #, and end in their integer labels."""
    if not file:
        return "an empty name"
    if any(character.isspace() and character not in " \t" for character in file):
        return "a name with a line break"
    if file != file.strip():
        return "a name starting or ending with a space"
    if file.startswith("#"):
        return "a name starting with # (a list's comment)"
    last = split_entry(file).labels
    if last and last[0].lstrip("+-").isascii() and last[0].lstrip("+-").isdigit():
        return "a name ending in a number after a space (a list reads it as a label)"
    return None


def _cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "augexplorer" / "file_lists"


def in_cache(file_name: str, text: str) -> str:
    """Write the list to a file named by its content in the cache (the same list, the same
    file); the path the source reads."""
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
    stem, _, suffix = file_name.rpartition(".")
    path = _cache_dir() / f"{stem}-{digest}.{suffix}"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, text, overwrite=True)
    return str(path)


def beside(spec_path: Path, *, overwrite: bool = False) -> ListWriter:
    """A writer of lists beside the spec at `spec_path`: ``graph.json`` -> ``graph.reader.txt``
    for ``reader.txt``; an existing different file is kept unless `overwrite`."""

    def write(file_name: str, text: str) -> str:
        path = spec_path.with_name(f"{spec_path.stem}.{file_name}")
        if path.exists() and path.read_text(encoding="utf-8") == text:
            return str(path.resolve())
        atomic_write_text(path, text, overwrite=overwrite)
        return str(path.resolve())

    return write


def coco_subset(annotations_file: str, images: Sequence[str]) -> str:
    """The COCO file `annotations_file` with only the images ``readers.coco(images=...)``
    names and their annotations. DALI reads such a list in its own order; a COCO source reads
    its images by id, so a list out of id order, or naming an image twice, is refused."""
    import json

    try:
        data = json.loads(Path(annotations_file).read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise InlineListRefused(
            f"images= is given, and its annotations file {annotations_file} cannot be read "
            f"({error}) (fix: check annotations_file=)"
        ) from None
    by_name = {str(image.get("file_name")): image for image in data.get("images", [])}
    missing = [name for name in images if name not in by_name]
    if missing:
        raise InlineListRefused(
            f"images= names {missing[0]!r}, which {annotations_file} does not list (fix: give "
            "file names as the annotations file writes them)"
        )
    ids = [by_name[name]["id"] for name in images]
    if len(set(ids)) != len(ids) or ids != sorted(ids):
        raise InlineListRefused(
            "images= lists images out of their id order or more than once, which a COCO source "
            "(reading its file in id order) cannot repeat (fix: sort the list by image id and "
            "leave out repeats)"
        )
    kept = set(ids)
    subset = dict(data)
    subset["images"] = [by_name[name] for name in images]
    subset["annotations"] = [a for a in data.get("annotations", []) if a.get("image_id") in kept]
    return json.dumps(subset)
