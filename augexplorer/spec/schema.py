"""The JSON form of a graph spec, as msgspec structs: strict types, no unknown fields, bounds.

This is the one place a spec's JSON is checked. :mod:`augexplorer.spec.io` decodes into these
structs and turns them into the :mod:`augexplorer.spec.graph` dataclasses; anything that does
not fit raises a :class:`~augexplorer.errors.SpecFormatError` naming the field by its path
(``nodes[3].args.angle.low: expected a number, got "abc"``).

Node arguments are open-ended (any DALI argument of any operator), so their values are decoded
as plain JSON first and then dispatched on their shape: ``{"ref": ...}``, ``{"random": ...}``,
``{"python": ...}``, ``{"float": "nan"}`` or a constant.
"""

# No `from __future__ import annotations`: msgspec would compile the annotation strings on first
# use, and loading a spec compiles nothing.
from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta, Struct

# DALI's seeds are int64, and -1 asks for a random seed: a recorded seed is never negative.
SEED_MAX = 2**63 - 1
# Constants DALI can hold: int64 and uint64 integers, float64 numbers.
INT_MIN, INT_MAX = -(2**63), 2**64 - 1
MAX_BATCH = 4096
MAX_NODES = 5000
MAX_DEPTH = 32  # a spec needs about 8 levels (spec, nodes, node, args, value, matrix rows)
MAX_TEXT = 100_000  # characters in one string (python_function sources are the long ones)
MAX_NAME = 200
MAX_SHAPE = 64
MAX_EPOCHS = 100_000

Seed = Annotated[int, Meta(ge=0, le=SEED_MAX)]
Name = Annotated[str, Meta(min_length=1, max_length=MAX_NAME)]
# A node's output: "decode" is output 0 of node decode, "reader:1" its output 1.
RefText = Annotated[str, Meta(pattern=r"^[^:\s][^:]*(:(0|[1-9][0-9]{0,2}))?\Z", max_length=80)]
Number = float  # msgspec accepts JSON integers for floats; booleans are refused
Shape = Annotated[int, Meta(ge=1, le=MAX_SHAPE)]


class _Object(Struct, forbid_unknown_fields=True, omit_defaults=True):
    """Every JSON object of a spec: an unknown field is an error, not silently dropped."""


class RefJSON(_Object):
    ref: RefText


class FloatJSON(_Object):
    """NaN and infinities, which JSON cannot write, kept so validation can name them."""

    float: Literal["nan", "inf", "-inf", "NaN", "Infinity", "-Infinity"]


class PythonJSON(_Object):
    python: Annotated[str, Meta(max_length=MAX_TEXT)]
    name: Name


class _Draw(_Object, tag_field="random"):
    shape: Shape | None = None
    seed: Seed | None = None


class UniformJSON(_Draw, tag="uniform"):
    low: Number = 0.0
    high: Number = 1.0


class NormalJSON(_Draw, tag="normal"):
    mean: Number = 0.0
    stddev: Number = 1.0


class CoinFlipJSON(_Draw, tag="coin_flip"):
    probability: Number = 0.5


ChoiceValue = int | float | bool | str


class ChoiceJSON(_Draw, tag="choice"):
    values: Annotated[list[ChoiceValue], Meta(max_length=4096)] = []
    p: Annotated[list[Number], Meta(max_length=4096)] = []


RandomJSON = UniformJSON | NormalJSON | CoinFlipJSON | ChoiceJSON


class ProbabilityJSON(_Object):
    p: Number
    seed: Seed | None = None


class ClauseJSON(_Object):
    """One clause of a node's condition: ``{"ref": "flip"}`` or ``{"ref": "flip", "is": false}``."""

    ref: RefText
    holds: bool = msgspec.field(default=True, name="is")


class SourceJSON(_Object):
    id: Name
    source: Literal["samples", "folder", "file_list", "arrays", "coco", "yolo"]
    path: Annotated[str, Meta(max_length=4096)] | None = None
    shuffle: bool = True
    seed: Seed | None = None
    skip_bad: bool = False
    file_root: Annotated[str, Meta(max_length=4096)] | None = None
    # arguments of the DALI reader (readers.file, readers.coco): constants, checked one by one like node args
    reader_args: Annotated[dict[Name, Any], Meta(max_length=64)] = {}
    keypoints: bool = False


