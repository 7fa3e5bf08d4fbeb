"""A serialized pipeline written with old DALI names, in the current ones before it is converted.

Code in the ``ops`` API (``ops.FileReader``, ``ops.readers.File``, ``ops.CoinFlip``) and the
``fn`` aliases DALI still accepts (``fn.image_decoder_random_crop``, ``fn.uniform``) serialize
under the old operator's schema, or under the current schema with the ``ops`` module recorded:
both become the current ``fn`` operator here, their deprecated arguments renamed or dropped as
DALI's schemas say (:mod:`augexplorer.catalog.aliases`). ``fn.shapes`` and ``.shape(dtype=...)``
become ``.shape()`` followed by a ``fn.cast`` to the asked type: the same numbers, in the
notation an expression node holds.
"""

from __future__ import annotations

import ast
import dataclasses
import warnings
from typing import Any

from ..catalog.aliases import SHAPE_SCHEMA, argument_aliases, old_fn_names, operator_aliases
from ..catalog.schema import fn_name
from .protobuf import Argument, OpRecord, Port

_NAMING = ("_module", "_display_name")  # how the Python API named the call
_CAST_SCHEMA = "Cast"
# Decoder arguments DALI deprecates and ignores (nvJPEG's stages and allocator, its debug
# print): still accepted, no part of any image; the graph leaves them out, saying so.
_IGNORED_BY_DALI = frozenset({"split_stages", "use_chunk_allocator", "memory_stats"})


class ArgumentLeftOut(UserWarning):
    """An argument DALI accepts but ignores, left out of the imported graph."""


def current_names(ops: list[OpRecord]) -> list[OpRecord]:
    """`ops` with old operator and argument names replaced by the current ones; operators
    whose replacement takes other inputs (``SSDRandomCrop``) are left for the caller to refuse."""
    found: list[OpRecord] = []
    for op in ops:
        op = _current_operator(op)
        op = _current_arguments(op)
        found += _shape_with_dtype(op)
    return found


def replacement_of(op: OpRecord) -> str | None:
    """For a deprecated operator that is no alias: the ``fn`` operator DALI names instead."""
    alias = operator_aliases().get(op.schema)
    if alias is None or alias.same_interface:
        return None
    return alias.new_name


def _current_operator(op: OpRecord) -> OpRecord:
    alias = operator_aliases().get(op.schema)
    module = str(op.args["_module"].value()) if "_module" in op.args else ""
    display = str(op.args["_display_name"].value()) if "_display_name" in op.args else ""
    from_ops_api = module == "nvidia.dali.ops" or module.startswith("nvidia.dali.ops.")
    called = ".".join(filter(None, [module.removeprefix("nvidia.dali.fn").strip("."), display]))
    kept: dict[str, Argument] = {}
    if alias is not None and alias.same_interface:
        schema = alias.new
        # the old operator's defaults where the new one's differ: the code ran with those
        kept = _old_defaults(op.schema, schema, op.args)
    elif from_ops_api or called in old_fn_names():
        # ops.readers.File, fn.file_reader (DALI records the current schema under the name
        # the code called): the schema is current, the recorded name is not
        schema = op.schema
    else:
        return op
    args = {name: value for name, value in op.args.items() if name not in _NAMING}
    args = {**args, **kept}
    written = _ops_name(module, display) if from_ops_api and display else ""
    return dataclasses.replace(op, schema=schema, args=args, called=written)


def _old_defaults(old: str, new: str, given: dict[str, Argument]) -> dict[str, Argument]:
    """The arguments `given` leaves out whose default in schema `old` differs from the one in
    `new`, at the old default (DALI 2.4: ``FastResizeCropMirror`` resizes without antialias,
    ``ResizeCropMirror`` with it)."""
    import importlib

    backend: Any = importlib.import_module("nvidia.dali.backend")  # untyped in DALI's stubs
    before, after = backend.GetSchema(old), backend.GetSchema(new)
    kept: dict[str, Argument] = {}
    for name in before.GetArgumentNames():
        if name in given or not after.HasArgument(name):
            continue
        try:
            then, now = (s.GetArgumentDefaultValueString(name) for s in (before, after))
        except (RuntimeError, ValueError):  # a required argument: no default
            continue
        if then != now:
            kept[name] = _argument(name, then)
    return kept


