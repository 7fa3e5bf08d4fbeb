"""JSON round trip for graph specs, with a format version.

Loading a spec never runs code: JSON is decoded, checked against :mod:`.schema` (strict types, no
unknown fields, bounds) and turned into the :mod:`.graph` dataclasses.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import msgspec

from ..errors import SpecFormatError
from ..expressions import CONSTANT
from .explain import explain, nesting_depth
from .graph import (
    AnyNode,
    Clause,
    GraphSpec,
    Node,
    NotPorted,
    Origin,
    Probability,
    PythonCode,
    Random,
    Ref,
    Source,
)
from .schedule import Schedule, ScheduleTarget
from .schema import (
    INT_MAX,
    INT_MIN,
    MAX_DEPTH,
    MAX_TEXT,
    ChoiceJSON,
    CoinFlipJSON,
    ConstantArgsJSON,
    FloatJSON,
    GraphJSON,
    NodeJSON,
    NormalJSON,
    NotPortedJSON,
    OriginJSON,
    PythonJSON,
    RandomJSON,
    RefJSON,
    RefText,
    ScheduleJSON,
    SourceJSON,
    UniformJSON,
)

FORMAT = "augexplorer.graph"
VERSION = 1

MAX_SPEC_BYTES = 32 * 2**20


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
        if node.file_root is not None:
            out["file_root"] = node.file_root
        if node.reader_args:
            out["reader_args"] = {k: _json_value(v) for k, v in node.reader_args.items()}
        if node.keypoints:
            out["keypoints"] = True
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
    if node.when:
        out["when"] = [
            {"ref": str(c.ref)} if c.holds else {"ref": str(c.ref), "is": False} for c in node.when
        ]
    if node.origin is not None:
        out["origin"] = node.origin.to_json()
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
        **_optional_json(spec),
    }


def _optional_json(spec: GraphSpec) -> dict[str, Any]:
    """The run's length, schedules and what a port left out, written only where a graph has
    them: a graph without keeps the JSON it always had."""
    out: dict[str, Any] = {}
    if spec.epochs is not None:
        out["epochs"] = spec.epochs
    if spec.schedules:
        out["schedules"] = {str(k): v.to_json() for k, v in spec.schedules.items()}
    if spec.not_ported:  # only a port that left transforms out writes it
        out["not_ported"] = [item.to_json() for item in spec.not_ported]
    return out


def dumps(spec: GraphSpec) -> str:
    return json.dumps(to_json(spec), indent=2) + "\n"


# ---- loading ---------------------------------------------------------------------------------


def loads(text: str | bytes) -> GraphSpec:
    """A spec from JSON text; any problem is one :class:`SpecFormatError` naming the field."""
    if len(text) > MAX_SPEC_BYTES:
        raise SpecFormatError(
            f"the spec is {len(text):,} bytes, more than {MAX_SPEC_BYTES:,}; "
            "is this a graph spec? (a graph of a few hundred nodes is well under 1 MB)"
        )
    text = _as_unicode(text)
    try:
        data = msgspec.json.decode(text)
    except msgspec.ValidationError:  # a number too large for Python or float64
        raise SpecFormatError(_number_out_of_range(text)) from None
    except msgspec.DecodeError as error:
        raise SpecFormatError(_syntax_error(text, error)) from None
    except RecursionError:
        raise SpecFormatError(_too_deep()) from None
    return from_json(data)


# Half of a UTF-16 surrogate pair: not a character, so no UTF-8 text (and no JSON reader) holds it.
_SURROGATE = re.compile("[\ud800-\udfff]")
# The same written as a JSON escape, unpaired (a high half not followed by a low one, or a low
# half not preceded by a high one); Python's JSON reader takes it, msgspec does not.
_LONE_ESCAPE = re.compile(
    r"\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F][0-9a-fA-F]{2})"
    r"|(?<!\\u[dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F][0-9a-fA-F]{2}"
)
_BOM = "\ufeff"


def _as_unicode(text: str | bytes) -> str:
    """`text` as a str of characters only: bytes read as UTF-8 (a byte-order mark, which some
    editors write first, left out), or a SpecFormatError saying where the text is not."""
    if isinstance(text, bytes):
        data = text
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as error:
            line, column = _place(data[: error.start].decode("utf-8", "replace"))
            raise SpecFormatError(
                f"not UTF-8 text (line {line}, column {column}: byte "
                f"0x{data[error.start]:02x} is not UTF-8 there); save the spec as UTF-8 text"
            ) from None
    text = text.removeprefix(_BOM)
    found = _SURROGATE.search(text)
    if found is not None:
        line, column = _place(text[: found.start()])
        raise SpecFormatError(
            f"line {line}, column {column}: the text holds U+{ord(found.group()):04X}, half of "
            "a UTF-16 surrogate pair, which is not a character (was it cut from an emoji?); "
            "remove it or write the whole character"
        )
    return text


def _place(before: str) -> tuple[int, int]:
    """(line, column), from 1, of the character after `before`."""
    return before.count("\n") + 1, len(before) - (before.rfind("\n") + 1) + 1


def load(path: str | Path) -> GraphSpec:
    path = Path(path)
    try:
        with path.open("rb") as file:
            text = file.read(MAX_SPEC_BYTES + 1)
    except FileNotFoundError:
        raise SpecFormatError(f"{path}: no such spec file") from None
    except IsADirectoryError:
        raise SpecFormatError(
            f"{path}: is a folder, not a spec file (give the .json file)"
        ) from None
    except OSError as error:
        raise SpecFormatError(f"{path}: cannot be read ({error.strerror})") from None
    try:
        decoded = text.decode("utf-8")
    except UnicodeDecodeError:
        raise SpecFormatError(f"{path}: not a text file; a spec is JSON") from None
    try:
        return loads(decoded)
    except SpecFormatError as error:
        if path.suffix.lower() in (".py", ".ipynb"):  # code, not a spec: it is imported
            raise SpecFormatError(
                f"{path} is Python, not a spec (JSON): a module exported by augexplorer, a "
                "torchvision or albumentations pipeline, or DALI code is read by importing it "
                "(fix: augexplorer import FILE -o graph.json, or "
                "augexplorer.export.import_graph(path) in Python)"
            ) from None
        raise SpecFormatError(f"{path}: {error}") from None


def from_json(data: Any) -> GraphSpec:
    """A spec from decoded JSON (dicts and lists), checked against :mod:`.schema`."""
    if not isinstance(data, dict):
        raise SpecFormatError(f"spec: expected a JSON object, got {_kind(data)}")
    if data.get("format") != FORMAT:
        raise SpecFormatError(f"spec: 'format' must be {FORMAT!r}; is this an augexplorer graph?")
    version = data.get("version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise SpecFormatError("spec: 'version' must be an integer")
    if version > VERSION:
        raise SpecFormatError(
            f"spec: format version {version} is newer than this augexplorer understands "
            f"(up to {VERSION}); upgrade augexplorer to open it"
        )
    if nesting_depth(data, MAX_DEPTH) > MAX_DEPTH:
        raise SpecFormatError(_too_deep())
    graph = _convert(data, GraphJSON, "")
    nodes = tuple(_node(index, item) for index, item in enumerate(graph.nodes))
    outputs = {
        name: _ref(_convert(ref, RefText, f"outputs.{name}"), f"outputs.{name}")
        for name, ref in graph.outputs.items()
    }
    return GraphSpec(
        nodes=nodes,
        outputs=outputs,
        batch_size=graph.batch_size,
        seed=graph.seed,
        name=graph.name,
        epochs=graph.epochs,
        schedules={
            _schedule_target(key): _schedule(value, f"schedules.{key}")
            for key, value in graph.schedules.items()
        },
        not_ported=tuple(_not_ported(item) for item in graph.not_ported),
    )


def _not_ported(item: NotPortedJSON) -> NotPorted:
    return NotPorted(
        library=item.library, transform=item.transform, reason=item.reason, line=item.line
    )


def _schedule_target(text: str) -> ScheduleTarget:
    try:
        return ScheduleTarget.parse(text)
    except ValueError as error:
        raise SpecFormatError(f"schedules: {error}") from None


def _schedule(value: Any, where: str) -> Schedule:
    data = _convert(value, ScheduleJSON, where)
    return Schedule(
        curve=data.curve,
        start=data.start,
        end=data.end,
        begin=data.begin,
        finish=data.finish,
        points=tuple(sorted((int(e), float(v)) for e, v in data.points)),
    )


def _node(index: int, data: dict[str, Any]) -> AnyNode:
    where = f"nodes[{index}]"
    if isinstance(data.get("id"), str):
        where += f" (node {data['id']!r})"
    if "source" in data:
        source = _convert(data, SourceJSON, where)
        return Source(
            id=source.id,
            kind=source.source,
            path=source.path,
            shuffle=source.shuffle,
            seed=source.seed,
            skip_bad=source.skip_bad,
            file_root=source.file_root,
            reader_args={
                name: _arg_value(value, f"{where}.reader_args.{name}")
                for name, value in source.reader_args.items()
            },
            keypoints=source.keypoints,
        )
    node = _convert(data, NodeJSON, where)
    if node.op == CONSTANT:  # a constant array: its arguments have a schema of their own
        _convert(node.args, ConstantArgsJSON, f"{where}.args")
    probability = node.probability
    return Node(
        id=node.id,
        op=node.op,
        inputs=tuple(_ref(ref, f"{where}.inputs[{i}]") for i, ref in enumerate(node.inputs)),
        args={name: _arg_value(value, f"{where}.args.{name}") for name, value in node.args.items()},
        device=node.device,
        probability=probability and Probability(p=probability.p, seed=probability.seed),
        seed=node.seed,
        when=tuple(
            Clause(_ref(clause.ref, f"{where}.when[{i}].ref"), clause.holds)
            for i, clause in enumerate(node.when)
        ),
        origin=node.origin and _origin(node.origin),
    )


def _origin(origin: OriginJSON) -> Origin:
    return Origin(
        library=origin.library,
        transform=origin.transform,
        fidelity=origin.fidelity,
        line=origin.line,
        differences=tuple(origin.differences),
        edited=tuple(origin.edited),
    )


def _ref(text: str, where: str) -> Ref:
    try:
        return Ref.parse(text)
    except ValueError as error:
        raise SpecFormatError(f"{where}: {error}") from None


def _arg_value(value: Any, where: str) -> Any:
    """An argument's value: a constant, or an object that says what else it is."""
    if isinstance(value, dict):
        if "ref" in value:
            return _ref(_convert(value, RefJSON, where).ref, f"{where}.ref")
        if "float" in value:
            return float(_convert(value, FloatJSON, where).float)
        if "random" in value:
            return _random(_convert(value, RandomJSON, where))
        if "python" in value:
            code = _convert(value, PythonJSON, where)  # kept as text: nothing here runs it
            return PythonCode(source=code.python, name=code.name)
        keys = ", ".join(map(repr, list(value)[:5])) or "none"
        raise SpecFormatError(
            f"{where}: an argument object must be {{'ref': node}}, {{'random': distribution, "
            f"...}}, {{'python': source, 'name': function}} or {{'float': 'nan'}}; "
            f"this one has keys {keys}"
        )
    if isinstance(value, list):
        return [_arg_value(item, f"{where}[{i}]") for i, item in enumerate(value)]
    if isinstance(value, int) and not isinstance(value, bool) and not INT_MIN <= value <= INT_MAX:
        raise SpecFormatError(
            f"{where}: the integer {_short(value)} is out of range; DALI holds 64-bit integers"
        )
    if isinstance(value, str) and len(value) > MAX_TEXT:
        raise SpecFormatError(f"{where}: text of {len(value):,} characters (at most {MAX_TEXT:,})")
    return value


