"""What a statistics run was computed on: the graph as it ran and the data it read.

Figures are only true of the graph and the data they were counted on; a report that carries both
can say when it no longer describes the graph shown (another graph, an edit, other data) instead
of passing for the current one's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..spec import GraphSpec, Source


@dataclass(frozen=True)
class Provenance:
    graph: GraphSpec  # the graph counted, as it ran (its seeds included)
    data: str  # the data read, in words: "the bundled samples", "folder /data/photos", ...
    # the data's identity: each source's kind, path and image folder; in-memory arrays by object
    data_key: tuple[Any, ...]

    @classmethod
    def of(cls, graph: GraphSpec, arrays: Any = None) -> Provenance:
        return cls(graph, describe_data(graph, arrays), data_key(graph, arrays))

    def other_data(self, graph: GraphSpec, arrays: Any = None) -> bool:
        """Whether `graph` (fed `arrays`) reads other data than these figures were counted on."""
        return data_key(graph, arrays) != self.data_key

    def to_json(self) -> dict[str, Any]:
        from ..spec import to_json

        return {"data": self.data, "graph": to_json(self.graph)}


def describe_data(graph: GraphSpec, arrays: Any = None) -> str:
    """The data `graph` reads, in words (every source, joined)."""
    said = [_describe(source, arrays) for source in graph.sources()]
    return "; ".join(said) or "no data source"


def data_key(graph: GraphSpec, arrays: Any = None) -> tuple[Any, ...]:
    return tuple(
        (s.kind, s.path, s.file_root, id(arrays) if s.kind == "arrays" else None)
        for s in graph.sources()
    )


def _describe(source: Source, arrays: Any) -> str:
    if source.kind == "samples":
        return "the bundled samples"
    if source.kind == "arrays":
        count = _length(arrays)
        return "images in memory" + (f" ({count})" if count is not None else "")
    if source.kind == "coco" and source.path is None:
        return "the bundled annotated samples"
    what = {
        "folder": "folder",
        "file_list": "file list",
        "coco": "COCO file",
        "yolo": "YOLO folder",
    }
    said = f"{what.get(source.kind, source.kind)} {source.path}"
    if source.file_root:
        said += f" (images from {source.file_root})"
    return said


def _length(arrays: Any) -> int | None:
    try:
        return len(arrays)
    except TypeError:
        return None
