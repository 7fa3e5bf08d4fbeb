"""Time a user's own torchvision or albumentations pipeline in a PyTorch DataLoader.

    python original_runner.py JOB.json RESULT.json

A standalone script: it needs only torch, Pillow and the pipeline's library (never augexplorer),
so it can run in another Python than augexplorer's, one where that library imports (torchvision's
wheels need torch's own build). It runs the user's file (its source is in the job), which is why
augexplorer starts it only once the user has allowed running the file.

The job (JSON): ``source`` (the file's Python text), ``where`` (its path, for tracebacks and
imports beside it), ``in_folder`` (run it from its folder), ``pipeline`` (the name the pipeline
is known by in the file), ``params``
(values the port was given, ``--param``: a function's parameters of those names are called with
them, and the original is refused where one is not such a parameter), ``library``
("torchvision" or "albumentations"), ``files`` (images, in order), ``batch_size``, ``workers``.
Each image is opened with Pillow and converted to RGB, as torchvision users load images; for
albumentations the RGB pixels go in as a NumPy array (``transform(image=...)["image"]``).
The loader runs ``rounds`` passes over the files (default 1); the first batch of each pass
(worker start-up) is not timed.

Taking turns: after each pass the script writes one line on its standard output, ``round N``
and the pass's figures as JSON, and then waits for a line on its standard input. The caller
times its own loader in between, so a slow spell of a shared machine falls on both alike. The
user's file prints to the standard error, never into those lines.

The result (JSON): ``rounds`` (one ``{"images", "timed_images", "seconds"}`` per pass, in
order) and ``versions``; or ``error`` (one line saying what failed and the fix) where the
pipeline cannot be timed.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import platform
import sys
import time
import traceback
import types
from collections.abc import Iterator
from typing import Any

RUN_NAME = "augexplorer_original"  # not "__main__": a file's own `if __name__ == ...` stays off


class Refused(Exception):
    """The pipeline cannot be timed; the message says why and the fix."""


def main(argv: list[str]) -> int:
    job_path, result_path = argv[1], argv[2]
    with open(job_path, encoding="utf-8") as handle:
        job = json.load(handle)
    turns = sys.stdout
    try:
        # the user's file may print: keep this script's stdout for nothing but its own lines
        with contextlib.redirect_stdout(sys.stderr):
            result = run(job, lambda done, figures: _take_turns(turns, done, figures))
    except Refused as refused:
        result = {"error": str(refused)}
    with open(result_path, "w", encoding="utf-8") as handle:
        json.dump(result, handle)
    return 0


def run(job: dict[str, Any], between_rounds: Any = None) -> dict[str, Any]:
    """Time the job's pipeline; `between_rounds(n, figures)` is called after pass n (from 1)."""
    library = job["library"]
    versions = _import_libraries(library)
    transform = _pipeline(job, library)

    from torch.utils.data import DataLoader

    dataset = OriginalImages(job["files"], transform, library)
    workers = int(job["workers"])
    loader: Any = DataLoader(
        dataset,  # type: ignore[arg-type]  # a map-style dataset by its protocol
        batch_size=int(job["batch_size"]),
        num_workers=workers,
        shuffle=False,
        collate_fn=collate,
        worker_init_fn=_one_opencv_thread if workers > 0 else None,
    )
    rounds = []
    for number in range(1, int(job.get("rounds", 1)) + 1):
        rounds.append(_one_pass(loader))
        if between_rounds is not None:
            between_rounds(number, rounds[-1])
    return {"rounds": rounds, "versions": versions}


def _one_pass(loader: Any) -> dict[str, Any]:
    """One epoch of `loader`: images delivered, those after the first batch, their seconds."""
    images = timed = 0
    start = 0.0
    for index, (count, _batch) in enumerate(loader):
        images += count
        if index == 0:  # worker start-up and the first transforms: not timed
            start = time.perf_counter()
        else:
            timed += count
    seconds = time.perf_counter() - start
    return {"images": images, "timed_images": timed, "seconds": seconds}


