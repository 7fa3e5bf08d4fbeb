"""Graphs from Python files and pipelines: the way back from code to an editable graph.

A module exported by augexplorer carries its graph as a ``GRAPH = {...}`` literal, read here
with :func:`ast.literal_eval` (no code runs). A spec (``.json``, or any file holding a JSON
object) is read as a spec, never executed. Any other Python file, or a notebook of DALI code,
can only be imported by **running** it (as ``python FILE`` runs it, as a module not named
``__main__``: :mod:`.script_run`) to find its ``@pipeline_def`` functions or built ``Pipeline``
objects, whose ``serialize()`` output becomes the graph; that happens only when the caller
allows it (``run_file=True``, ``--run-file``). Which pipeline, and the values of
a ``@pipeline_def`` function's parameters: :mod:`.code_pipelines`.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import json
import os
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..errors import SpecFormatError
from ..spec import GraphSpec, Source
from ..spec.io import from_json, loads
from .build_failures import in_user_code, made_without_threads, raised
from .code_pipelines import (
    RUN_NAME,
    SAMPLE_BATCH,
    Candidate,
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
    draws_per_sample,
    unseeded_message,
    unseeded_random_nodes,
)
from .deserialized import serialized
from .edited_code import CodeEdited, edited_code_note
from .held_pipelines import FirstOfSeveral, HeldPipeline, first_of_several, made_in_calls
from .inline_lists import ListWriter, in_cache
from .listed_outputs import (
    ListedOutputs,
    is_listed,
    listed_message,
    listed_outputs,
    names_pipeline_def,
)
from .missing_data import DataMissing, missing_data
from .script_run import (
    Code,
    RunFailed,
    StoppedForGpu,
    code_of,
    dali_reason,
    lines_in,
    run_code,
    source_lines,
)
from .serialized import ImportRefused, graph_from_serialized
from .stopped_call import shown_statement, values_in_call
from .unrun_call import ReadFromCall, UnrunCall, read_from_call_message, unrun_call


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
    if path.suffix.lower() == ".ipynb":  # DALI code in a notebook: its code cells run
        return _import_notebook(path, text, run_file, pipeline, params, write_list)
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
        raise _would_run(f"{path} is not a module exported by augexplorer (it has no GRAPH)", text)
    return import_code(path, pipeline=pipeline, params=params, write_list=write_list)


def _would_run(what: str, text: str) -> ImportWouldRun:
    return ImportWouldRun(
        f"{what}, so importing it means running it: {what_would_run(text)}, with your "
        "permissions, before its pipeline is read through Pipeline.serialize(); nothing ran "
        "(fix: read the file, and if you trust it, import it with --run-file, or "
        "import_graph(..., run_file=True))"
    )


def _import_notebook(
    path: Path,
    text: str,
    run_file: bool,
    pipeline: str | None,
    params: Mapping[str, Any] | None,
    write_list: ListWriter,
) -> GraphSpec:
    """A notebook of DALI code (another library's is ported before this): imported as its
    code cells run, one after another, only with `run_file`."""
    code = code_of(path, text)  # a file that is not a notebook is refused here
    if not run_file:
        raise _would_run(f"{path} is a notebook of code, not a graph", code.text)
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


def _parse(text: str, where: str, code: Code | None = None) -> ast.Module:
    try:
        return ast.parse(text)
    except SyntaxError as error:
        line = code.where(error.lineno or 0) if code else f"line {error.lineno}"
        raise SpecFormatError(f"{where}: not valid Python ({line})") from None
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
            names_pipeline_def(decorator) for decorator in statement.decorator_list
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
    """Run the file (a notebook: its code cells) and turn the pipeline it means into a graph
    (this executes its code: :func:`import_graph` calls it only when the caller allows it)."""
    path = Path(path)
    code = code_of(path, path.read_text(encoding="utf-8"))
    tree = _parse(code.text, str(path), code)
    with source_lines(code):  # a notebook's lines, for what reads the code after it ran
        namespace, stopped = _run(code)
        ran_in = os.getcwd()  # where the file's relative paths were read from
        chosen = choose(namespace, tree, where=str(path), pipeline=pipeline, params=params)
        if stopped is not None:
            # a pipeline made inside the call that stopped the file: built with what it writes
            written = {} if chosen.built else _written_in(stopped, code, tree, chosen, namespace)
            params = {**written, **(params or {})} or params
            message = _stopped_message(code, tree, stopped, chosen.name, written)
            warnings.warn(StoppedForGpu(message), stacklevel=2)
        unrun = (
            None if stopped is not None or chosen.built else _unrun(code, tree, chosen, namespace)
        )
        if unrun is not None:
            # made only under `if __name__ == "__main__":`, which the run skips:
            # built with what that call writes, its seed and batch size above all
            params = {**unrun[0].values, **(params or {})}
            warnings.warn(ReadFromCall(unrun[1]), stacklevel=2)
        if chosen.held_in > 1:
            held = HeldPipeline(chosen.name, chosen.value, chosen.held_in)
            warnings.warn(FirstOfSeveral(first_of_several(held)), stacklevel=2)
        value = on_this_machine(chosen, namespace, where=str(path))
        try:
            spec = import_pipeline(
                value,
                name=chosen.graph_name,
                params=params,
                write_list=write_list,
                values=parameter_values(chosen, namespace),
            )
        except ListedOutputs as error:
            raise ImportRefused(
                f"{path}: {_listed_in(code, tree, chosen.graph_name, error)}"
            ) from None
        except ImportRefused as error:
            # the warning is lost with the refusal: what the call gave and left goes with it
            said = f" ({unrun[1]})" if unrun is not None else ""
            raise ImportRefused(f"{path}: {error}{said}") from None
    return absolute_paths(spec, ran_in)


def _listed_in(code: Code, tree: ast.Module, name: str, error: ListedOutputs) -> str:
    """The refusal of outputs given in a list or a dict, naming the file's one place that
    gives them and the tuple to write (where the file gives them in one place only)."""
    cause = error.__cause__ or error
    places = listed_outputs(tree)
    if len(places) != 1:
        return listed_message(name, cause)
    (listed,) = places
    shown = shown_statement(code.text, tree, listed.line)
    return listed_message(name, cause, f"{code.where(listed.line)} (`{shown}`)", listed)


def _unrun(
    code: Code, tree: ast.Module, chosen: Candidate, namespace: Mapping[str, Any]
) -> tuple[UnrunCall, str] | None:
    """The one call of `chosen`'s definition the run did not reach, and what the import says
    of it; None where the file writes none, or several, or one that gives nothing to say."""
    unrun = unrun_call(tree, chosen.name, chosen.value, namespace)
    if unrun is None or not (unrun.values or unrun.unread):
        return None
    shown = shown_statement(code.text, tree, unrun.line)
    return unrun, read_from_call_message(chosen.name, code.where(unrun.line), shown, unrun)


def absolute_paths(spec: GraphSpec, folder: str) -> GraphSpec:
    """`spec` with its sources' relative paths (a folder, a file list, a COCO file, their
    ``file_root``) made absolute against `folder`, where the code that named them ran: DALI
    read them from there, and the graph must read the same files from any working folder."""
    nodes = tuple(
        _absolute_source(node, folder) if isinstance(node, Source) else node for node in spec.nodes
    )
    return dataclasses.replace(spec, nodes=nodes)


def _absolute_source(source: Source, folder: str) -> Source:
    def absolute(path: str | None) -> str | None:
        if not path or os.path.isabs(path):
            return path  # as written: an absolute path, or none
        return os.path.normpath(os.path.join(folder, path))

    return dataclasses.replace(
        source, path=absolute(source.path), file_root=absolute(source.file_root)
    )


def _run(code: Code) -> tuple[dict[str, Any], RunFailed | None]:
    """The file's namespace after running it (see :mod:`.script_run`); its failure becomes
    one line. Where DALI stopped it for want of a GPU after it had made a pipeline, what it
    had made is read, with the failure (the caller's :class:`.StoppedForGpu` warning says
    where it stopped)."""
    try:
        return run_code(code), None
    except RunFailed as failed:
        if failed.for_want_of_gpu() and failed.line:
            # and what the file's functions it was in had made (get_train_loader's pipe)
            made = {**failed.namespace, **made_in_calls(failed.error, code.path)}
            if _made_pipeline(made):
                return made, failed
        raise ImportRefused(_failed_message(code, failed)) from None


def _written_in(
    stopped: RunFailed,
    code: Code,
    tree: ast.Module,
    chosen: Candidate,
    namespace: Mapping[str, Any],
) -> dict[str, Any]:
    """What the statement that stopped the file passes to the pipeline definition `chosen`,
    where it makes the pipeline (:func:`.stopped_call.values_in_call`): the innermost of the
    file's lines that stopped (a function of the file that builds what it is given, called by
    a top-level statement that makes the pipeline)."""
    for line in reversed(lines_in(stopped.error, code.path)):
        values = values_in_call(tree, line, chosen.name, chosen.value, namespace)
        if values:
            return values
    return {}


def _made_pipeline(namespace: Mapping[str, Any]) -> bool:
    """Whether the file made a pipeline, or defined one (a ``@pipeline_def`` function, a
    ``Pipeline`` subclass), before it stopped: one made inside the call that stopped it
    (``DALIGenericIterator([get_pipeline(batch_size=16)], ...)``) is bound to no name, and its
    definition is built here as on a machine where the file ran through."""
    from nvidia.dali import Pipeline

    defined = any(
        inspect.isclass(value) and issubclass(value, Pipeline) and value.__module__ == RUN_NAME
        for value in namespace.values()
    )
    return defined or bool(pipelines_in(namespace))


def _stopped_message(
    code: Code, tree: ast.Module, failed: RunFailed, name: str, written: Mapping[str, Any]
) -> str:
    # the file's top-level statement: what follows it did not run (the failing line may be in
    # a function of the file it called, said beside it)
    outer = (lines_in(failed.error, code.path) or [failed.line])[0]
    where = code.where(outer)
    inner = ""
    if outer != failed.line:
        shown = shown_statement(code.text, tree, failed.line)
        inner = f", in what it calls, at {code.where(failed.line)} (`{shown}`)"
    read = ""
    if written:
        values = ", ".join(f"{key}={value!r}" for key, value in written.items())
        read = (
            f"; {name!r}, made where the file stopped, is built with the values written there "
            f"({values}; --param NAME=VALUE gives another)"
        )
    return (
        f"{code.path}: the file stopped at {where} "
        f"(`{shown_statement(code.text, tree, outer)}`){inner} for want of a GPU (DALI: "
        f"{dali_reason(failed.error)}); what follows {where} was not run, and the graph is read "
        f"from the pipelines made or defined before it{read} (fix: to run the whole file on a "
        "machine without a GPU, build its pipelines with device_id=None)"
    )


def _failed_message(code: Code, failed: RunFailed) -> str:
    error, path = failed.error, code.path
    where = f" at {code.where(failed.line)}" if failed.line else ""
    message = str(error).strip().splitlines()
    wrapped = in_user_code(error)
    if wrapped is not None:
        # raised inside a pipeline DALI converted for conditionals, while the file made it: the
        # line of the pipeline's code that raised, not the call that made the pipeline
        if Path(wrapped.file).resolve() == path.resolve():
            shown = f" (`{wrapped.code}`)" if wrapped.code else ""
            where = f" at {code.where(wrapped.line)}{shown}"
            said = wrapped.error
        else:
            said = raised(error)
        message = [said.partition(": ")[2] or said]  # its type is said before it
    removed = removed_operator(error)
    if removed:
        fix = f"ops.{removed[0]} was removed from DALI; write {removed[1]}"
    elif failed.for_want_of_gpu():
        fix = (
            "this machine has no GPU: build the pipeline with device_id=None where the file "
            "makes it, then import it again"
        )
    elif isinstance(error, SystemExit) and argparse_error(error) is not None:
        # argparse has printed its usage and exited: the import gives no script arguments
        message = [f"{error.code}, argparse: {argparse_error(error)}"]
        fix = (
            "an import runs the file with no command-line arguments: give those arguments "
            'defaults (default=...), or parse them under `if __name__ == "__main__":` and '
            "give the pipeline's values with --param"
        )
    elif made_without_threads(error):
        fix = (
            "the pipeline was made without num_threads, which DALI needs to build it: give it, "
            "num_threads=4 in @pipeline_def(...) or where the file makes the pipeline, then "
            "import it again"
        )
    elif isinstance(error, TypeError) and "used in conditional context" in str(error):
        fix = (
            "an `if` on data needs DALI's conditionals: write @pipeline_def("
            "enable_conditionals=True) on the pipeline's function, then import it again"
        )
    else:
        fix = f"make the file run on its own, python {path.name}, then import it again"
    return (
        f"{path}: running it failed{where}: {type(error).__name__}"
        f"{': ' + message[0] if message else ''} (fix: {fix})"
    )


def argparse_error(error: BaseException) -> str | None:
    """What argparse said (``the following arguments are required: data``) where `error` is
    the SystemExit of its ``parser.error``; None otherwise."""
    if not isinstance(error, SystemExit):
        return None
    trace = error.__traceback__
    while trace is not None:
        frame = trace.tb_frame
        if frame.f_code.co_name == "error" and Path(frame.f_code.co_filename).name == "argparse.py":
            said = frame.f_locals.get("message")
            return str(said) if said else None
        trace = trace.tb_next
    return None


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
    # DALI 0.x's crop, cast to float and layout change in one (no normalization)
    "CropCastPermute": (
        'ops.CropMirrorNormalize(crop=..., dtype=types.FLOAT, output_layout="CHW"), which '
        "given no mean or std does not normalize"
    ),
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


def pipelines_in(namespace: Mapping[str, Any]) -> dict[str, Any]:
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
    if type(pipeline).__name__ == "_PipelineDebug":  # DALI's error blames a `with` statement
        raise ImportRefused(
            f"pipeline {name!r} runs in DALI's debug mode (debug=True), which runs operator by "
            "operator and cannot be serialized, so it cannot be imported (fix: build it with "
            "debug=False: drop debug=True from its @pipeline_def, or pass debug=False where the "
            "file builds it; the graph is the same)"
        )
    try:
        data = serialized(pipeline)
    except Exception as error:  # DALI raises RuntimeError for python_function and friends
        callbacks = ("python_function", "DLTensorPythonFunction", "PythonFunction")
        callback = next((n for n in callbacks if n in str(error)), None)
        if callback is not None:
            from .refusals import python_function_place, refusal_text

            raise ImportRefused(
                f"pipeline {name!r}: " + refusal_text(callback, python_function_place(pipeline))
            ) from None
        if is_listed(error):  # `return [images, labels]`: the file's line is read by the caller
            raise ListedOutputs(listed_message(name, error)) from error
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
    if chosen and draws_per_sample(spec):  # else the batch size changes no pixel
        warnings.warn(batch_size_chosen(name), stacklevel=2)
    for said in missing_data(spec):  # the code's data, on another machine: said now
        warnings.warn(DataMissing(said), stacklevel=2)
    return dataclasses.replace(spec, batch_size=batch_size if batch_size > 0 else SAMPLE_BATCH)
