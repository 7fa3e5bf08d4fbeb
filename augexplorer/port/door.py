"""The way in for another library's pipeline: a file or notebook (read, never run), or a live
Compose object, ported into a graph by its library's mapping.

A Python file is ported when it builds a torchvision or albumentations Compose and is neither
a module exported by augexplorer (it has a ``GRAPH``) nor DALI code (it imports
``nvidia.dali``): those have their own ways in (:mod:`augexplorer.export.importer`).
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .albumentations.loaded import Loaded, loaded_pipelines, saved_path
from .albumentations.masks import with_masks_called
from .build import DataSource
from .live import library_major, read_live
from .model import PortResult, TransformCall
from .reading import FoundPipeline, ReadRefused, choose, file_source, read_source

PORTED_LIBRARIES = ("torchvision", "albumentations")


def is_port_file(path: Path, text: str) -> bool:
    """Whether `text` (the file at `path`) is another library's pipeline to port: it builds a
    torchvision or albumentations Compose (itself, by a builder of another of the project's
    files, or by loading a saved albumentations pipeline), has no GRAPH and does not import
    DALI."""
    if path.suffix.lower() == ".ipynb":
        try:
            text = file_source(path)
        except ReadRefused:
            return False
    elif path.suffix.lower() not in (".py", ""):
        return False
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    for node in ast.walk(tree):
        if isinstance(node, ast.Import) and any(
            a.name.startswith("nvidia.dali") for a in node.names
        ):
            return False
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("nvidia.dali"):
            return False
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "GRAPH" for t in node.targets
        ):
            return False
    try:
        # a pipeline its builder of another of the project's files returns counts too
        if read_source(text, origin=path):
            return True
    except ReadRefused:
        pass
    # A.load("aug.yaml") or A.from_dict(...): the saved pipeline, read as it is
    return bool(loaded_pipelines(text))


def port_file(
    path: str | Path,
    *,
    pipeline: str | None = None,
    params: Mapping[str, Any] | None = None,
    data: DataSource | None = None,
) -> PortResult:
    """Port the pipeline of a Python file or notebook (read without running it); `pipeline`
    names one where it has several, `params` gives values the file leaves to run time."""
    path = Path(path)
    text = file_source(path)
    found = read_file_pipelines(path, text, params)
    if not found and loaded_pipelines(text):
        return _port_loaded(path, text, pipeline, data)
    return port_found(choose(found, pipeline, where=str(path)), data=data)


def read_file_pipelines(
    path: Path, text: str, params: Mapping[str, Any] | None = None
) -> list[FoundPipeline]:
    """The pipelines `text` (the file at `path`) writes; none, rather than its refusal, where
    it writes none but loads a saved albumentations pipeline (``A.load``), which is then the
    one to take."""
    try:
        return read_source(text, where=str(path), params=params, origin=path)
    except ReadRefused:
        if not loaded_pipelines(text):
            raise
        return []


def _port_loaded(
    path: Path, text: str, pipeline: str | None, data: DataSource | None
) -> PortResult:
    """A file that loads its albumentations pipeline (``A.load``, ``A.from_dict``): the saved
    file it reads, ported as albumentations saved it."""
    from .albumentations import port_saved_file

    one = loaded_chosen(path, text, pipeline)
    result = port_saved_file(saved_path(one, path.parent), name=_graph_name(one.target), data=data)
    said = f"line {one.line}: {one.target} = {one.call}: ported from the saved file it loads"
    return dataclasses.replace(result, notes=(*result.notes, said))


def loaded_chosen(path: Path, text: str, pipeline: str | None) -> Loaded:
    """The one ``A.load`` or ``A.from_dict`` of the file named `pipeline` (or its only one)."""
    loaded = loaded_pipelines(text)
    chosen = [one for one in loaded if pipeline in (None, one.target)]
    if len(chosen) != 1:
        names = ", ".join(one.target for one in loaded)
        raise ReadRefused(
            f"{path} loads {len(loaded)} albumentations pipelines ({names}) (fix: pick one "
            "with --pipeline NAME, or pipeline='NAME')"
        )
    return chosen[0]


def port_found(found: FoundPipeline, *, data: DataSource | None = None) -> PortResult:
    result = port_call(found.compose, name=_graph_name(found.name), data=data)
    # masks the file gives the pipeline with its images, which its arguments may not show
    result = with_masks_called(result, found.compose, found.mask_calls)
    # the parameter defaults the reading took: said, as a caller may pass other values
    notes = (*result.notes, *found.defaults, *found.batch_mixes)
    return dataclasses.replace(result, notes=notes)


def port_object(obj: Any, *, name: str = "ported", data: DataSource | None = None) -> PortResult:
    """Port a live Compose (torchvision or albumentations), read from its attributes without
    calling it. An albumentations object is ported with the semantics of the version that
    made it (its names are that version's)."""
    compose = read_live(obj)
    if compose.library == "albumentations":
        from .albumentations import port

        return port(compose, name=name, data=data, version=library_major(obj) or 2)
    return port_call(compose, name=name, data=data)


def port_call(
    compose: TransformCall, *, name: str = "ported", data: DataSource | None = None
) -> PortResult:
    """Port a read compose with its library's mapping."""
    if compose.library not in PORTED_LIBRARIES:
        raise ReadRefused(
            f"{compose.name} is not a torchvision or albumentations Compose (fix: pass the "
            "Compose itself)"
        )
    module = importlib.import_module(f"{__package__}.{compose.library}")
    result: PortResult = module.port(compose, name=name, data=data)
    return result


def _graph_name(name: str) -> str:
    """A graph name from a pipeline's name in the file (``self.transform`` -> ``transform``,
    ``data_transforms['train']`` -> ``data_transforms_train``)."""
    head, bracket, keys = name.partition("[")
    last = head.rsplit(".", 1)[-1] + bracket + keys
    cleaned = "".join(c if c.isalnum() or c == "_" else " " for c in last)
    return "_".join(cleaned.split()).strip("_") or "ported"
