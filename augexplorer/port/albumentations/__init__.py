"""albumentations pipelines ported into DALI graphs: the saved form read (:mod:`.saved`), one
mapping per transform by family (:mod:`.geometric`, :mod:`.colour`, :mod:`.blur_noise`,
:mod:`.dropout`), and the composes (:mod:`.library`). :func:`port` turns a read pipeline into a
graph."""

from __future__ import annotations

from pathlib import Path

from ..build import DataSource, build_graph
from ..model import PortResult, TransformCall
from .library import MAPPING
from .saved import (
    SavedFormError,
    SavedPipeline,
    is_saved_file,
    looks_saved,
    read_saved,
    read_saved_file,
)


def port(
    compose: TransformCall,
    *,
    name: str = "ported",
    data: DataSource | None = None,
    batch_size: int = 8,
    seed: int = 0,
) -> PortResult:
    """The graph of an albumentations Compose (read from a file, a notebook or the saved form)."""
    return build_graph(compose, MAPPING, name=name, data=data, batch_size=batch_size, seed=seed)


def port_saved_file(
    path: str | Path, *, name: str | None = None, data: DataSource | None = None
) -> PortResult:
    """The graph of a pipeline albumentations saved (``A.save``: JSON or YAML), read without
    albumentations; the graph is named after the file."""
    path = Path(path)
    saved = read_saved_file(path)
    return port(saved.root, name=name or _graph_name(path.stem), data=data)


def _graph_name(stem: str) -> str:
    cleaned = "".join(c if c.isalnum() or c == "_" else "_" for c in stem)
    return cleaned.strip("_") or "ported"


__all__ = [
    "MAPPING",
    "SavedFormError",
    "SavedPipeline",
    "is_saved_file",
    "looks_saved",
    "port",
    "port_saved_file",
    "read_saved",
    "read_saved_file",
]
