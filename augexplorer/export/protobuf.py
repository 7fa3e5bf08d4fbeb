"""A minimal reader for the protobuf that ``Pipeline.serialize()`` writes (DALI's dali.proto).

DALI does not ship its generated protobuf classes in the wheel, so the few messages needed are
read here from the wire format. Field numbers, as DALI writes them:

- PipelineDef: 5 op (OpDef, repeated), 7 pipe_outputs (InputOutput, repeated), 9 seed (only
  when the pipeline was given one)
- OpDef: 1 name (schema name), 2 input, 3 output (InputOutput), 4 args (Argument), 5 inst_name,
  6 logical_id (operators sharing one draw with the same seed)
- InputOutput: 1 name, 2 device, 3 is_argument_input, 4 arg_name
- Argument: 1 name, 2 type, 3 floats, 4 ints, 5 strings, 6 bools, 7 extra_args, 8 is_vector
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from ..errors import AugExplorerError


class ProtobufError(AugExplorerError):
    """Bytes that are not a serialized DALI pipeline."""


@dataclass
class Port:
    name: str
    device: str = "cpu"
    is_argument: bool = False
    argument: str = ""


@dataclass
class Argument:
    name: str
    type: str = ""
    floats: list[float] = field(default_factory=list)
    ints: list[int] = field(default_factory=list)
    strings: list[str] = field(default_factory=list)
    bools: list[bool] = field(default_factory=list)
    elements: list[Argument] = field(default_factory=list)
    is_vector: bool = False

    def value(self) -> Any:
        """The plain Python value: a scalar, or a list for vector arguments."""
        if self.is_vector:
            return [element.value() for element in self.elements]
        for values in (self.floats, self.ints, self.strings, self.bools):
            if values:
                return values[0]
        return None


@dataclass
class OpRecord:
    schema: str
    inputs: list[Port]
    outputs: list[Port]
    args: dict[str, Argument]
    instance: str
    logical_id: int = -1
    # the ops API class the code called ("ops.MXNetReader"), where it called that API: a refusal
    # names it as written (set when the old names are replaced, :mod:`.alias_import`)
    called: str = ""


@dataclass
class PipelineRecord:
    ops: list[OpRecord]
    outputs: list[Port]
    seed: int | None = None  # the pipeline's seed=, None when DALI drew one itself


def _varint(data: bytes, position: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        if position >= len(data):
            raise ProtobufError("truncated varint")
        byte = data[position]
        position += 1
        result |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return result, position
        if shift > 70:
            raise ProtobufError("varint too long")


def _fields(data: bytes) -> Iterator[tuple[int, int, Any]]:
    """(field number, wire type, value) of every field of one message."""
    position = 0
    while position < len(data):
        key, position = _varint(data, position)
        number, wire = key >> 3, key & 7
        value: Any
        if wire == 0:
            value, position = _varint(data, position)
        elif wire == 1:
            value, position = data[position : position + 8], position + 8
        elif wire == 2:
            length, position = _varint(data, position)
            value, position = data[position : position + length], position + length
        elif wire == 5:
            value, position = data[position : position + 4], position + 4
        else:
            raise ProtobufError(f"unsupported wire type {wire}")
        if position > len(data):
            raise ProtobufError("truncated message")
        yield number, wire, value


def _signed(value: int) -> int:
    return value - (1 << 64) if value >= 1 << 63 else value


def _text(value: bytes) -> str:
    return value.decode("utf-8", errors="replace")


def _port(data: bytes) -> Port:
    port = Port("")
    for number, _, value in _fields(data):
        if number == 1:
            port.name = _text(value)
        elif number == 2:
            port.device = _text(value)
        elif number == 3:
            port.is_argument = bool(value)
        elif number == 4:
            port.argument = _text(value)
    return port


def _argument(data: bytes) -> Argument:
    arg = Argument("")
    for number, wire, value in _fields(data):
        if number == 1:
            arg.name = _text(value)
        elif number == 2:
            arg.type = _text(value)
        elif number == 3:
            # one fixed32, or several packed together: 4 bytes each either way
            arg.floats.extend(x for (x,) in struct.iter_unpack("<f", value))
        elif number == 4:
            if wire == 2:  # packed
                position = 0
                while position < len(value):
                    item, position = _varint(value, position)
                    arg.ints.append(_signed(item))
            else:
                arg.ints.append(_signed(value))
        elif number == 5:
            arg.strings.append(_text(value))
        elif number == 6:
            if wire == 2:  # packed: one byte per value
                arg.bools.extend(bool(b) for b in value)
            else:
                arg.bools.append(bool(value))
        elif number == 7:
            arg.elements.append(_argument(value))
        elif number == 8:
            arg.is_vector = bool(value)
    return arg


def _op(data: bytes) -> OpRecord:
    op = OpRecord("", [], [], {}, "")
    for number, _, value in _fields(data):
        if number == 1:
            op.schema = _text(value)
        elif number == 2:
            op.inputs.append(_port(value))
        elif number == 3:
            op.outputs.append(_port(value))
        elif number == 4:
            arg = _argument(value)
            op.args[arg.name] = arg
        elif number == 5:
            op.instance = _text(value)
        elif number == 6:
            op.logical_id = _signed(value)
    return op


def read_pipeline(data: bytes) -> PipelineRecord:
    """Parse the bytes of ``Pipeline.serialize()``."""
    record = PipelineRecord([], [])
    try:
        for number, wire, value in _fields(data):
            if number == 5 and wire == 2:
                record.ops.append(_op(value))
            elif number == 7 and wire == 2:
                record.outputs.append(_port(value))
            elif number == 9 and wire == 0:
                record.seed = _signed(value)
    except (IndexError, struct.error) as error:
        raise ProtobufError(f"not a serialized DALI pipeline ({error})") from None
    if not record.ops:
        raise ProtobufError("not a serialized DALI pipeline (no operators found)")
    return record