def _take_turns(turns: Any, done: int, figures: dict[str, Any]) -> None:
    """Say pass `done` is over and wait for the caller's go (a line on stdin, or its end)."""
    turns.write(f"round {done} {json.dumps(figures)}\n")
    turns.flush()
    sys.stdin.readline()


def _import_libraries(library: str) -> dict[str, str]:
    modules = {"torchvision": "torchvision", "albumentations": "albumentations"}
    if library not in modules:
        raise Refused(f"no runner for {library!r} pipelines (fix: torchvision or albumentations)")
    versions = {"python": platform.python_version()}
    for name in ("torch", "PIL", modules[library]):
        try:
            module = importlib.import_module(name)
        except Exception as error:  # an ImportError, or a library that fails while loading
            raise Refused(
                f"{name} does not import in {sys.executable}: {type(error).__name__}: "
                f"{_first_line(error)} (fix: give the python of an environment where "
                f"{modules[library]} imports, with --python PATH)"
            ) from None
        versions[name] = str(getattr(module, "__version__", "?"))
    return versions


def _pipeline(job: dict[str, Any], library: str) -> Any:
    """Run the user's file and return its pipeline, by the name it is known by."""
    where = str(job["where"])
    folder = os.path.dirname(os.path.abspath(where))
    sys.path.insert(0, folder)  # the file's own imports of modules beside it
    module = types.ModuleType(RUN_NAME)
    module.__file__ = where
    sys.modules[RUN_NAME] = module  # so the DataLoader's workers can find its classes
    try:
        code = compile(job["source"], where, "exec")
        # ``in_folder``: run from the file's folder, where a saved pipeline it loads by a
        # relative name (A.load("aug.yaml")) is, as the port looked for it
        with _argv_of(where), _cwd(folder if job.get("in_folder") else None):
            exec(code, module.__dict__)  # the user allowed running the file
    except BaseException as error:
        if isinstance(error, KeyboardInterrupt):
            raise
        frames = traceback.extract_tb(error.__traceback__)
        line = next((f.lineno for f in reversed(frames) if f.filename == where), None)
        at = f" (line {line})" if line else ""
        said = f"{type(error).__name__}: {_first_line(error)}"
        data = _data_it_fetches(error, frames, job["source"], line)
        if data:
            raise Refused(
                f"{where} failed while running{at}: {data}: {said} (fix: build the dataset under "
                "`if __name__ == '__main__':` or in a function, so that running the file builds "
                "the pipeline alone, which is all that is run here)"
            ) from None
        raise Refused(
            f"{where} failed while running{at}: {said} "
            "(fix: make the file run on its own, e.g. give its arguments defaults)"
        ) from None
    params = dict(job.get("params") or {})
    source = str(job["source"])
    builder = job.get("builder")
    found = _find(module.__dict__, str(job["pipeline"]), library, where, params, source, builder)
    return fed_as_written(found) if library == "torchvision" else found


# where a traceback passes through the loading of data, not the building of a pipeline
DATA_FRAMES = (
    f"{os.sep}torchvision{os.sep}datasets{os.sep}",
    f"{os.sep}urllib{os.sep}request.py",
    f"{os.sep}requests{os.sep}",
    f"{os.sep}huggingface_hub{os.sep}",
    f"{os.sep}datasets{os.sep}load.py",
)


def _data_it_fetches(error: BaseException, frames: Any, source: str, line: int | None) -> str:
    """What the file failed on where it is data it downloads or reads at module level (a
    ``torchvision.datasets.CIFAR10(root, download=True)`` with no network, a dataset that is
    not at its root), said with the file's line; "" for any other failure."""
    import socket
    import urllib.error

    network = (urllib.error.URLError, ConnectionError, socket.gaierror, TimeoutError)
    in_data = any(any(part in str(f.filename) for part in DATA_FRAMES) for f in frames)
    if not in_data and not isinstance(error, network):
        return ""
    lines = source.splitlines()
    written = lines[line - 1].strip() if line and 0 < line <= len(lines) else ""
    shown = written if len(written) <= 100 else written[:97].rstrip() + "..."
    what = f" ({shown})" if shown else ""
    if isinstance(error, network):
        return f"it downloads data when it runs{what}, and the download failed"
    return f"it loads a dataset when it runs{what}, and that failed"