def _random(draw: UniformJSON | NormalJSON | CoinFlipJSON | ChoiceJSON) -> Random:
    shape, seed = draw.shape, draw.seed
    if isinstance(draw, UniformJSON):
        return Random("uniform", low=draw.low, high=draw.high, shape=shape, seed=seed)
    if isinstance(draw, NormalJSON):
        return Random("normal", mean=draw.mean, stddev=draw.stddev, shape=shape, seed=seed)
    if isinstance(draw, CoinFlipJSON):
        return Random("coin_flip", probability=draw.probability, shape=shape, seed=seed)
    return Random("choice", values=tuple(draw.values), p=tuple(draw.p), shape=shape, seed=seed)


def _convert(data: Any, kind: Any, where: str) -> Any:
    """`data` as the schema type `kind`, or a SpecFormatError naming the field."""
    try:
        return msgspec.convert(data, kind, strict=True)
    except msgspec.ValidationError as error:
        raise SpecFormatError(explain(error, data, kind, where)) from None


def _syntax_error(text: str | bytes, error: msgspec.DecodeError) -> str:
    # Python's own parser says where (line and column), which msgspec does not for a cut file.
    try:
        json.loads(text)
    except json.JSONDecodeError as located:
        return f"not valid JSON (line {located.lineno}, column {located.colno}): {located.msg}"
    except (ValueError, RecursionError):
        pass
    lone = _LONE_ESCAPE.search(text) if isinstance(text, str) else None
    if lone is not None:  # Python reads it; msgspec (rightly) does not
        line, column = _place(str(lone.string[: lone.start()]))
        return (
            f"line {line}, column {column}: the escape {lone.group()} is half of a UTF-16 "
            "surrogate pair, not a character; remove it or write both halves"
        )
    return f"not valid JSON: {error}"


