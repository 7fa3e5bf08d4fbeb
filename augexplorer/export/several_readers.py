"""What a graph reading several sources must be for an exported module to read them all: every
source a folder or file list (``fn.readers.file``: images and masks of a segmentation set, the
two readers of a MixUp), as the module's loader reads each one's data by name, shards them all
by the same rank and rank count, and counts its epoch by the first.

What cannot be kept is refused with its fix: a COCO, YOLO or in-memory source among them (the
module's loader of those reads one source), schedules (their loader drives one reader), and
readers that differ in what the module holds once for all (skipping bad files, the sharding
arguments)."""

from __future__ import annotations

from ..spec import GraphSpec

# The sources a loader of several readers reads: readers.file's.
FILE_KINDS = frozenset({"samples", "folder", "file_list"})
# Reader arguments the module holds once, for every reader (the pipeline's shard_id and
# num_shards defaults).
SHARED_ARGS = ("shard_id", "num_shards")


def several_readers_problem(spec: GraphSpec) -> str | None:
    """Why the sources of `spec` (two or more) cannot be exported together, or None."""
    sources = spec.sources()
    named = ", ".join(f"{s.id!r} ({s.kind})" for s in sources)
    others = [s for s in sources if s.kind not in FILE_KINDS]
    if others:
        return (
            f"an exported module reads several sources only where each is a folder or a file "
            f"list; this graph reads {named} (fix: keep one {others[0].kind} source and wire "
            "every node to it, or read each source from a folder or a file list)"
        )
    if spec.schedules:
        return (
            f"a graph with schedules is exported for one reader; this one has {len(sources)} "
            f"({named}) (fix: export it with the schedules removed, or keep one source)"
        )
    if len({s.skip_bad for s in sources}) > 1:
        skipping = ", ".join(repr(s.id) for s in sources if s.skip_bad)
        return (
            f"only {skipping} of the sources {named} skip bad files, and an exported module "
            "skips them for every reader or none (fix: set skip bad files alike on every source)"
        )
    for name in SHARED_ARGS:
        values = {s.id: s.reader_args.get(name) for s in sources}
        if len(set(values.values())) > 1:
            return (
                f"the sources give {name} as {values}, and an exported module shards every "
                f"reader alike, as make_loader's ranks say (fix: give {name} alike on every "
                "source, or leave it out)"
            )
    return None
