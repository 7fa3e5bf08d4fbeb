"""The DALI reader behind each kind of data source, and which of its arguments a source holds.

Folders, file lists and the bundled samples are read by ``fn.readers.file``; a COCO source
(images with boxes, labels and masks) and a YOLO folder (converted to a COCO file) by
``fn.readers.coco``. The arguments in
:data:`SOURCE_OWNED` are fields of :class:`~augexplorer.spec.Source` (or are set from them);
every other argument of the reader is carried as it is in ``Source.reader_args``.
"""

from __future__ import annotations

READER = "readers.file"
COCO_READER = "readers.coco"

# reader argument -> how a source says it (for import, validation and error messages)
SOURCE_OWNED: dict[str, str] = {
    "files": "the files the source lists (its path)",
    "labels": "the labels the source lists (its path)",
    "file_root": "the source's path (a folder) or file_root (a file list)",
    "file_list": "the source's path (a file list)",
    "random_shuffle": "the source's shuffle",
    "seed": "the source's seed",
    "name": "the source's id",
}

COCO_OWNED: dict[str, str] = {
    "annotations_file": "the source's path (the COCO annotations file)",
    "file_root": "the source's file_root (the images folder)",
    "images": "the images the source reads (all annotated images, less those skip_bad leaves out)",
    "random_shuffle": "the source's shuffle",
    "seed": "the source's seed",
    "name": "the source's id",
}

YOLO_OWNED: dict[str, str] = {
    **COCO_OWNED,
    "annotations_file": "the source's path (the YOLO folder, converted to a COCO file)",
    "file_root": "the source's path (the YOLO folder)",
}

# Arguments the exported module also sets for sharding under torchrun: a graph's values are
# the defaults of its pipeline function, make_loader's shard settings take their place.
SHARDING = ("shard_id", "num_shards")


# Every epoch reads each file once: a shard whose size the batch does not divide ends in a batch
# padded with its last sample (which make_loader's iterator drops or keeps, as its policy says),
# not one filled from the next epoch; that next epoch would then lack those files and read others
# twice. A graph's own reader arguments may still set it.
EPOCH_WHOLE: dict[str, bool] = {"pad_last_batch": True}
# What DALI does where a pipeline sets none of those: an imported pipeline keeps it, so that its
# graph runs the batches the code ran (docs/importing.md says how to read whole epochs).
EPOCH_AS_DALI_DOES: dict[str, bool] = {"pad_last_batch": False}


def reader_of(kind: str) -> str:
    """The DALI reader that reads a source of this kind (none reads in-memory arrays)."""
    return COCO_READER if kind in ("coco", "yolo") else READER


def owned_by_source(kind: str) -> dict[str, str]:
    """The reader arguments a source of this kind sets itself, and how it says them."""
    if kind == "yolo":
        return YOLO_OWNED
    return COCO_OWNED if kind == "coco" else SOURCE_OWNED
