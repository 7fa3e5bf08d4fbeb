"""JSON round trip for graph specs, with a format version and strict field checks.

Loading a spec never runs code: it is plain JSON turned into dataclasses.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..errors import SpecFormatError
from .graph import (
    DISTRIBUTIONS,
    SOURCE_KINDS,
    AnyNode,
    GraphSpec,
    Node,
    Probability,
    PythonCode,
    Random,
    Ref,
    Source,
)

FORMAT = "augexplorer.graph"
VERSION = 1

_GRAPH_FIELDS = {"format", "version", "name", "batch_size", "seed", "nodes", "outputs"}
_NODE_FIELDS = {"id", "op", "inputs", "args", "device", "probability", "seed"}
_SOURCE_FIELDS = {"id", "source", "path", "shuffle", "seed", "skip_bad"}
_RANDOM_FIELDS = {
    "random",
    "low",
    "high",
    "mean",
    "stddev",
    "probability",
    "values",
    "p",
    "shape",
    "seed",
}


def _json_value(value: Any) -> Any:
    if isinstance(value, Ref):
        return {"ref": str(value)}
    if isinstance(value, (Random, PythonCode)):
        return value.to_json()
    if isinstance(value, (tuple, list)):
        return [_json_value(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return {"float": str(value)}  # JSON has no NaN/inf; keep them so validation can name them
    return value


def node_to_json(node: AnyNode) -> dict[str, Any]:
    if isinstance(node, Source):
        out: dict[str, Any] = {"id": node.id, "source": node.kind}
        if node.path is not None:
            out["path"] = node.path
        out["shuffle"] = node.shuffle
        if node.skip_bad:
            out["skip_bad"] = True
        if node.seed is not None:
            out["seed"] = node.seed
        return out
    out = {"id": node.id, "op": node.op}
    if node.inputs:
        out["inputs"] = [str(ref) for ref in node.inputs]
    if node.args:
        out["args"] = {name: _json_value(value) for name, value in node.args.items()}
    if node.device is not None:
        out["device"] = node.device
    if node.probability is not None:
        out["probability"] = {"p": node.probability.p}
        if node.probability.seed is not None:
            out["probability"]["seed"] = node.probability.seed
    if node.seed is not None:
        out["seed"] = node.seed
    return out


def to_json(spec: GraphSpec) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "version": VERSION,
        "name": spec.name,
        "batch_size": spec.batch_size,
        "seed": spec.seed,
        "nodes": [node_to_json(node) for node in spec.nodes],
        "outputs": {name: str(ref) for name, ref in spec.outputs.items()},
    }


def dumps(spec: GraphSpec) -> str:
    return json.dumps(to_json(spec), indent=2) + "\n"


# ---- loading ---------------------------------------------------------------------------------


def _check_fields(where: str, data: Mapping[str, Any], allowed: set[str]) -> None:
    unknown = sorted(set(data) - allowed)
    if unknown:
        raise SpecFormatError(
            f"{where}: unknown field(s) {', '.join(map(repr, unknown))}; "
            f"allowed: {', '.join(sorted(allowed))}"
        )


def _expect(where: str, value: Any, kind: type | tuple[type, ...], what: str) -> Any:
    if not isinstance(value, kind) or (isinstance(value, bool) and kind in (int, (int, float))):
        raise SpecFormatError(f"{where}: expected {what}, got {type(value).__name__} {value!r}")
    return value


def _value_from_json(where: str, value: Any) -> Any:
    if isinstance(value, dict):
        if set(value) == {"ref"}:
            return Ref.parse(_expect(where, value["ref"], str, "a node name"))
        if set(value) == {"float"}:
            return float(value["float"])
        if "random" in value:
            return _random_from_json(where, value)
        if "python" in value:
            return _python_from_json(where, value)
        raise SpecFormatError(
            f"{where}: an argument object must be {{'ref': ...}}, {{'random': ...}} or "
            f"{{'python': ..., 'name': ...}}, got {value!r}"
        )
    if isinstance(value, list):
        return [_value_from_json(where, v) for v in value]
    return value


def _random_from_json(where: str, data: Mapping[str, Any]) -> Random:
    _check_fields(where, data, _RANDOM_FIELDS)
    dist = data["random"]
    if dist not in DISTRIBUTIONS:
        raise SpecFormatError(
            f"{where}: unknown distribution {dist!r}; use one of {', '.join(DISTRIBUTIONS)}"
        )
    kwargs: dict[str, Any] = {}
    for key in ("low", "high", "mean", "stddev", "probability"):
        if key in data:
            kwargs[key] = _expect(f"{where}.{key}", data[key], (int, float), "a number")
    if "values" in data:
        kwargs["values"] = tuple(_expect(f"{where}.values", data["values"], list, "a list"))
    if "p" in data:
        kwargs["p"] = tuple(_expect(f"{where}.p", data["p"], list, "a list of weights"))
    for key in ("shape", "seed"):
        if key in data and data[key] is not None:
            kwargs[key] = _expect(f"{where}.{key}", data[key], int, "an integer")
    return Random(dist, **kwargs)


def _python_from_json(where: str, data: Mapping[str, Any]) -> PythonCode:
    # Kept as text: nothing here parses, compiles or runs it.
    _check_fields(where, data, {"python", "name"})
    return PythonCode(
        source=_expect(f"{where}.python", data["python"], str, "Python source text"),
        name=_expect(f"{where}.name", data.get("name"), str, "the name of the function to call"),
    )


def node_from_json(index: int, data: Any) -> AnyNode:
    where = f"nodes[{index}]"
    _expect(where, data, dict, "an object")
    node_id = _expect(f"{where}.id", data.get("id"), str, "a node name")
    where = f"node {node_id!r}"
    if "source" in data:
        _check_fields(where, data, _SOURCE_FIELDS)
        kind = data["source"]
        if kind not in SOURCE_KINDS:
            raise SpecFormatError(
                f"{where}: unknown source kind {kind!r}; use one of {', '.join(SOURCE_KINDS)}"
            )
        return Source(
            id=node_id,
            kind=kind,
            path=data.get("path"),
            shuffle=bool(data.get("shuffle", True)),
            skip_bad=_expect(
                f"{where}.skip_bad", data.get("skip_bad", False), bool, "true or false"
            ),
            seed=data.get("seed"),
        )
    _check_fields(where, data, _NODE_FIELDS)
    op = _expect(f"{where}.op", data.get("op"), str, "an operator name such as 'rotate'")
    inputs = tuple(
        Ref.parse(_expect(f"{where}.inputs", ref, str, "a node name"))
        for ref in data.get("inputs", [])
    )
    args = {
        name: _value_from_json(f"{where}.args.{name}", value)
        for name, value in _expect(f"{where}.args", data.get("args", {}), dict, "an object").items()
    }
    probability = None
    if data.get("probability") is not None:
        prob = _expect(f"{where}.probability", data["probability"], dict, "{'p': ..., 'seed': ...}")
        _check_fields(f"{where}.probability", prob, {"p", "seed"})
        probability = Probability(
            p=_expect(f"{where}.probability.p", prob.get("p"), (int, float), "a number in [0, 1]"),
            seed=prob.get("seed"),
        )
    return Node(
        id=node_id,
        op=op,
        inputs=inputs,
        args=args,
        device=data.get("device"),
        probability=probability,
        seed=data.get("seed"),
    )


def from_json(data: Any) -> GraphSpec:
    _expect("spec", data, dict, "a JSON object")
    if data.get("format") != FORMAT:
        raise SpecFormatError(f"spec: 'format' must be {FORMAT!r}; is this an augexplorer graph?")
    version = data.get("version")
    if not isinstance(version, int):
        raise SpecFormatError("spec: 'version' must be an integer")
    if version > VERSION:
        raise SpecFormatError(
            f"spec: format version {version} is newer than this augexplorer understands "
            f"(up to {VERSION}); upgrade augexplorer to open it"
        )
    _check_fields("spec", data, _GRAPH_FIELDS)
    nodes = tuple(
        node_from_json(i, node)
        for i, node in enumerate(_expect("spec.nodes", data.get("nodes", []), list, "a list"))
    )
    outputs = {
        name: Ref.parse(_expect(f"spec.outputs.{name}", ref, str, "a node name"))
        for name, ref in _expect("spec.outputs", data.get("outputs", {}), dict, "an object").items()
    }
    return GraphSpec(
        nodes=nodes,
        outputs=outputs,
        batch_size=_expect("spec.batch_size", data.get("batch_size", 8), int, "an integer"),
        seed=_expect("spec.seed", data.get("seed", 0), int, "an integer"),
        name=_expect("spec.name", data.get("name", "augmentation"), str, "a string"),
    )


def loads(text: str) -> GraphSpec:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise SpecFormatError(
            f"not valid JSON (line {error.lineno}, column {error.colno}): {error.msg}"
        ) from None
    return from_json(data)


def load(path: str | Path) -> GraphSpec:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SpecFormatError(f"{path}: no such spec file") from None
    except UnicodeDecodeError:
        raise SpecFormatError(f"{path}: not a text file; a spec is JSON") from None
    try:
        return loads(text)
    except SpecFormatError as error:
        raise SpecFormatError(f"{path}: {error}") from None


def save(spec: GraphSpec, path: str | Path, *, overwrite: bool = False) -> Path:
    from ..files import atomic_write_text

    return atomic_write_text(Path(path), dumps(spec), overwrite=overwrite)