class _OutOfRange(str):
    """A number, as written, that no float64 or 64-bit integer holds."""


def _number_out_of_range(text: str | bytes) -> str:
    """Where the first out-of-range number stands, found by a second, forgiving parse."""

    def number(written: str) -> Any:
        value = float(written) if len(written) < 400 else math.inf
        return value if math.isfinite(value) else _OutOfRange(written)

    why = "is out of range; DALI holds 64-bit integers and finite float64 numbers"
    try:
        data = json.loads(text, parse_int=number, parse_float=number)
    except (ValueError, RecursionError):
        return f"a number {why}"
    stack: list[tuple[str, Any]] = [("", data)]
    while stack:
        where, value = stack.pop()
        if isinstance(value, _OutOfRange):
            shown = value if len(value) < 24 else f"{value[:12]}... ({len(value)} characters)"
            return f"{where.lstrip('.') or 'spec'}: the number {shown} {why}"
        if isinstance(value, dict):
            named = f"{where} (node {value['id']!r})" if isinstance(value.get("id"), str) else where
            stack += [(f"{named}.{key}", item) for key, item in reversed(value.items())]
        elif isinstance(value, list):
            stack += [(f"{where}[{i}]", item) for i, item in reversed(list(enumerate(value)))]
    return f"a number {why}"


def _too_deep() -> str:
    return (
        f"the JSON is nested more than {MAX_DEPTH} levels deep; a graph spec needs fewer than "
        "ten (is this a graph spec?)"
    )


def save(spec: GraphSpec, path: str | Path, *, overwrite: bool = False) -> Path:
    from ..files import atomic_write_text

    return atomic_write_text(Path(path), dumps(spec), overwrite=overwrite)


def _kind(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "text", bool: "true or false"}.get(
        type(value), type(value).__name__
    )


def _short(value: int) -> str:
    text = str(value) if value.bit_length() < 200 else f"of {len(hex(value)) * 4 // 3} digits"
    return text if len(text) < 40 else text[:20] + "..."