# torchvision's transforms that make a tensor of a PIL image, and those that refuse a PIL image:
# the first of either in a pipeline says which its images are
MAKE_TENSORS = frozenset({"ToTensor", "PILToTensor", "ToImage", "ToPureTensor"})
TAKE_TENSORS = frozenset({"ConvertImageDtype", "Normalize", "RandomErasing"})


def fed_as_written(pipeline: Any) -> Any:
    """`pipeline`, given the images as the file's own dataset gives them: one written for
    tensors (``ConvertImageDtype`` or ``Normalize`` before any conversion, as after
    ``torchvision.io.read_image``; torchvision's scriptable ``nn.Sequential``) takes each image
    as a uint8 CHW tensor (``PILToTensor`` first), where a PIL image fails on it."""
    import torchvision.transforms as t1
    from torch import nn

    transforms = getattr(pipeline, "transforms", None)
    if transforms is None:  # a Sequential's are its modules; a single transform has none
        transforms = list(pipeline) if isinstance(pipeline, nn.Sequential) else []
    for transform in transforms:
        name = type(transform).__name__
        if name in MAKE_TENSORS:
            return pipeline
        if name in TAKE_TENSORS:
            return t1.Compose([t1.PILToTensor(), pipeline])
    return pipeline


@contextlib.contextmanager
def _argv_of(where: str) -> Iterator[None]:
    """sys.argv as ``python FILE`` gives it, ``[FILE]``, while the file runs: a top-level
    ``parser.parse_args()`` would otherwise read this runner's own arguments (JOB.json
    RESULT.json) and exit. As the DALI import runs a file (``--run-file``); restored after."""
    saved = sys.argv
    sys.argv = [where]
    try:
        yield
    finally:
        sys.argv = saved


@contextlib.contextmanager
def _cwd(folder: str | None) -> Iterator[None]:
    """The working folder `folder` while the file runs (unchanged for None); restored after."""
    if folder is None:
        yield
        return
    saved = os.getcwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(saved)


def _find(
    namespace: dict[str, Any],
    name: str,
    library: str,
    where: str,
    params: dict[str, Any] | None = None,
    source: str = "",
    builder: dict[str, Any] | None = None,
) -> Any:
    """The pipeline called `name` in the file's namespace (``train``, ``data_transforms['train']``,
    ``cfg.train``); a function of that name is called with the `params` that are its parameters
    (the values the port was read with); otherwise the file's only Compose of the library. A
    param the original cannot be given is refused: the two sides would run different pipelines.
    `source` (the file's text) tells which arguments select one of a function's returns.
    `builder` (``augexplorer.port.original_builder``) names the function, or the class whose
    ``__init__`` builds ``self.NAME``, and what its parameters without a default are given as
    the port read them: the file's one call's arguments, or its command line's defaults."""
    params = dict(params or {})
    base, line, replaced = _split_name(name)
    if replaced:
        raise Refused(
            f"{where}: {base} is assigned again later in the file, so after running it holds "
            "another object than the pipeline read (fix: assign that pipeline to a name of its own)"
        )
    head, path = _parse_name(base)
    # `get_transforms(train=False)`: a function's pipeline named by the call that returns it
    called_with = _call_form(base)
    if called_with is not None:
        head, path = called_with[0], []
    found = namespace.get(head) if head else None
    built_by = _builder_in(namespace, builder, head)
    if head in ("self", "cls") and head not in namespace:
        if not isinstance(built_by, type):
            raise Refused(
                f"{where}: {base} is built inside a method of a class other than its __init__, "
                "and running the file calls no such method, so the pipeline cannot be found by "
                "running the file (fix: build it in __init__, or assign it at module level, or "
                "return it from a function, and use that in the class)"
            )
        found = built_by
    if line is not None and not isinstance(found, types.FunctionType):
        raise Refused(
            f"{where}: {base} names more than one pipeline in the file (this one at line {line}), "
            "and after running the name holds one of them at most (fix: give this pipeline a "
            "module-level name of its own and pick it with --pipeline NAME)"
        )
    taken: dict[str, Any] = {}
    given: dict[str, Any] = {}
    settled: set[str] = set()
    if isinstance(found, types.FunctionType | type):
        import inspect

        accepted = inspect.signature(found).parameters
        taken = {key: value for key, value in params.items() if key in accepted}
        if builder is not None and built_by is found:
            given, settled = _given(builder, namespace, params, taken, where)
    # a value the file itself settles (`--param args.size=64` where its parser defaults to
    # 64) needs nothing; one it settles otherwise would build another pipeline
    differ = sorted(
        key
        for key in set(params) - set(taken) - settled
        if _value_in(namespace, key) != params[key]
    )
    if differ:
        raise Refused(
            f"{where}: the original cannot be given {', '.join(differ)} (not "
            f"{'parameters' if len(differ) > 1 else 'a parameter'} of the function building "
            "the pipeline, and the file's own value differs), so it would run another pipeline "
            "than the port (fix: make it a parameter of the function that builds the pipeline, "
            "or give the file's own value)"
        )
    if isinstance(found, types.FunctionType):
        if called_with is not None:  # the call the reader named the pipeline by, as written
            found = _called(found, {**given, **taken, **called_with[1]}, where)
        elif line is not None:
            found = _one_return(found, line, taken, source, where, given)
        else:
            found = _called(found, {**given, **taken}, where)
    elif isinstance(found, type):  # the class whose __init__ builds self.NAME
        found = _called(found, {**given, **taken}, where)
    found = _follow(found, path)
    if found is not None and _is_compose(found, library):
        return found
    composes = [value for value in namespace.values() if _is_compose(value, library)]
    if len(composes) == 1 and line is None:
        return composes[0]
    raise Refused(
        f"{where}: after running, the file has no {library} Compose called {name!r}"
        + (f" and {len(composes)} others" if composes else "")
        + " (fix: assign the pipeline to a module-level name and pick it with --pipeline NAME)"
    )


