"""Graphs from Python files and pipelines: the way back from code to an editable graph.

A module exported by augexplorer carries its graph as a ``GRAPH = {...}`` literal, read here
with :func:`ast.literal_eval` (no code runs). A spec (``.json``, or any file holding a JSON
object) is read as a spec, never executed. Any other Python file can only be imported by
**running** it (as a module not named ``__main__``) to find its ``@pipeline_def`` functions or
built ``Pipeline`` objects, whose ``serialize()`` output becomes the graph; that happens only
when the caller allows it (``run_file=True``, ``--run-file``). Which pipeline, and the values of
a ``@pipeline_def`` function's parameters: :mod:`.code_pipelines`.
"""

from __future__ import annotations

import ast
import json
import runpy
import traceback
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..errors import SpecFormatError
from ..spec import GraphSpec
from ..spec.io import from_json, loads
from .code_pipelines import (
    RUN_NAME,
    SAMPLE_BATCH,
    batch_size_chosen,
    build,
    choose,
    defaults_of,
    on_this_machine,
    parameter_values,
)
from .derived_seeds import (
    DrawsDiffer,
    draws_differ_message,
    unseeded_message,
    unseeded_random_nodes,
)
from .edited_code import CodeEdited, edited_code_note
from .inline_lists import ListWriter, in_cache
from .serialized import ImportRefused, graph_from_serialized


class ImportWouldRun(ImportRefused):
    """A file that can be imported only by running it, which the caller did not allow."""


def import_graph(
    path: str | Path,
    *,
    pipeline: str | None = None,
    run_file: bool = False,
    params: Mapping[str, Any] | None = None,
    write_list: ListWriter = in_cache,
) -> GraphSpec:
    """The graph of a file: an exported module's ``GRAPH`` literal or a spec (nothing runs);
    else, only with `run_file`, the pipeline its code builds (the file **runs**, with the
    caller's permissions). A pipeline the file builds from its own ``@pipeline_def`` is chosen
    over the function; `pipeline` names one when there are several. A file with only a
    ``@pipeline_def`` function has it built, with `params` as its parameters' values. A reader
    given ``files=`` in code reads them from a file list `write_list` writes (by default in
    the cache; :mod:`.inline_lists`)."""
    path = Path(path)
    if path.is_dir():
        raise SpecFormatError(
            f"{path} is a folder (fix: give a module exported by augexplorer, a spec (.json), "
            "or a Python file with a @pipeline_def)"
        )
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SpecFormatError(f"{path}: no such file") from None
    except UnicodeDecodeError:
        raise SpecFormatError(f"{path}: not a text file") from None
    from ..port.door import is_port_file, port_file

    if is_port_file(path, text):  # a torchvision or albumentations Compose: read, not run
        return port_file(path, pipeline=pipeline, params=params).spec
    from ..port.albumentations.saved import is_saved_file

    if is_saved_file(path, text):  # albumentations' saved form (A.save): read, not run
        from ..port.albumentations import port_saved_file

        _refuse_params(path, params, "albumentations' saved form, read as it is")
        return port_saved_file(path).spec
    if path.suffix.lower() == ".json" or _is_json_object(text):
        _refuse_params(path, params, "a spec (JSON), read as one")
        try:
            return loads(text)
        except SpecFormatError as error:
            raise SpecFormatError(f"{path}: read as a spec (JSON), {error}") from None
    graph = graph_literal(text, str(path))
    if graph is not None:
        _refuse_params(path, params, "a module exported by augexplorer, read from its GRAPH")
        note = edited_code_note(text, graph, str(path))
        if note is not None:
            warnings.warn(CodeEdited(note), stacklevel=2)
        return graph
    if not run_file:
        raise ImportWouldRun(
            f"{path} is not a module exported by augexplorer (it has no GRAPH), so importing "
            f"it means running it: {what_would_run(text)}, with your permissions, before its "
            "pipeline is read through Pipeline.serialize(); nothing ran (fix: read the file, "
            "and if you trust it, import it with --run-file, or import_graph(..., run_file=True))"
        )
    return import_code(path, pipeline=pipeline, params=params, write_list=write_list)


def _refuse_params(path: Path, params: Mapping[str, Any] | None, what: str) -> None:
    if params:
        raise SpecFormatError(
            f"{path} is {what} without running anything, so parameters "
            f"({', '.join(params)}) have nothing to go to (fix: leave out --param)"
        )


def _is_json_object(text: str) -> bool:
    if not text.lstrip().startswith("{"):
        return False
    try:
        return isinstance(json.loads(text), dict)
    except (ValueError, RecursionError):
        return False


