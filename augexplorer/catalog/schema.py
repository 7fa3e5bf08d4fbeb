"""Reads DALI's operator schemas into plain catalog records.

This is the only module that touches DALI's schema internals; everything else in augexplorer
works with the :class:`OpInfo` / :class:`ArgInfo` records it produces.
"""

from __future__ import annotations

import importlib
import re
from typing import Any

from .model import ArgInfo, Backend, InputInfo, OpInfo

# Arguments every operator has that are execution plumbing, not augmentation parameters.
# `seed` is handled as a first-class field of a node, `device` as its placement.
_PLUMBING_ARGS = frozenset(
    {"bytes_per_sample_hint", "preserve", "seed", "device", "name", "_module", "_display_name"}
)

# Operators that DALI defines on its Python side (registered when `nvidia.dali.ops` loads DALI's
# python_function plugin, as `fn` does) and that augexplorer can run: python_function, given
# PythonCode. Its DLTensor and framework variants need other array types and stay out.
PYTHON_SIDE_OPS = frozenset({"PythonFunction"})

# DALIDataType members that name no type an operator's data can have (argument kinds, DALI's
# own enums, "no type"): given as a dtype they fail when the pipeline runs.
NOT_DATA_TYPES = frozenset(
    {
        "NO_TYPE",
        "STRING",
        "FEATURE",
        "IMAGE_TYPE",
        "DATA_TYPE",
        "INTERP_TYPE",
        "TENSOR_LAYOUT",
        "PYTHON_OBJECT",
    }
)

_ENUM_TYPES = {
    "DATA_TYPE": "DALIDataType",
    "IMAGE_TYPE": "DALIImageType",
    "INTERP_TYPE": "DALIInterpType",
}


def _backend() -> Any:
    # DALI's type stubs cover only part of its backend module; we use it untyped here.
    return importlib.import_module("nvidia.dali.backend")


def _snake_case(name: str) -> str:
    fn: Any = importlib.import_module("nvidia.dali.fn")
    return str(fn._to_snake_case(name))


def fn_name(schema_name: str) -> str:
    """The `fn` API name of a schema, e.g. ``random__Uniform`` -> ``random.uniform``."""
    backend = _backend()

    schema = backend.GetSchema(schema_name)
    return ".".join([*schema.ModulePath(), _snake_case(schema.OperatorName())])


def _enum_choices(type_name: str) -> tuple[str, ...]:
    from nvidia.dali import types

    enum = getattr(types, _ENUM_TYPES[type_name])
    names = tuple(name for name in enum.__members__ if not name.startswith("_"))
    if type_name == "DATA_TYPE":  # the types of tensor data: DALI's own enums are not
        names = tuple(name for name in names if name not in NOT_DATA_TYPES)
    return names


def _enum_name(type_name: str, raw: str) -> str:
    from nvidia.dali import types

    enum = getattr(types, _ENUM_TYPES[type_name])
    try:
        return str(enum(int(raw)).name)
    except (ValueError, TypeError):
        return raw


_NUMBER = re.compile(r"^-?\d+(\.\d*)?([eE][-+]?\d+)?$")


def _parse_default(kind: str, is_vector: bool, raw: str) -> Any:
    """Turns DALI's default-value string into a JSON value of the argument's type."""
    raw = raw.strip()
    if kind in _ENUM_TYPES:
        return _enum_name(kind, raw)
    if is_vector:
        items = [item.strip() for item in raw.strip("[]").split(",") if item.strip()]
        return [_parse_scalar(kind, item) for item in items]
    return _parse_scalar(kind, raw)


def _parse_scalar(kind: str, raw: str) -> Any:
    if kind == "BOOL":
        return raw.lower() in {"1", "true"}
    if kind in {"FLOAT", "FLOAT64", "FLOAT16"} and _NUMBER.match(raw):
        return float(raw)
    if _NUMBER.match(raw) and kind not in {"STRING", "TENSOR_LAYOUT"}:
        return int(float(raw))
    if kind in {"STRING", "TENSOR_LAYOUT"}:
        return raw.strip("'\"")
    return raw


def _arg_info(schema: Any, name: str) -> ArgInfo:
    dali_type = str(schema.GetArgumentType(name)).split(".")[-1]
    is_vector = dali_type.startswith("_") and dali_type.endswith("_VEC")
    kind = dali_type.strip("_").removesuffix("_VEC") if is_vector else dali_type
    has_default = bool(schema.HasArgumentDefaultValue(name))
    default = (
        _parse_default(kind, is_vector, schema.GetArgumentDefaultValueString(name))
        if has_default
        else None
    )
    try:
        doc = str(schema.GetArgumentDox(name))
    except RuntimeError:
        doc = ""
    return ArgInfo(
        name=name,
        kind=kind,
        is_vector=is_vector,
        default=default,
        has_default=has_default,
        required=not schema.IsArgumentOptional(name),
        per_sample=bool(schema.IsTensorArgument(name)),
        choices=_enum_choices(kind) if kind in _ENUM_TYPES else (),
        doc=doc,
    )