def _split_name(name: str) -> tuple[str, int | None, bool]:
    """The reader's name of a pipeline as (name, line, replaced): ``get (line 6)`` is one of
    several pipelines the name ``get`` has (a function's returns); ``t (line 2, replaced at
    line 5)`` one the file assigns again later."""
    base, cut, rest = name.partition(" (line ")
    if not cut:
        return name, None, False
    number = rest.split(",", 1)[0].rstrip(")")
    line = int(number) if number.isdigit() else None
    return base, line, "replaced at line" in rest


def _call_form(name: str) -> tuple[str, dict[str, Any]] | None:
    """``get_transforms(mode='val')`` as (``get_transforms``, {"mode": "val"}): the reader's
    name of one of a function's returns, by the call reaching it; None for other names."""
    import ast

    try:
        node = ast.parse(name, mode="eval").body
    except SyntaxError:
        return None
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name) or node.args:
        return None
    try:
        arguments = {k.arg: ast.literal_eval(k.value) for k in node.keywords if k.arg}
    except ValueError:
        return None
    return (node.func.id, arguments) if len(arguments) == len(node.keywords) else None


_Step = tuple[str, Any]  # ("attr", name) or ("key", literal)


def _parse_name(name: str) -> tuple[str | None, list[_Step]]:
    """``data_transforms['train']`` as (``data_transforms``, [("key", "train")]), ``cfg.train``
    as (``cfg``, [("attr", "train")]); (None, []) for a name that is neither (``line 12``)."""
    import ast

    try:
        node = ast.parse(name, mode="eval").body
    except SyntaxError:
        return None, []
    path: list[_Step] = []
    while not isinstance(node, ast.Name):
        if isinstance(node, ast.Attribute):
            path.append(("attr", node.attr))
            node = node.value
        elif isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
            path.append(("key", node.slice.value))
            node = node.value
        else:
            return None, []
    return node.id, path[::-1]


def _follow(value: Any, path: list[_Step]) -> Any:
    """`value`'s attribute or item along `path`, by its literal keys; None where one is missing."""
    for kind, key in path:
        if value is None:
            return None
        if kind == "attr":
            value = getattr(value, key, None)
        else:
            try:
                value = value[key]
            except (KeyError, IndexError, TypeError):
                return None
    return value


