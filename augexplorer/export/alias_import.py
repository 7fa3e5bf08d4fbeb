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

import dataclasses

from ..catalog.aliases import SHAPE_SCHEMA, argument_aliases, old_fn_names, operator_aliases
from .protobuf import Argument, OpRecord, Port

_NAMING = ("_module", "_display_name")  # how the Python API named the call
_CAST_SCHEMA = "Cast"


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
    if alias is not None and alias.same_interface:
        schema = alias.new
    elif from_ops_api or called in old_fn_names():
        # ops.readers.File, fn.file_reader (DALI records the current schema under the name
        # the code called): the schema is current, the recorded name is not
        schema = op.schema
    else:
        return op
    args = {name: value for name, value in op.args.items() if name not in _NAMING}
    return dataclasses.replace(op, schema=schema, args=args)


def _current_arguments(op: OpRecord) -> OpRecord:
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
