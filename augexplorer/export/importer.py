"""Graphs from Python files and pipelines: the way back from code to an editable graph.

A module exported by augexplorer carries its graph as a ``GRAPH = {...}`` literal, read here
with :func:`ast.literal_eval` (no code runs). Any other file is **executed** (as a module not
named ``__main__``) to find its ``@pipeline_def`` functions or built ``Pipeline`` objects, whose
``serialize()`` output becomes the graph: import only files you trust.
"""

from __future__ import annotations

import ast
import runpy
from pathlib import Path
from typing import Any

from ..errors import SpecFormatError
from ..spec import GraphSpec
from ..spec.io import from_json
from .serialized import ImportRefused, graph_from_serialized

SAMPLE_BATCH = 8


def import_graph(path: str | Path, *, pipeline: str | None = None) -> GraphSpec:
    """The graph of a Python file: its ``GRAPH`` literal if it has one (nothing runs), else the
    pipeline its code builds (the file **runs**). `pipeline` picks one when it defines several."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SpecFormatError(f"{path}: no such file") from None
    except UnicodeDecodeError:
        raise SpecFormatError(f"{path}: not a text file") from None
    graph = graph_literal(text, str(path))
    if graph is not None:
        return graph
    return import_code(path, pipeline=pipeline)


def graph_literal(text: str, where: str = "module") -> GraphSpec | None:
    """The graph in a module-level ``GRAPH = {...}`` assignment, or None; never runs code."""
    try:
        tree = ast.parse(text)
    except SyntaxError as error:
        raise SpecFormatError(f"{where}: not valid Python (line {error.lineno})") from None
    for statement in tree.body:
        if (
            isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name)
            and statement.targets[0].id == "GRAPH"
        ):
            try:
                data = ast.literal_eval(statement.value)
            except ValueError:
                raise SpecFormatError(f"{where}: GRAPH is not a plain literal") from None
            return from_json(data)
    return None


def import_code(path: str | Path, *, pipeline: str | None = None) -> GraphSpec:
    """Run the file and turn the pipeline it defines into a graph (this executes its code)."""
    namespace = runpy.run_path(str(path), run_name="__augexplorer_import__")
    found = pipelines_in(namespace)
    if pipeline is not None:
        if pipeline not in found:
            raise ImportRefused(
                f"{path}: no pipeline named {pipeline!r}; found: {', '.join(found) or 'none'}"
            )
        found = {pipeline: found[pipeline]}
    if not found:
        raise ImportRefused(
            f"{path}: no @pipeline_def function or Pipeline object at module level "
            "(fix: define one, or export the graph from augexplorer)"
        )
    if len(found) > 1:
        raise ImportRefused(
            f"{path}: several pipelines ({', '.join(found)}); choose one with --pipeline NAME"
        )
    name, value = next(iter(found.items()))
    return import_pipeline(value, name=name)


def pipelines_in(namespace: dict[str, Any]) -> dict[str, Any]:
    from nvidia.dali import Pipeline

    return {
        name: value
        for name, value in namespace.items()
        if not name.startswith("_")
        and (isinstance(value, Pipeline) or getattr(value, "_is_pipeline_def", False))
    }


def import_pipeline(pipeline: Any, *, name: str = "imported") -> GraphSpec:
    """The graph of a ``Pipeline`` or a ``@pipeline_def`` function (called with no arguments of
    its own, on the CPU)."""
    import dataclasses

    from nvidia.dali import Pipeline

    if not isinstance(pipeline, Pipeline):
        try:
            built = pipeline(num_threads=1, device_id=None)
            if (built.max_batch_size or -1) <= 0:  # the decorator set no batch size
                built = pipeline(batch_size=SAMPLE_BATCH, num_threads=1, device_id=None)
            pipeline = built
        except TypeError as error:
            raise ImportRefused(
                f"pipeline {name!r} needs arguments to be built ({error}); build it in the file "
                "(pipe = my_pipeline(...)) and import that"
            ) from None
    try:
        data = pipeline.serialize()
    except Exception as error:  # DALI raises RuntimeError for python_function and friends
        raise ImportRefused(
            f"pipeline {name!r} cannot be serialized by DALI, so it cannot be imported: {error}"
        ) from None
    spec = graph_from_serialized(data, name=name)
    batch_size = int(pipeline.max_batch_size or 0)
    return dataclasses.replace(spec, batch_size=batch_size if batch_size > 0 else SAMPLE_BATCH)
