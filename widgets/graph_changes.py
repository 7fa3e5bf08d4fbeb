"""What changed between two graphs, in a few words: the Export and Statistics tabs say it beside
code or figures that were made from another graph than the one shown now."""

from __future__ import annotations

import dataclasses

from augexplorer.spec import GraphSpec, Source

# Past this many names a list says how many more there are.
MAX_NAMED = 3


def graph_changes(old: GraphSpec, new: GraphSpec) -> str:
    """`new` against `old`: the nodes added, removed or changed, the data source and the batch
    size (e.g. ``removed rotate; changed crop``); "" when they are the same graph."""
    if old is new or old == new:
        return ""
    said: list[str] = []
    old_ids, new_ids = old.ids(), new.ids()
    added = [i for i in new_ids if i not in old]
    removed = [i for i in old_ids if i not in new]
    changed = [
        i
        for i in new_ids
        if i in old
        and old.node(i) != new.node(i)
        and not _both_sources(old, new, i)
        and not _follows_removal(old, new, i, removed)
    ]
    for verb, names in (("added", added), ("removed", removed), ("changed", changed)):
        if names:
            said.append(f"{verb} {_names(names)}")
    if [s.id for s in old.sources()] == [s.id for s in new.sources()] and _data(old) != _data(new):
        said.append("other data")
    if old.batch_size != new.batch_size:
        said.append(f"batch {old.batch_size} → {new.batch_size}")
    kept = [i for i in new_ids if i in old]
    if not said and kept != [i for i in old_ids if i in new]:
        said.append("nodes reordered")
    if not said and old.name != new.name:
        said.append(f"renamed {old.name} → {new.name}")
    return "; ".join(said) or "other settings"


def other_data(old: GraphSpec, new: GraphSpec) -> bool:
    """Whether `new` reads other data than `old` (another folder, file list or annotations)."""
    return _data(old) != _data(new)


def _data(spec: GraphSpec) -> list[tuple[object, ...]]:
    return [(s.kind, s.path, s.file_root) for s in spec.sources()]


def _both_sources(old: GraphSpec, new: GraphSpec, node_id: str) -> bool:
    """Whether `node_id` is a source in both that differs only in the data it reads: said once,
    as "other data" (its other settings, such as skipping bad files, are changes like any
    other)."""
    a, b = old.node(node_id), new.node(node_id)
    if not (isinstance(a, Source) and isinstance(b, Source)):
        return False
    same_data = dataclasses.replace(b, kind=a.kind, path=a.path, file_root=a.file_root)
    return same_data == a


def _follows_removal(old: GraphSpec, new: GraphSpec, node_id: str, removed: list[str]) -> bool:
    """Whether `node_id` differs only in reading what a removed node read: the removal's doing,
    said once as "removed ..."."""
    a, b = old.node(node_id), new.node(node_id)
    if isinstance(a, Source) or isinstance(b, Source) or a.inputs == b.inputs:
        return False
    gone = {ref.node for ref in a.inputs if ref not in b.inputs}
    return gone <= set(removed) and dataclasses.replace(b, inputs=a.inputs) == a


def _names(names: list[str]) -> str:
    if len(names) <= MAX_NAMED:
        return ", ".join(names)
    return f"{', '.join(names[:MAX_NAMED])} and {len(names) - MAX_NAMED} more"