class OriginJSON(_Object):
    library: Name
    transform: Annotated[str, Meta(max_length=MAX_TEXT)]
    fidelity: Literal["exact", "distribution", "approximate"]
    line: Annotated[int, Meta(ge=1)] | None = None
    differences: Annotated[
        list[Annotated[str, Meta(max_length=MAX_TEXT)]], Meta(max_length=64)
    ] = []
    edited: Annotated[list[Name], Meta(max_length=256)] = []


class NotPortedJSON(_Object):
    """A transform a port left out of the graph (augexplorer.spec.graph.NotPorted)."""

    library: Name
    transform: Annotated[str, Meta(max_length=MAX_TEXT)]
    reason: Annotated[str, Meta(max_length=MAX_TEXT)]
    line: Annotated[int, Meta(ge=1)] | None = None


class NodeJSON(_Object):
    id: Name
    op: Annotated[str, Meta(min_length=1, max_length=MAX_NAME)]
    inputs: Annotated[list[RefText], Meta(max_length=64)] = []
    args: dict[Name, Any] = {}
    device: Literal["cpu", "gpu", "mixed"] | None = None
    probability: ProbabilityJSON | None = None
    seed: Seed | None = None
    when: Annotated[list[ClauseJSON], Meta(max_length=64)] = []
    origin: OriginJSON | None = None


ConstantValue = int | float | bool
ConstantType = Literal[
    "UINT8",
    "UINT16",
    "UINT32",
    "UINT64",
    "INT8",
    "INT16",
    "INT32",
    "INT64",
    "FLOAT16",
    "FLOAT",
    "FLOAT64",
    "BOOL",
]


class ConstantArgsJSON(_Object):
    """The arguments of a constant node (op ``"constant"``): a constant array, flat values in
    row-major order; `shape` defaults to one dimension of all the values."""

    values: Annotated[list[ConstantValue], Meta(min_length=1, max_length=65536)]
    dtype: ConstantType = "FLOAT"
    shape: Annotated[list[Annotated[int, Meta(ge=0, le=2**31 - 1)]], Meta(max_length=8)] | None = (
        None
    )
    layout: Annotated[str, Meta(max_length=8, pattern=r"^[A-Za-z]*\Z")] | None = None


Epoch = Annotated[int, Meta(ge=0, le=MAX_EPOCHS)]


class ScheduleJSON(_Object):
    """A value over the run's epochs (augexplorer.spec.schedule.Schedule)."""

    curve: Literal["constant", "linear", "cosine", "warmup", "steps", "table"]
    start: Number = 0.0
    end: Number = 0.0
    begin: Epoch = 0
    finish: Epoch | None = None
    points: Annotated[list[tuple[Epoch, Number]], Meta(max_length=MAX_EPOCHS)] = []


class GraphJSON(_Object):
    format: str
    version: int
    nodes: Annotated[list[dict[str, Any]], Meta(max_length=MAX_NODES)] = []
    # keys: any text validation accepts; values checked one by one, to name them in errors
    outputs: Annotated[
        dict[Annotated[str, Meta(max_length=MAX_NAME)], Any], Meta(max_length=64)
    ] = {}
    batch_size: Annotated[int, Meta(ge=1, le=MAX_BATCH)] = 8
    seed: Seed = 0
    name: Annotated[str, Meta(max_length=MAX_NAME)] = "augmentation"
    epochs: Annotated[int, Meta(ge=1, le=MAX_EPOCHS)] | None = None
    # keys: "node.argument", "node.argument.bound" or "node.apply"; values ScheduleJSON
    schedules: Annotated[
        dict[Annotated[str, Meta(max_length=MAX_NAME)], Any], Meta(max_length=1000)
    ] = {}
    # transforms of the pipeline a graph was ported from that the port left out
    not_ported: Annotated[list[NotPortedJSON], Meta(max_length=MAX_NODES)] = []


def struct_fields(cls: type[Struct]) -> list[str]:
    """The JSON field names of a struct, for 'allowed: ...' in error messages."""
    return [field.encode_name for field in msgspec.structs.fields(cls)]