def _builder_in(namespace: dict[str, Any], builder: dict[str, Any] | None, head: str | None) -> Any:
    """The file's function or class `builder` names, where it builds the pipeline `head` names:
    the function `head` itself, or (``self.NAME``) a class; else None."""
    if not builder or head is None:
        return None
    built_by = namespace.get(str(builder.get("name")))
    if builder.get("kind") == "class":
        return built_by if isinstance(built_by, type) and head in ("self", "cls") else None
    return built_by if built_by is not None and built_by is namespace.get(head) else None


def _given(
    builder: dict[str, Any],
    namespace: dict[str, Any],
    params: dict[str, Any],
    taken: dict[str, Any],
    where: str,
) -> tuple[dict[str, Any], set[str]]:
    """The builder's parameters without a default as the port read them: the file's one call's
    argument, evaluated where the file ran, or (the parsed command line) its options' defaults;
    and the dotted `params` (``args.size``) that set an attribute of one of those."""
    import argparse

    name = str(builder.get("name"))
    given: dict[str, Any] = {}
    for parameter, entry in dict(builder.get("arguments") or {}).items():
        if parameter in taken:
            continue
        value: Any = _MISSING
        if "expression" in entry:
            written = str(entry["expression"])
            try:  # the user allowed running the file: its argument as written, where it ran
                value = eval(compile(written, where, "eval"), namespace)
            except Exception as error:
                # the settings object the file's one assignment of it builds, made again
                value = _evaluated(entry.get("assigned"), namespace, where)
                if value is _MISSING and "options" not in entry:
                    raise Refused(
                        f"{where}: {name}'s parameter {parameter} is given {written} by the "
                        f"file's one call of {name} (line {entry.get('line')}), and {written} "
                        f"cannot be worked out where the file runs ({type(error).__name__}: "
                        f"{_first_line(error)}), e.g. it is made inside `if __name__ == "
                        f"'__main__':` (fix: give its value with params={{'{parameter}': VALUE}}, "
                        f"--param {parameter}=VALUE on the command line)"
                    ) from None
        if value is _MISSING and "options" in entry:
            # the command line's defaults, as `python FILE` with no options parses them
            value = argparse.Namespace(**dict(entry["options"]))
        if value is not _MISSING:
            given[parameter] = value
    settled: set[str] = set()
    for key, wanted in params.items():
        head, dot, attribute = key.partition(".")
        if not dot or head not in given:
            continue
        if _value_in(given, key) == wanted:
            settled.add(key)
        elif "." not in attribute:
            changed = _with_attribute(given[head], attribute, wanted)
            if changed is not _MISSING:
                given[head] = changed
                settled.add(key)
    return given, settled


def _evaluated(written: Any, namespace: dict[str, Any], where: str) -> Any:
    """`written` (an expression's text) evaluated in the file's namespace; _MISSING where it
    is None or fails."""
    if not written:
        return _MISSING
    try:
        return eval(compile(str(written), where, "eval"), namespace)
    except Exception:
        return _MISSING


def _with_attribute(held: Any, attribute: str, value: Any) -> Any:
    """A copy of the settings object `held` with `attribute` set to `value` (a class: a
    subclass of it), the file's own object left as it is; _MISSING where it cannot be made."""
    import copy

    try:
        if isinstance(held, type):
            return type(held.__name__, (held,), {attribute: value})
        changed = copy.copy(held)
        setattr(changed, attribute, value)
    except Exception:
        return _MISSING
    return changed


