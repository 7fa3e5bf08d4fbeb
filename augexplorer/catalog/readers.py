"""The DALI reader behind data sources, and which of its arguments a source holds itself.

Every source but in-memory arrays is read by ``fn.readers.file``. The arguments below are
fields of :class:`~augexplorer.spec.Source` (or are set from them); every other argument of
the reader is carried as it is in ``Source.reader_args``.
"""

from __future__ import annotations

READER = "readers.file"

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

# Arguments the exported module also sets for sharding under torchrun: a graph's values are
# the defaults of its pipeline function, make_loader's shard settings take their place.
SHARDING = ("shard_id", "num_shards")
