"""Readers of an imported graph whose data is not on this machine.

Training code names the data of the machine it was written for (``file_root="/data/imagenet/
train"``). The graph keeps the path as written (it may be meant for that machine), and the
import says at once, naming the reader, the path and the fix, rather than the first run.
"""

from __future__ import annotations

import os

from ..catalog.readers import reader_of
from ..spec import GraphSpec, Source


class DataMissing(UserWarning):
    """A reader of the imported graph names a folder or file this machine does not have."""


def missing_data(spec: GraphSpec) -> list[str]:
    """What each source of `spec` reads that is not here, one sentence per path (relative paths
    read against the working folder, as DALI reads them)."""
    said = []
    for source in spec.sources():
        for argument, path, folder in _paths(source):
            found = os.path.isdir(path) if folder else os.path.isfile(path)
            if found:
                continue
            there = "is not a folder" if folder and os.path.exists(path) else "does not exist"
            if not folder and os.path.isdir(path):
                there = "is a folder, not a file"
            said.append(_sentence(source, argument, os.path.abspath(path), there))
    return said


def _paths(source: Source) -> list[tuple[str, str, bool]]:
    """(argument as DALI code writes it, path, whether it is a folder) of what `source`
    reads from disk."""
    if source.kind == "folder" and source.path:
        return [("file_root", source.path, True)]
    if source.kind == "yolo" and source.path:
        return [("YOLO folder", source.path, True)]
    read: list[tuple[str, str, bool]] = []
    if source.kind == "file_list" and source.path:
        read.append(("file_list", source.path, False))
    elif source.kind == "coco" and source.path:
        read.append(("annotations_file", source.path, False))
    if source.kind in ("file_list", "coco") and source.file_root:
        read.append(("file_root", source.file_root, True))
    return read


def _sentence(source: Source, argument: str, path: str, there: str) -> str:
    reader = f"fn.{reader_of(source.kind)}"
    # --data stands in for a folder or a file list; a COCO or YOLO source keeps its boxes only
    # from a path of its own kind
    give = (
        "give this machine's data with --data PATH when you render, profile, take stats of or "
        "export the graph, or edit the path"
        if source.kind in ("folder", "file_list")
        else "edit the path"
    )
    return (
        f"source {source.id!r} ({reader}) reads its {argument}, {path}, which {there} on this "
        f"machine: the graph is imported as written, and runs only where that path is found "
        f"(fix: {give} in the graph, in the panel or in the code)"
    )