def _parse(text: str, where: str) -> ast.Module:
    try:
        return ast.parse(text)
    except SyntaxError as error:
        raise SpecFormatError(f"{where}: not valid Python (line {error.lineno})") from None
    except (ValueError, RecursionError, MemoryError) as error:  # null bytes, deep nesting
        raise SpecFormatError(f"{where}: not valid Python ({type(error).__name__})") from None


def what_would_run(text: str) -> str:
    """What running a Python file would do, read from its syntax without running it: the
    modules it imports, the pipelines it defines, how many other statements run."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return "the whole file would run as Python"
    modules: list[str] = []
    pipelines: list[str] = []
    others = 0
    for statement in tree.body:
        if isinstance(statement, ast.Import):
            modules += [alias.name for alias in statement.names]
        elif isinstance(statement, ast.ImportFrom):
            modules.append("." * statement.level + (statement.module or ""))
        elif isinstance(statement, ast.FunctionDef) and any(
            _names_pipeline_def(decorator) for decorator in statement.decorator_list
        ):
            pipelines.append(statement.name)
        elif isinstance(statement, ast.FunctionDef) and not statement.decorator_list:
            continue  # a plain definition runs nothing until called
        elif isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
            continue  # a docstring
        else:
            others += 1
    parts = [f"the whole file would run as Python ({len(text.splitlines())} lines"]
    if modules:
        parts.append(f"importing {', '.join(dict.fromkeys(modules))}")
    if pipelines:
        parts.append(f"defining the pipeline {', '.join(pipelines)}")
    parts.append(f"{others} other top-level statement{'s' if others != 1 else ''})")
    return "; ".join(parts)


def _names_pipeline_def(decorator: ast.expr) -> bool:
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
    return name == "pipeline_def"


def graph_literal(text: str, where: str = "module") -> GraphSpec | None:
    """The graph in a module-level ``GRAPH = {...}`` assignment (annotated or not: ``GRAPH:
    dict = {...}``), or None; never runs code."""
    tree = _parse(text, where)
    for statement in tree.body:
        value = _graph_value(statement)
        if value is not None:
            data = _literal(value, where, "GRAPH")
            if isinstance(data, dict):
                data = {**data, **_run_tables(tree, where)}
            return from_json(data)
    return None


# The module's tables of a graph with schedules (augexplorer.export.template_schedules), by the
# graph's JSON field they hold: the pipeline runs what they say, so an edit there comes back.
_RUN_TABLES = {"EPOCHS": "epochs", "SCHEDULES": "schedules"}


def _run_tables(tree: ast.Module, where: str) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for statement in tree.body:
        for name, field in _RUN_TABLES.items():
            value = _graph_value(statement, name)
            if value is not None:
                found[field] = _literal(value, where, name)
    return found


def _literal(value: ast.expr, where: str, name: str) -> Any:
    try:
        return ast.literal_eval(value)
    except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
        raise SpecFormatError(f"{where}: {name} is not a plain literal") from None


def _graph_value(statement: ast.stmt, name: str = "GRAPH") -> ast.expr | None:
    """The value `statement` gives `name`: ``GRAPH = ...`` or ``GRAPH: dict = ...``."""
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
        target: ast.expr = statement.targets[0]
        value: ast.expr | None = statement.value
    elif isinstance(statement, ast.AnnAssign):
        target, value = statement.target, statement.value
    else:
        return None
    return value if isinstance(target, ast.Name) and target.id == name else None


def import_code(
    path: str | Path,
    *,
    pipeline: str | None = None,
    params: Mapping[str, Any] | None = None,
    write_list: ListWriter = in_cache,
) -> GraphSpec:
    """Run the file and turn the pipeline it means into a graph (this executes its code:
    :func:`import_graph` calls it only when the caller allows it)."""
    path = Path(path)
    tree = _parse(path.read_text(encoding="utf-8"), str(path))
    namespace = _run(path)
    chosen = choose(namespace, tree, where=str(path), pipeline=pipeline, params=params)
    value = on_this_machine(chosen, namespace, where=str(path))
    try:
        return import_pipeline(
            value,
            name=chosen.graph_name,
            params=params,
            write_list=write_list,
            values=parameter_values(chosen, namespace),
        )
    except ImportRefused as error:
        raise ImportRefused(f"{path}: {error}") from None


def _run(path: Path) -> dict[str, Any]:
    """The file's namespace after running it (as a module not named ``__main__``, so its
    ``if __name__ == "__main__":`` block stays out); its failure becomes one line."""
    try:
        return runpy.run_path(str(path), run_name=RUN_NAME)
    except (Exception, SystemExit) as error:  # the user's code: anything it raises is theirs
        lines = [
            frame.lineno
            for frame in traceback.extract_tb(error.__traceback__)
            if Path(frame.filename) == path or frame.filename == str(path)
        ]
        where = f" at line {lines[-1]}" if lines else ""
        message = str(error).strip().splitlines()
        removed = removed_operator(error)
        fix = (
            f"ops.{removed[0]} was removed from DALI; write {removed[1]}"
            if removed
            else f"make the file run on its own, python {path.name}, then import it again"
        )
        raise ImportRefused(
            f"{path}: running it failed{where}: {type(error).__name__}"
            f"{': ' + message[0] if message else ''} (fix: {fix})"
        ) from None


# Operators of DALI's early ops API that later versions removed (not kept as aliases, unlike
# ImageDecoder or FileReader), and what to write instead.
REMOVED_OPS = {
    **{
        f"nvJPEGDecoder{kind}": f'ops.decoders.Image{kind}(device="mixed")'
        for kind in ("", "Crop", "RandomCrop", "Slice")
    },
    **{
        f"HostDecoder{kind}": f'ops.decoders.Image{kind}(device="cpu")'
        for kind in ("", "Crop", "RandomCrop", "Slice")
    },
    "NormalizePermute": 'ops.CropMirrorNormalize(mean=..., std=..., output_layout="CHW")',
}


def removed_operator(error: BaseException) -> tuple[str, str] | None:
    """The removed operator an AttributeError of ``nvidia.dali.ops`` names, and its
    replacement."""
    name = getattr(error, "name", None)
    if isinstance(error, AttributeError) and "nvidia.dali.ops" in str(error) and name:
        replacement = REMOVED_OPS.get(str(name))
        if replacement is not None:
            return str(name), replacement
    return None


def pipelines_in(namespace: dict[str, Any]) -> dict[str, Any]:
    from nvidia.dali import Pipeline

    return {
        name: value
        for name, value in namespace.items()
        if not name.startswith("_")
        and (isinstance(value, Pipeline) or getattr(value, "_is_pipeline_def", False))
    }


def import_pipeline(
    pipeline: Any,
    *,
    name: str = "imported",
    params: Mapping[str, Any] | None = None,
    write_list: ListWriter = in_cache,
    values: Mapping[str, Any] | None = None,
) -> GraphSpec:
    """The graph of a ``Pipeline``, or of a ``@pipeline_def`` function built with `params` as
    its parameters' values (on the CPU where there is no GPU; see :func:`.code_pipelines.build`).
    `values`: those the function's parameters had when a built pipeline was made (the function's
    own are known here), for arguments of policy calls written with them."""
    import dataclasses

    from nvidia.dali import Pipeline

    chosen = False  # the batch size: the import's sample one
    if not isinstance(pipeline, Pipeline):
        values = {**defaults_of(pipeline), **(params or {})}
        pipeline, chosen = build(pipeline, name=name, params=params)
    elif params:
        raise ImportRefused(
            f"pipeline {name!r} is already built, so parameters ({', '.join(params)}) cannot "
            "change it (fix: pass its @pipeline_def function instead)"
        )
    try:
        data = pipeline.serialize()
    except Exception as error:  # DALI raises RuntimeError for python_function and friends
        callbacks = ("python_function", "DLTensorPythonFunction", "PythonFunction")
        callback = next((n for n in callbacks if n in str(error)), None)
        if callback is not None:
            from .refusals import python_function_place, refusal_text

            raise ImportRefused(
                f"pipeline {name!r}: " + refusal_text(callback, python_function_place(pipeline))
            ) from None
        raise ImportRefused(
            f"pipeline {name!r} cannot be serialized by DALI, so it cannot be imported: {error}"
        ) from None
    spec = graph_from_serialized(data, name=name, write_list=write_list, values=values)
    batch_size = int(pipeline.max_batch_size or 0)
    seed = getattr(pipeline, "seed", -1)
    unseeded = unseeded_random_nodes(spec)
    if isinstance(seed, int) and seed != -1 and unseeded:
        warnings.warn(DrawsDiffer(draws_differ_message(seed, unseeded)), stacklevel=2)
    elif unseeded:
        # the pipeline draws anew on every run; the graph's nodes take seeds of their own
        warnings.warn(DrawsDiffer(unseeded_message(name, unseeded)), stacklevel=2)
    if chosen:
        warnings.warn(batch_size_chosen(name), stacklevel=2)
    return dataclasses.replace(spec, batch_size=batch_size if batch_size > 0 else SAMPLE_BATCH)
