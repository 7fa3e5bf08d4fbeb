"""Switching a graph's data source in the panel, between kinds that read differently.

A COCO source has more outputs than a folder (images, boxes, labels, polygons, ...), in DALI's
order, and its reader takes other arguments. So a switch between a COCO file and anything else
starts the reader's arguments afresh and moves each graph output that reads the source to the
output of the same name (the labels are output 1 of a folder and output 2 of a COCO source).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from augexplorer.coco_file import read_coco
from augexplorer.data import sample_annotations
from augexplorer.errors import DataError
from augexplorer.spec import GraphSpec, Source
from augexplorer.spec.graph import COCO_KINDS

# What a COCO source reads when picked in the panel: corner boxes relative to the image (as
# bb_flip and random_bbox_crop take them) and polygons, so the panel has outlines to draw.
COCO_READER_ARGS: Mapping[str, Any] = {"ltrb": True, "ratio": True, "polygon_masks": True}


def switched_source(
    spec: GraphSpec, kind: str, path: str | None, file_root: str | None = None
) -> GraphSpec:
    """`spec` reading `kind` data from `path` (and, for COCO, images from `file_root`); the
    source's shuffling, seed and bad-file handling stay."""
    old = spec.sources()[0] if spec.sources() else None
    if old is None:
        source = Source("source", kind, path or None)  # type: ignore[arg-type]
        if kind in COCO_KINDS:
            source = dataclasses.replace(
                source,
                file_root=file_root if kind == "coco" else None,
                reader_args=_reader_args(kind),
                keypoints=kind == "coco" and _has_keypoints(path),
            )
        return spec.with_source(source)
    source = switched(old, kind, path, file_root)
    return spec.replace_node(source).outputs_read_as(old, source)


def switched(old: Source, kind: str, path: str | None, file_root: str | None = None) -> Source:
    """`old` reading `kind` data from `path` (a COCO file's images from `file_root`): its
    shuffling, seed and bad-file handling stay; its reader's arguments start afresh where the
    reader changes (a folder's and readers.coco's are not the same)."""
    crossing = old.reads_coco != (kind in COCO_KINDS)
    return dataclasses.replace(
        old,
        kind=kind,  # type: ignore[arg-type]
        path=path or None,
        file_root=file_root if kind == "coco" or old.kind == "coco" else old.file_root,
        reader_args=(_reader_args(kind) if kind in COCO_KINDS else {})
        if crossing
        else old.reader_args,
        keypoints=kind == "coco" and _has_keypoints(path),
    )


def _has_keypoints(path: str | None) -> bool:
    """Whether a COCO file (None: the bundled annotated samples) labels any keypoints; a file
    that cannot be read has none here, and opening the source says what is wrong with it."""
    try:
        index = read_coco(Path(path) if path else sample_annotations())
    except DataError:
        return False
    return any(obj.keypoints for image in index.images for obj in image.objects)


def _reader_args(kind: str) -> dict[str, Any]:
    """What a COCO-read source reads when picked in the panel (a YOLO folder has no polygons)."""
    if kind == "yolo":
        return {key: value for key, value in COCO_READER_ARGS.items() if key != "polygon_masks"}
    return dict(COCO_READER_ARGS)