def _called(function: Any, arguments: dict[str, Any], where: str) -> Any:
    """`function(**arguments)` (a function of the file, or its class), refused in words where a
    parameter without a default is given nothing or the call fails."""
    import inspect

    name = function.__name__
    signature = inspect.signature(function)
    try:
        signature.bind(**arguments)
    except TypeError:
        wanted = [
            p.name
            for p in signature.parameters.values()
            if p.default is p.empty
            and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
            and p.name not in arguments
        ]
        if wanted:
            needs = ", ".join(wanted)
            example = ", ".join(f"'{w}': VALUE" for w in wanted)
            raise Refused(
                f"{where}: {name}() needs {needs}, which {'have' if len(wanted) > 1 else 'has'} "
                f"no default, and the file does not call {name} exactly once to give "
                f"{'them' if len(wanted) > 1 else 'it'} (fix: give the value{'s' if len(wanted) > 1 else ''} "
                f"with params={{{example}}}, --param {wanted[0]}=VALUE on the command line, or "
                "give the parameter a default)"
            ) from None
    try:
        return function(**arguments)
    except Exception as error:
        shown = ", ".join(f"{k}={v!r}" for k, v in arguments.items())
        shown = shown if len(shown) <= 80 else "its arguments"
        raise Refused(
            f"{where}: {name}({shown}) failed while building the pipeline: "
            f"{type(error).__name__}: {_first_line(error)} (fix: make {name} run with the "
            "values the port read, or give others with params={...})"
        ) from None


def _one_return(
    function: Any,
    line: int,
    taken: dict[str, Any],
    source: str,
    where: str,
    given: dict[str, Any] | None = None,
) -> Any:
    """The pipeline `function` returns at `line`, one of its several returns: called with the
    arguments the conditions above that return ask for (``if data == 'train':``), those the
    port was given first; refused unless that return is the one that ran."""
    name = function.__name__
    selecting = _selecting_arguments(source, name, line)
    if selecting is None:
        raise Refused(
            f"{where}: {name}() returns more than one pipeline; the one ported is returned at "
            f"line {line}, and which one {name}() returns depends on the arguments it is "
            "called with, which the conditions above that return do not tell (fix: pass the "
            "argument that selects it, --param NAME=VALUE, or assign that pipeline to a "
            "module-level name of its own)"
        )
    arguments = {**(given or {}), **selecting[1], **taken}
    result, ran = _traced(function, arguments, selecting[0], where)
    if not ran:
        shown = ", ".join(f"{k}={v!r}" for k, v in arguments.items()) or "no arguments"
        raise Refused(
            f"{where}: {name}() called with {shown} does not return the pipeline ported, at "
            f"line {line} (fix: pass the argument that selects it, --param NAME=VALUE, or "
            "assign that pipeline to a module-level name of its own)"
        )
    return result


def _traced(function: Any, arguments: dict[str, Any], line: int, where: str) -> tuple[Any, bool]:
    """`function(**arguments)` and whether its statement at `line` ran (traced, as a
    debugger does, in that function's frames only)."""
    code = function.__code__
    seen: set[int] = set()

    def in_function(frame: Any, event: str, _arg: Any) -> Any:
        if event == "line":
            seen.add(frame.f_lineno)
        return in_function

    def calls(frame: Any, _event: str, _arg: Any) -> Any:
        return in_function if frame.f_code is code else None

    before = sys.gettrace()
    sys.settrace(calls)
    try:
        result = _called(function, arguments, where)
    finally:
        sys.settrace(before)
    return result, line in seen


def _selecting_arguments(
    source: str, function: str, line: int
) -> tuple[int, dict[str, Any]] | None:
    """The line of the return statement of module-level `function` holding the pipeline at
    `line`, and the arguments that reach it, read from the ``if PARAM == VALUE:`` (or ``in``)
    conditions above it; None where that return or a condition on its way cannot be read."""
    import ast

    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    definition = next(
        (n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == function), None
    )
    if definition is None:
        return None
    parents = {child: node for node in ast.walk(definition) for child in ast.iter_child_nodes(node)}
    returned = next(
        (
            node
            for node in ast.walk(definition)
            if isinstance(node, ast.Return)
            and node.value is not None
            and any(getattr(n, "lineno", None) == line for n in ast.walk(node.value))
        ),
        None,
    )
    if returned is None:
        return None
    names = {a.arg for a in (*definition.args.posonlyargs, *definition.args.args)}
    names |= {a.arg for a in definition.args.kwonlyargs}
    wanted: dict[str, Any] = {}
    refused: dict[str, list[Any]] = {}
    child: ast.AST = returned
    parent = parents.get(child)
    while parent is not None and parent is not definition:
        if isinstance(parent, ast.If):
            condition = _equality(parent.test, names)
            if condition is None:
                return None
            param, values = condition
            if child in parent.body:
                if param in wanted and wanted[param] not in values:
                    return None
                wanted.setdefault(param, values[0])
            else:
                refused.setdefault(param, []).extend(values)
        elif not isinstance(parent, ast.With | ast.Try | ast.For | ast.While):
            return None  # a nested function or class: not this function's return
        child, parent = parent, parents.get(parent)
    if any(wanted[p] in values for p, values in refused.items() if p in wanted):
        return None
    return returned.lineno, wanted