def _inputs(schema: Any) -> tuple[InputInfo, ...]:
    count = schema.MaxNumInput()
    if count > 16:  # variadic operators (cat, stack, ...): describe the first input only
        count = max(1, schema.MinNumInput())
    inputs = []
    for index in range(count):
        try:
            name = str(schema.GetInputName(index))
            doc = str(schema.GetInputDox(index))
        except RuntimeError:
            name, doc = ("input" if count == 1 else f"input_{index}"), ""
        inputs.append(InputInfo(name=name, doc=doc, gpu_reads_cpu=_gpu_reads_cpu(schema, index)))
    return tuple(inputs)


def _gpu_reads_cpu(schema: Any, index: int) -> bool:
    try:
        return schema.GetInputDevice(index, "cpu", "gpu") == "cpu"
    except (RuntimeError, IndexError, TypeError):
        return False


def _input_layouts(schema: Any) -> tuple[str, ...]:
    if schema.MaxNumInput() == 0:
        return ()
    try:
        return tuple(str(layout) for layout in schema.GetSupportedLayouts(0))
    except (RuntimeError, IndexError):
        return ()


def _output_count(schema: Any, schema_name: str) -> int:
    """Outputs with default arguments (a few operators add outputs through arguments)."""
    backend = _backend()

    try:
        spec = backend.OpSpec(schema_name)
        outputs = int(schema.CalculateOutputs(spec))
        return outputs + max(0, int(schema.CalculateAdditionalOutputs(spec)))
    except (RuntimeError, ValueError):  # the count depends on a required argument
        return 1


def _doc(schema: Any) -> str:
    try:
        return str(schema.Dox())
    except RuntimeError:
        return ""


def _python_side_ops() -> tuple[set[str], set[str]]:
    """The CPU and GPU backends of :data:`PYTHON_SIDE_OPS`, from DALI's Python-side registry."""
    importlib.import_module("nvidia.dali.ops")  # loads the python_function plugin, as `fn` does
    registry: Any = importlib.import_module("nvidia.dali.ops._registry")
    return (
        set(registry.cpu_ops()) & PYTHON_SIDE_OPS,
        set(registry.gpu_ops()) & PYTHON_SIDE_OPS,
    )


def read_schemas() -> list[OpInfo]:
    """Every public, non-deprecated `fn` operator registered in the installed DALI."""
    backend = _backend()

    python_cpu, python_gpu = _python_side_ops()
    cpu = set(backend.RegisteredCPUOps()) | python_cpu
    gpu = set(backend.RegisteredGPUOps()) | python_gpu
    mixed = set(backend.RegisteredMixedOps())
    ops: list[OpInfo] = []
    for schema_name in sorted(cpu | gpu | mixed):
        schema = backend.GetSchema(schema_name)
        if schema_name.startswith("_") or schema.IsDocHidden() or schema.IsInternal():
            continue
        if schema.IsDeprecated():
            continue
        backends: list[Backend] = []
        if schema_name in cpu:
            backends.append("cpu")
        if schema_name in gpu:
            backends.append("gpu")
        if schema_name in mixed:
            backends.append("mixed")
        args = tuple(
            _arg_info(schema, arg)
            for arg in sorted(schema.GetArgumentNames())
            if arg not in _PLUMBING_ARGS and not schema.IsDeprecatedArg(arg)
        )
        ops.append(
            OpInfo(
                name=fn_name(schema_name),
                schema_name=schema_name,
                backends=tuple(backends),
                inputs=_inputs(schema),
                min_inputs=int(schema.MinNumInput()),
                max_inputs=int(schema.MaxNumInput()),
                # python_function's output count is its `num_outputs` (1 by default).
                outputs=1 if schema_name in PYTHON_SIDE_OPS else _output_count(schema, schema_name),
                args=args,
                random=bool(schema.HasRandomSeedArg()),
                doc=_doc(schema),
                input_layouts=_input_layouts(schema),
            )
        )
    return ops


def count_deprecated() -> int:
    """How many public operators the installed DALI marks deprecated (hidden from the catalog)."""
    backend = _backend()

    names = (
        set(backend.RegisteredCPUOps())
        | set(backend.RegisteredGPUOps())
        | set(backend.RegisteredMixedOps())
    )
    return sum(
        int(True)
        for name in names
        if not name.startswith("_")
        and not backend.GetSchema(name).IsDocHidden()
        and backend.GetSchema(name).IsDeprecated()
    )
