"""Which pipeline a Python file means, and how to build a ``@pipeline_def`` function of it.

A file written the way DALI's tutorials write them defines a ``@pipeline_def`` function and
often builds a pipeline from it (``pipe = my_pipeline(batch_size=8, ...)``). The built pipeline
is the one the user ran, so it is chosen; a file that only defines the function has it built
here, with the values the caller gives its parameters (``--param root=/data``).
"""

from __future__ import annotations

import ast
import inspect
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..devices import has_gpu
from .build_failures import defuse_half_built, first_line, namespace_fix, raised
from .derived_seeds import DrawsDiffer
from .held_pipelines import held_pipelines
from .serialized import ImportRefused

RUN_NAME = "__augexplorer_import__"  # the module name the file runs under (never __main__)
SAMPLE_BATCH = 8  # the batch size of a pipeline whose definition sets none


@dataclass(frozen=True)
class Candidate:
    """A pipeline the file offers: a built ``Pipeline`` or a ``@pipeline_def`` function."""

    name: str  # its name in the file, what --pipeline takes
    value: Any
    built_from: str | None = None  # the file's @pipeline_def function it was built from
    call: ast.Call | None = field(default=None, compare=False)  # the call that built it
    held_in: int = 0  # how many pipelines the list holding it holds (0: held by a name)

    @property
    def built(self) -> bool:
        return not _is_definition(self.value)

    @property
    def graph_name(self) -> str:
        """The name the graph gets: the function's, which the export names its own after; for
        an instance of a Pipeline subclass the file defines (the ops API), its class's."""
        if self.built_from:
            return self.built_from
        kind = self.value if _is_pipeline_class(self.value) else type(self.value)
        if kind.__module__ == RUN_NAME and kind.__name__ != "Pipeline":
            return _snake_case(kind.__name__)
        return self.name

    def describe(self) -> str:
        if not self.built:
            return f"{self.name} ({'Pipeline subclass' if _is_pipeline_class(self.value) else '@pipeline_def'})"
        if self.built_from:
            return f"{self.name} (built from {self.built_from})"
        if self.held_in:
            return f"{self.name} (built, the first of {self.held_in} in a list)"
        return f"{self.name} (built)"