def _equality(test: Any, names: set[str]) -> tuple[str, list[Any]] | None:
    """``PARAM == 'train'`` (either way round) or ``PARAM in ('train', 'all')`` as (PARAM,
    values that make it true), for a parameter among `names`; None otherwise."""
    import ast

    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return None
    left, right, op = test.left, test.comparators[0], test.ops[0]
    if isinstance(op, ast.Eq) and isinstance(right, ast.Name):
        left, right = right, left
    if not (isinstance(left, ast.Name) and left.id in names):
        return None
    try:
        value = ast.literal_eval(right)
    except ValueError:
        return None
    if isinstance(op, ast.Eq):
        return left.id, [value]
    if isinstance(op, ast.In) and isinstance(value, tuple | list | set | frozenset) and value:
        return left.id, list(value)
    return None


_MISSING = object()


def _value_in(namespace: dict[str, Any], dotted: str) -> Any:
    """The value `dotted` (``SIZE``, ``args.size``) names in the file's namespace once it ran."""
    head, *rest = dotted.split(".")
    value = namespace.get(head, _MISSING)
    for part in rest:
        value = getattr(value, part, _MISSING)
    return value


def _is_compose(value: Any, library: str) -> bool:
    if library == "torchvision":
        import torchvision.transforms as t1
        import torchvision.transforms.v2 as t2
        from torch import nn

        if isinstance(value, t1.Compose | t2.Compose):
            return True
        # torch.nn.Sequential(T.RandomCrop(...), ...): torchvision's scriptable pipeline
        return isinstance(value, nn.Sequential) and any(
            type(module).__module__.startswith("torchvision.transforms") for module in value
        )
    from albumentations.core.composition import BaseCompose

    return isinstance(value, BaseCompose)


class OriginalImages:
    """The images, opened with Pillow as RGB and put through the user's transform."""

    def __init__(self, files: list[str], transform: Any, library: str) -> None:
        self.files = files
        self.transform = transform
        self.library = library

    def __len__(self) -> int:
        return len(self.files)

    def __getitem__(self, index: int) -> Any:
        from PIL import Image

        with Image.open(self.files[index]) as opened:
            image = opened.convert("RGB")
        if self.library == "albumentations":
            import numpy as np

            return self.transform(image=np.asarray(image), **no_targets(self.transform))["image"]
        return self.transform(image)


def no_targets(transform: Any) -> dict[str, list[Any]]:
    """Empty boxes and keypoints (and their label fields) for an albumentations Compose given
    ``bbox_params`` or ``keypoint_params``: it refuses an image alone, and the images are what
    is timed and compared."""
    empty: dict[str, list[Any]] = {}
    for target, processor in (getattr(transform, "processors", None) or {}).items():
        empty[target] = []
        for field in getattr(processor.params, "label_fields", None) or ():
            empty[field] = []
    return empty


def collate(samples: list[Any]) -> tuple[int, Any]:
    """(images in the batch, the batch as PyTorch's default collation makes it); samples it
    cannot stack (PIL images, differing sizes) stay a list, as a training loop would take them."""
    from torch.utils.data import default_collate

    try:
        return len(samples), default_collate(samples)
    except (TypeError, RuntimeError):
        return len(samples), list(samples)


def _one_opencv_thread(_worker: int) -> None:
    # one worker process per core: OpenCV's own threads would oversubscribe the cores
    try:
        import cv2
    except ImportError:
        return
    cv2.setNumThreads(1)


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


if __name__ == "__main__":
    sys.exit(main(sys.argv))