def _argument(name: str, default: str) -> Argument:
    """An argument at the value of a schema's default, as DALI writes it (``False``, ``1``,
    ``0.500000``, ``'default'``)."""
    value = ast.literal_eval(default)
    if isinstance(value, list | tuple):
        elements = [_argument(f"element {i}", repr(v)) for i, v in enumerate(value)]
        kind = elements[0].type if elements else ""
        return Argument(name, kind, elements=elements, is_vector=True)
    if isinstance(value, bool):
        return Argument(name, "bool", bools=[value])
    if isinstance(value, int):
        return Argument(name, "int64", ints=[value])
    if isinstance(value, float):
        return Argument(name, "float", floats=[value])
    if isinstance(value, str):
        return Argument(name, "string", strings=[value])
    raise ValueError(f"{name}: a default DALI writes as {default!r} is not read here")


def _ops_name(module: str, display: str) -> str:
    """The ops class as code names it: ``ops.MXNetReader``, ``ops.readers.File``; DALI records
    ``ops.readers.TFRecord`` (a Python-side class) under ``nvidia.dali.ops`` alone."""
    import importlib

    parts = [part for part in module.removeprefix("nvidia.dali.ops").split(".") if part]
    found: Any = importlib.import_module("nvidia.dali.ops")
    for part in parts:
        found = getattr(found, part, None)
    readers = getattr(found, "readers", None) if found is not None else None
    if not hasattr(found, display) and hasattr(readers, display):
        parts.append("readers")
    return ".".join(["ops", *parts, display])


def _current_arguments(op: OpRecord) -> OpRecord:
    op = _without_ignored(op)
    aliases = argument_aliases(op.schema)
    if not aliases or not aliases.keys() & op.args.keys():
        return op
    args: dict[str, Argument] = {}
    for name, value in op.args.items():
        alias = aliases.get(name)
        if alias is None:
            args[name] = value
        elif alias.new is not None and alias.new not in op.args:
            args[alias.new] = dataclasses.replace(value, name=alias.new)
    return dataclasses.replace(op, args=args)


def _without_ignored(op: OpRecord) -> OpRecord:
    ignored = [name for name in op.args if name in _IGNORED_BY_DALI and _deprecated(op, name)]
    if not ignored:
        return op
    from .refusals import where

    for name in ignored:
        warnings.warn(
            ArgumentLeftOut(
                f"{name}= of fn.{fn_name(op.schema)}{where(op)} is left out of the graph: DALI "
                "deprecates it and ignores it, so no image changes (fix: nothing to do; drop it "
                "from your code to silence DALI's warning too)"
            ),
            stacklevel=2,
        )
    args = {name: value for name, value in op.args.items() if name not in ignored}
    return dataclasses.replace(op, args=args)


def _deprecated(op: OpRecord, argument: str) -> bool:
    import importlib

    backend: Any = importlib.import_module("nvidia.dali.backend")  # untyped in DALI's stubs
    try:
        return bool(backend.GetSchema(op.schema).IsDeprecatedArg(argument))
    except (KeyError, RuntimeError):  # a schema DALI registers only on its Python side
        return False


def _shape_with_dtype(op: OpRecord) -> list[OpRecord]:
    """``x.shape(dtype=T)`` as ``.shape()`` and a cast to T (an expression holds plain
    ``.shape()``); any other operator as it is."""
    if op.schema != SHAPE_SCHEMA or "dtype" not in op.args or len(op.outputs) != 1:
        return [op]
    output = op.outputs[0]
    shapes = Port(f"{output.name}__int64_shape", output.device)
    args = {name: value for name, value in op.args.items() if name != "dtype"}
    shape = dataclasses.replace(op, args=args, outputs=[shapes])
    cast_args = {
        name: value
        for name, value in op.args.items()
        if name == "dtype" or name == "device" or name.startswith("_origin_stack")
    }
    cast = OpRecord(
        _CAST_SCHEMA, [Port(shapes.name, output.device)], [output], cast_args, f"{op.instance}_cast"
    )
    return [shape, cast]