def _snake_case(name: str) -> str:
    """``HybridTrainPipe`` -> ``hybrid_train_pipe``."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", name).lower()


def parse_param(text: str) -> tuple[str, Any]:
    """``NAME=VALUE`` from the command line: the value as JSON when it parses, a DALI name
    when written as one (``types.INTERP_TRIANGULAR``, ``types.DALIDataType.FLOAT``,
    ``types.NCHW``), else as text (``size=[224, 224]`` is a list, ``root=/data`` the text
    ``/data``)."""
    name, equals, value = text.partition("=")
    name = name.strip()
    # a dotted name gives an attribute the file reads (--param CFG.img_size=320)
    if not equals or not all(part.isidentifier() for part in name.split(".")):
        raise ValueError(f"got {text!r} (fix: give NAME=VALUE, e.g. --param root=/data)")
    try:
        return name, json.loads(value)
    except ValueError:
        pass
    try:  # Python's own literals: None, True, False (never the text 'False', which is true)
        return name, ast.literal_eval(value.strip())
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        pass
    found = _DALI_NAME.fullmatch(value.strip())
    if found is None:
        return name, value
    return name, _dali_name(name, found["path"])


# `types.X`, `types.Enum.X`, `dali.types.X`, `nvidia.dali.types.X`
_DALI_NAME = re.compile(r"(?:(?:nvidia\.)?dali\.)?types\.(?P<path>[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)?)")


def _dali_name(param: str, path: str) -> Any:
    from nvidia.dali import types

    value: Any = types
    for part in path.split("."):
        value = getattr(value, part, None)
        if value is None or part.startswith("_"):
            raise ValueError(
                f"--param {param}=types.{path}: nvidia.dali.types has no {path} (fix: give "
                "one of its names, such as types.INTERP_LINEAR or types.FLOAT, or a plain value)"
            )
    return value


def choose(
    namespace: Mapping[str, Any],
    tree: ast.Module,
    *,
    where: str,
    pipeline: str | None = None,
    params: Mapping[str, Any] | None = None,
) -> Candidate:
    """The pipeline the file means: the one named by `pipeline`; else, with `params`, its
    ``@pipeline_def`` function (or ``Pipeline`` subclass); else the pipeline built from its own
    ``@pipeline_def`` function, any other pipeline it built, or its one ``@pipeline_def``
    function, or its one ``Pipeline`` subclass."""
    candidates = _candidates(namespace, tree)
    if pipeline is not None:
        chosen = next((c for c in candidates if c.name == pipeline), None)
        if chosen is None:
            found = ", ".join(c.describe() for c in candidates) or "none"
            raise ImportRefused(
                f"{where}: no pipeline named {pipeline!r}; found: {found} "
                "(fix: --pipeline one of those)"
            )
        if params and chosen.built:
            raise ImportRefused(
                f"{where}: {pipeline!r} is a pipeline the file already built, so parameters "
                f"({', '.join(params)}) cannot change it "
                f"(fix: leave out --param, or {_choose_function_fix(candidates, chosen)})"
            )
        return chosen
    own = [c for c in candidates if not c.built and c.value.__module__ == RUN_NAME]
    # the file's @pipeline_def functions before its Pipeline subclasses (a base class of its)
    own_functions = [c for c in own if not _is_pipeline_class(c.value)]
    own_classes = [c for c in own if _is_pipeline_class(c.value)]
    definitions = [c for c in candidates if not c.built]
    built = [c for c in candidates if c.built]
    own_built = [c for c in built if c.built_from]
    tiers = (
        [own_functions or own_classes or definitions]
        if params
        # the first tier with any pipeline decides
        else [own_built, built, own_functions, own_classes, definitions]
    )
    for tier in tiers:
        if len(tier) == 1:
            return tier[0]
        if tier:
            raise ImportRefused(
                f"{where}: several pipelines ({', '.join(c.describe() for c in tier)}); "
                "choose one with --pipeline NAME (or pipeline='NAME')"
            )
    if params and built:
        raise ImportRefused(
            f"{where}: no @pipeline_def function to give the parameters "
            f"({', '.join(params)}) to; it only builds {', '.join(c.name for c in built)} "
            "(fix: leave out --param)"
        )
    raise ImportRefused(
        f"{where}: no @pipeline_def function or Pipeline object at module level "
        "(fix: define one, or export the graph from augexplorer)"
    )


def _choose_function_fix(candidates: Sequence[Candidate], chosen: Candidate) -> str:
    if chosen.built_from and any(c.name == chosen.built_from for c in candidates):
        return f"choose the function with --pipeline {chosen.built_from}"
    return "choose a @pipeline_def function with --pipeline"


def _is_definition(value: Any) -> bool:
    """A ``@pipeline_def`` function, or a ``Pipeline`` subclass the file defines (the ops API,
    often built only inside ``main()``): something an import builds with its parameters."""
    if callable(value) and bool(getattr(value, "_is_pipeline_def", False)):
        return True
    return _is_pipeline_class(value)


def _is_pipeline_class(value: Any) -> bool:
    from nvidia.dali import Pipeline

    return (
        inspect.isclass(value)
        and issubclass(value, Pipeline)
        and value is not Pipeline
        and value.__module__ == RUN_NAME
    )


def _candidates(namespace: Mapping[str, Any], tree: ast.Module) -> list[Candidate]:
    from nvidia.dali import Pipeline

    imported = _imported_names(tree)
    built_from = _built_from(tree, namespace)
    seen: set[int] = set()
    candidates: list[Candidate] = []
    for name, value in namespace.items():
        if name.startswith("_") or id(value) in seen:
            continue  # private names, and a second name for the same pipeline
        if _is_definition(value):
            candidates.append(Candidate(name, value))
        elif isinstance(value, Pipeline) and name not in imported:
            function, call = built_from.get(name, (None, None))
            candidates.append(Candidate(name, value, function, call))
        else:
            continue
        seen.add(id(value))
    for held in held_pipelines(namespace):  # pipes = [Pipe(device_id=i) for i in range(N)]
        if id(held.pipeline) not in seen:
            candidates.append(Candidate(held.name, held.pipeline, held_in=held.listed))
            seen.add(id(held.pipeline))
    return candidates


def _imported_names(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for statement in tree.body:
        if isinstance(statement, ast.Import | ast.ImportFrom):
            names |= {(alias.asname or alias.name).split(".")[0] for alias in statement.names}
    return names


def _built_from(tree: ast.Module, namespace: Mapping[str, Any]) -> dict[str, tuple[str, ast.Call]]:
    """Top-level ``pipe = my_pipeline(...)`` assignments whose callee is a ``@pipeline_def``
    function the file defines: the pipeline's name -> the function's name and the call."""
    own = {  # functions only: an instance of the file's Pipeline subclass is read as built
        name
        for name, value in namespace.items()
        if _is_definition(value)
        and not _is_pipeline_class(value)
        and getattr(value, "__module__", None) == RUN_NAME
    }
    found: dict[str, tuple[str, ast.Call]] = {}
    for statement in tree.body:
        if isinstance(statement, ast.Assign):
            targets, value = statement.targets, statement.value
        elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
            targets, value = [statement.target], statement.value
        else:
            continue
        if not isinstance(value, ast.Call):
            continue
        callee = value.func
        callee_name = (
            callee.attr if isinstance(callee, ast.Attribute) else getattr(callee, "id", "")
        )
        if callee_name not in own:
            continue
        for target in targets:
            if isinstance(target, ast.Name):
                found[target.id] = (callee_name, value)
    return found


def on_this_machine(chosen: Candidate, namespace: Mapping[str, Any], *, where: str) -> Any:
    """The chosen pipeline, rebuilt with ``device_id=None`` when the file built it for a GPU
    this machine lacks (as DALI's tutorials write ``device_id=0``): DALI cannot serialize
    that pipeline here. The file's own call is evaluated again, its ``device_id`` replaced."""
    value = chosen.value
    if not chosen.built or has_gpu() or getattr(value, "device_id", None) is None:
        return value
    call = chosen.call
    if call is None or any(keyword.arg is None for keyword in call.keywords):
        # A Pipeline subclass (the ops API: ``pipe = HybridTrainPipe(..., device_id=0)``), or
        # a call that cannot be repeated: its device_id often feeds its seed or shard
        # (``seed=12 + device_id``), so it is not built again; the pipeline, not yet built,
        # is read as DALI would serialize it on a CPU-only machine.
        if getattr(value, "_built", False) or not hasattr(value, "_device_id"):
            return value
        value._device_id = None
        return value
    rebuilt = ast.Call(
        func=call.func,
        args=call.args,
        keywords=[k for k in call.keywords if k.arg != "device_id"]
        + [ast.keyword(arg="device_id", value=ast.Constant(value=None))],
    )
    expression = ast.fix_missing_locations(ast.copy_location(ast.Expression(rebuilt), call))
    try:
        # the file's own call, which run_file already allowed to run
        return eval(compile(expression, where, "eval"), dict(namespace))
    except Exception as error:  # the user's code: any error it raises is theirs to read
        raise ImportRefused(
            f"{where}: {chosen.name!r} was built for GPU {value.device_id} and this machine has "
            f"none; building it again with device_id=None failed at line {call.lineno}: "
            f"{type(error).__name__}: {first_line(error)} (fix: build it with device_id=None)"
        ) from None


def defaults_of(definition: Any) -> dict[str, Any]:
    """The default values of a ``@pipeline_def`` function's parameters."""
    try:
        signature = inspect.signature(definition)
    except (TypeError, ValueError):
        return {}
    return {
        p.name: p.default
        for p in signature.parameters.values()
        if p.default is not inspect.Parameter.empty
    }


def parameter_values(chosen: Candidate, namespace: Mapping[str, Any]) -> dict[str, Any]:
    """The values the parameters of the file's ``@pipeline_def`` function had in the call that
    built `chosen` (its defaults, and the arguments written as literals in the call); empty
    where `chosen` was not built by such a call."""
    function = namespace.get(chosen.built_from or "")
    call = chosen.call
    if not chosen.built or function is None or call is None:
        return {}
    values = defaults_of(function)
    for keyword in call.keywords:
        if keyword.arg is None:
            continue
        try:
            values[keyword.arg] = ast.literal_eval(keyword.value)
        except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
            values.pop(keyword.arg, None)  # not readable without running: not known
    return values


def build(
    definition: Any, *, name: str, params: Mapping[str, Any] | None = None
) -> tuple[Any, bool]:
    """The pipeline a ``@pipeline_def`` function builds with `params`, on the CPU where there is
    no GPU, with one thread and a sample batch size unless its decorator or `params` set them;
    and whether the batch size is that sample one, chosen here."""
    from nvidia.dali import Pipeline

    signature = inspect.signature(definition)
    params = _namespaces(dict(params or {}), signature)
    arguments: dict[str, Any] = {"num_threads": 1}
    if not has_gpu():
        arguments["device_id"] = None
    if inspect.isclass(definition):
        # A Pipeline subclass takes the Pipeline arguments its own __init__ names (often
        # batch_size, num_threads, device_id, all without defaults): those are filled in. Its
        # device_id often feeds its seed (seed=12 + device_id): it gets 0, and the pipeline,
        # not yet built, is then read as DALI serializes it on a machine without a GPU.
        named = signature.parameters
        offered = {"num_threads": 1, "device_id": 0}  # on any machine (see above)
        arguments = {k: v for k, v in offered.items() if k in named}
        if "batch_size" in named:
            arguments["batch_size"] = SAMPLE_BATCH
        _check_params(signature, {**arguments, **params}, set(), name)
    else:
        _check_params(signature, params, set(inspect.signature(Pipeline.__init__).parameters), name)
        decorated = decorator_arguments(definition)
        if decorated is not None and "batch_size" not in decorated:
            # known before building: a second build would only add the batch size, and makes
            # every operator again (DALI's EfficientNet example: ~230 from its policy)
            arguments["batch_size"] = SAMPLE_BATCH
    arguments |= params
    given = ", ".join(f"{key}={_shown(value)}" for key, value in params.items())
    try:
        pipeline = definition(**arguments)
        if inspect.isclass(definition) and not has_gpu() and hasattr(pipeline, "_device_id"):
            pipeline._device_id = None
        if (
            not (pipeline.max_batch_size or 0) > 0
            and "batch_size" not in arguments
            and not inspect.isclass(definition)
        ):
            pipeline = definition(**arguments, batch_size=SAMPLE_BATCH)
            arguments["batch_size"] = SAMPLE_BATCH
    except Exception as error:  # the user's code: any error it raises is theirs to read
        defuse_half_built(error)
        with_params = f" with {given}" if given else ""
        fix = namespace_fix(definition, signature, arguments, error) or (
            f"check the values given to its parameters: {_describe(signature, arguments)}"
        )
        raise ImportRefused(
            f"pipeline {name!r} failed while being built{with_params}: {raised(error)} (fix: {fix})"
        ) from None
    chosen = arguments.get("batch_size") == SAMPLE_BATCH and "batch_size" not in params
    return pipeline, chosen


def batch_size_chosen(name: str) -> DrawsDiffer:
    """What a graph read at the batch size the import chose says."""
    return DrawsDiffer(
        f"pipeline {name!r} was built at batch_size={SAMPLE_BATCH}, which the import chose "
        "(the code builds it with none the import can read): DALI draws by a sample's place "
        "in its batch, so at your training run's batch size the same files get other values "
        "(fix: --param batch_size=N with that size, or set it in the graph)"
    )


def decorator_arguments(definition: Any) -> dict[str, Any] | None:
    """The Pipeline arguments a ``@pipeline_def(...)`` decorator gave (``batch_size=``,
    ``num_threads=``, ...), read from the function DALI's decorator returns; None where they
    cannot be read (another DALI's decorator keeps them elsewhere)."""
    try:
        found = inspect.getclosurevars(definition).nonlocals.get("pipeline_kwargs")
    except (TypeError, ValueError):  # not a plain Python function
        return None
    return dict(found) if isinstance(found, dict) else None


def _namespaces(params: dict[str, Any], signature: inspect.Signature) -> dict[str, Any]:
    """`params` with ``args.batch_size=4``, ``args.data=...`` (a parameter's attributes: the
    argparse Namespace a training script passes its pipeline class) gathered into one
    ``argparse.Namespace`` for ``args``."""
    import argparse

    gathered: dict[str, Any] = {}
    for key, value in params.items():
        head, dot, attribute = key.partition(".")
        if dot and head in signature.parameters and "." not in attribute and head not in params:
            gathered.setdefault(head, {})[attribute] = value
        else:
            gathered[key] = value
    return {
        key: argparse.Namespace(**value) if key not in params else value
        for key, value in gathered.items()
    }


def _check_params(
    signature: inspect.Signature, params: Mapping[str, Any], pipeline_args: set[str], name: str
) -> None:
    by_name = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    parameters = signature.parameters.values()
    takes_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters)
    own = {p.name for p in parameters if p.kind in by_name}
    listing = _describe(signature, params)
    for key in params:
        if key not in own and key not in pipeline_args and not takes_any:
            raise ImportRefused(
                f"pipeline {name!r} has no parameter {key!r}; its parameters: {listing} "
                "(fix: give --param only for those, or Pipeline arguments such as batch_size)"
            )
    missing = [
        parameter.name
        for parameter in parameters
        if parameter.kind in by_name
        and parameter.default is inspect.Parameter.empty
        and parameter.name not in params
    ]
    if missing:  # all of them at once, not one a try
        named = ", ".join(repr(m) for m in missing)
        flags = " ".join(f"--param {m}=VALUE" for m in missing)
        values = ", ".join(f"{m!r}: ..." for m in missing)
        raise ImportRefused(
            f"pipeline {name!r} needs a value for its parameter{'s' * (len(missing) > 1)} "
            f"{named}; its parameters: {listing} (fix: {flags}, or params={{{values}}})"
        )
    for parameter in parameters:
        if parameter.default is not inspect.Parameter.empty or parameter.name in params:
            continue
        if parameter.kind is inspect.Parameter.POSITIONAL_ONLY:
            raise ImportRefused(
                f"pipeline {name!r} takes {parameter.name!r} only by position, which an import "
                "cannot give (fix: build the pipeline in the file, pipe = "
                f"{name}(...), and import that)"
            )


def _describe(signature: inspect.Signature, given: Mapping[str, Any] | None = None) -> str:
    """The parameters, each with its default, or the value given or filled in for it."""
    parts = []
    for parameter in signature.parameters.values():
        if given and parameter.name in given:
            parts.append(f"{parameter.name}={_shown(given[parameter.name])} (set)")
        elif parameter.kind is inspect.Parameter.VAR_POSITIONAL:
            parts.append(f"*{parameter.name}")
        elif parameter.kind is inspect.Parameter.VAR_KEYWORD:
            parts.append(f"**{parameter.name}")
        elif parameter.default is inspect.Parameter.empty:
            parts.append(f"{parameter.name} (no default)")
        else:
            parts.append(f"{parameter.name}={parameter.default!r}")
    return ", ".join(parts) or "none"


def _shown(value: Any) -> str:
    """A parameter's value as code writes it: DALI's ``types.INTERP_LINEAR`` for its enums
    (their repr is ``<DALIInterpType.INTERP_LINEAR: 1>``), else its repr."""
    name = getattr(value, "name", None)
    if isinstance(name, str) and type(value).__module__.startswith("nvidia.dali"):
        return f"types.{name}"  # DALI's enums are pybind11's, no enum.Enum
    return repr(value)
