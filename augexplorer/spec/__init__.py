"""Graph specs: what the user builds, edits, saves and exports."""

from .graph import (
    DISTRIBUTIONS,
    SOURCE_KINDS,
    AnyNode,
    ArgValue,
    Clause,
    Device,
    GraphSpec,
    Node,
    Probability,
    PythonCode,
    Random,
    Ref,
    Source,
    chain,
)
from .io import FORMAT, VERSION, dumps, from_json, load, loads, save, to_json

__all__ = [
    "DISTRIBUTIONS",
    "FORMAT",
    "SOURCE_KINDS",
    "VERSION",
    "AnyNode",
    "ArgValue",
    "Clause",
    "Device",
    "GraphSpec",
    "Node",
    "Probability",
    "PythonCode",
    "Random",
    "Ref",
    "Source",
    "chain",
    "dumps",
    "from_json",
    "load",
    "loads",
    "save",
    "to_json",
]
