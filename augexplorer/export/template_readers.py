"""The fixed text that a module reading several folder or file list sources (two
``fn.readers.file``: images and masks, MixUp of two readers) writes in place of the one
reader's loader; ``@@name@@`` marks what codegen fills in, as in :mod:`.template`.

Every reader keeps its own data, file root and seed as the graph holds them; the loader shards
them all by the same rank and rank count, so readers of as many files in the same order (one
seed) stay paired on every rank."""

from __future__ import annotations

from .template import (
    _MAIN,
    _READER_PIPELINE,
    _READER_PIPELINE_OPTIONS,
    _RESUMABLE,
    _RESUMED,
    HEADER,
    READER_LOADER_START,
)

_ONE_READER = "`make_loader(data)`: a PyTorch DALIGenericIterator over a folder or a file list."
assert _ONE_READER in HEADER
HEADER_READERS = HEADER.replace(
    _ONE_READER, "`make_loader()`: a PyTorch DALIGenericIterator over every reader's DATA."
)

READERS_CONSTANTS = """# The readers of the pipeline, by name, and the folder each file list's relative entries are
# read from (as DALI's file_root; None: the list's own folder). DATA holds each reader's data.
READERS = @@readers@@
FILE_ROOTS = @@file_roots@@


def read_readers(data):
    \"\"\"(files, labels) of every reader, by name: `data` holds a folder or a file list for any
    of READERS, the others reading DATA's.\"\"\"
    if not isinstance(data, dict):
        raise TypeError(
            f"{data!r:.80}: this module has {len(READERS)} readers, whose data make_loader takes "
            "by name (fix: make_loader({'" + READERS[0] + "': 'path/to/list.txt'}), or "
            "make_loader() for DATA's)"
        )
    unknown = sorted(set(data) - set(READERS))
    if unknown:
        raise ValueError(
            f"no reader named {', '.join(unknown)} (fix: give the data of {', '.join(READERS)}, "
            "by name: make_loader({'" + READERS[0] + "': 'path/to/list.txt'}))"
        )
    files, labels = {}, {}
    for name in READERS:
        path = data.get(name, DATA[name])
        files[name], labels[name], table = read_data(path, FILE_ROOTS[name])
        if table is not None:
            raise ValueError(
                f"{path}: reader {name!r} reads a list with several labels per image, which a "
                "loader of several readers does not give (fix: one label per line)"
            )
    return files, labels

"""

LOADER_READERS = (
    READER_LOADER_START.replace(
        "@@data_doc@@",
        "each reader's data by its name (READERS): a folder of class sub-folders or a file\n"
        "    list; a reader left out reads DATA's. Every reader reads its shard of the same rank\n"
        "    and rank count: readers of as many files with one seed stay paired",
    )
    + """    files, labels = read_readers(data)
"""
    + _RESUMED.replace("@@data@@", "files")
    + _READER_PIPELINE.replace("@@arguments@@", "            files,\n            labels,\n")
    + _READER_PIPELINE_OPTIONS
    + """    # the epoch and its padding are the first reader's, as DALI's iterator counts them
    return Batches(
        [pipe],
        OUTPUTS,
        files=[path for name in READERS for path in files[name]],
        unreadable=unreadable,
        reader_name=@@reader@@,
        last_batch_policy=last_batch_policy,
        auto_reset=True,
"""
    + _RESUMABLE
    + """    )

"""
)

MAIN_READERS = _MAIN.replace("@@data_argument@@", "").replace("@@data_value@@", "DATA")
