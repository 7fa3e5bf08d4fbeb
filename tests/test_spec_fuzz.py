"""Specs generated from the schema and mutated presets: every one either loads or raises the
project's own error naming a field; every one that validates exports to a module that compiles,
calls nothing that is not ours, and carries a graph that reads back equal.

Runs thousands of specs, seeded (derandomized), so a CI run checks the same ones every time.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from exported_checks import check_module
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from augexplorer import PRESETS, GraphSpec, SpecFormatError, preset
from augexplorer.errors import AugExplorerError
from augexplorer.export import generate
from augexplorer.spec import dumps, from_json, loads, to_json

FIELD_NAMES = [
    "format", "version", "name", "batch_size", "seed", "nodes", "outputs", "id", "op",
    "inputs", "args", "device", "probability", "source", "path", "shuffle", "skip_bad", "ref",
    "random", "low", "high", "mean", "stddev", "values", "p", "shape", "python", "float", "p",
]  # fmt: skip
REF_TEXTS = ["decode", "source:1", "rotate:xyz", "rotate:-1", "flip:", ":0", "crop:7", "x\n"]
OPS = [
    "rotate",
    "flip",
    "resize",
    "crop",
    "hsv",
    "warp_affine",
    "transforms.rotation",
    "dump_image",
]

leaves = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False, width=64),
    st.text(max_size=10),
    st.sampled_from(REF_TEXTS + OPS + ["cpu", "gpu", "uniform", "choice", "samples", "folder"]),
)
json_values = st.recursive(
    leaves,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.sampled_from(FIELD_NAMES) | st.text(max_size=5), inner, max_size=4),
    ),
    max_leaves=10,
)
draws = st.one_of(
    st.fixed_dictionaries(
        {"random": st.just("uniform"), "low": st.floats(-90, 90), "high": st.floats(-90, 90)}
    ),
    st.fixed_dictionaries(
        {"random": st.just("normal"), "mean": st.floats(-5, 5), "stddev": st.floats(-1, 5)}
    ),
    st.fixed_dictionaries(
        {"random": st.just("coin_flip"), "probability": st.floats(-0.5, 1.5)},
        optional={"seed": st.integers(-2, 2**64)},
    ),
    st.fixed_dictionaries(
        {"random": st.just("choice"), "values": st.lists(st.integers(-3, 3), max_size=4)},
        optional={"p": st.lists(st.floats(-0.5, 1.0), max_size=4), "shape": st.integers(-1, 3)},
    ),
)


def paths(data: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in a JSON tree, as a tuple of keys and indices."""
    found = [prefix]
    if isinstance(data, dict):
        for key, value in data.items():
            found += paths(value, (*prefix, key))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            found += paths(value, (*prefix, index))
    return found


def parent_of(data: Any, path: tuple[Any, ...]) -> Any:
    for step in path[:-1]:
        data = data[step]
    return data


@st.composite
def mutated_specs(draw: st.DrawFn) -> dict[str, Any]:
    data = copy.deepcopy(to_json(preset(draw(st.sampled_from(sorted(PRESETS))))))
    for _ in range(draw(st.integers(1, 3))):
        places = [p for p in paths(data) if p]
        path = draw(st.sampled_from(places))
        parent, key = parent_of(data, path), path[-1]
        action = draw(st.sampled_from(["value", "draw", "ref", "delete", "extra", "op", "copy"]))
        if action == "value":
            parent[key] = draw(json_values)
        elif action == "draw":
            parent[key] = draw(draws)
        elif action == "ref":
            parent[key] = draw(st.sampled_from(REF_TEXTS))
        elif action == "delete" and isinstance(parent, dict):
            del parent[key]
        elif action == "delete" and isinstance(parent, list):
            parent.pop(key)
        elif action == "extra" and isinstance(parent, dict):
            parent[draw(st.sampled_from(FIELD_NAMES))] = draw(json_values)
        nodes = data.get("nodes")
        nodes = [n for n in nodes if isinstance(n, dict)] if isinstance(nodes, list) else []
        if action == "op" and nodes:
            draw(st.sampled_from(nodes))["op"] = draw(st.sampled_from(OPS))
        elif action == "copy" and nodes:
            data["nodes"].append(copy.deepcopy(draw(st.sampled_from(nodes))))
    return data


@st.composite
def tuned_specs(draw: st.DrawFn) -> dict[str, Any]:
    """Presets with the edits a user makes: arguments made random or changed, probabilities,
    seeds, batch sizes; mostly valid, so that thousands of graphs reach the exporter."""
    data = copy.deepcopy(to_json(preset(draw(st.sampled_from(sorted(PRESETS))))))
    operators = [n for n in data["nodes"] if "op" in n]
    for _ in range(draw(st.integers(1, 4))):
        node = draw(st.sampled_from(operators))
        tweak = draw(st.sampled_from(["arg", "arg", "probability", "seed", "batch", "device"]))
        if tweak == "arg" and node.get("args"):
            name = draw(st.sampled_from(sorted(node["args"])))
            node["args"][name] = draw(st.one_of(draws, st.floats(-400, 400), st.integers(-5, 500)))
        elif tweak == "probability":
            node["probability"] = {"p": draw(st.floats(-0.2, 1.2))}
        elif tweak == "seed":
            node["seed"] = draw(st.integers(-1, 2**64))
        elif tweak == "batch":
            data["batch_size"] = draw(st.integers(-1, 5000))
        elif tweak == "device":
            node["device"] = draw(st.sampled_from(["cpu", "gpu", "mixed"]))
    return data


def check(data: dict[str, Any]) -> None:
    try:
        spec = from_json(data)
    except SpecFormatError as error:
        message = str(error)
        assert ": " in message and "Traceback" not in message, message  # names the field
        with_text = json.dumps(data)
        try:
            loads(with_text)
        except SpecFormatError as again:
            assert str(again) == message  # text and objects are checked the same way
        else:
            raise AssertionError(f"accepted as text, refused as an object: {message}")
        event("refused when loaded")
        return
    try:
        source = generate(spec, formatted=False)
    except AugExplorerError:
        event("refused by validation")
        return  # refused with the project's own error, naming the node
    compile(source, "<export>", "exec")
    check_module(source, spec)
    event("exported")


SETTINGS = settings(
    max_examples=2000,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@SETTINGS
@given(st.one_of(mutated_specs(), tuned_specs()))
def test_mutated_presets_load_or_say_which_field_and_export_safely(data: dict[str, Any]) -> None:
    check(data)


@settings(SETTINGS, max_examples=300)
@given(json_values)
def test_any_json_is_refused_with_our_error_or_is_a_graph(data: Any) -> None:
    if isinstance(data, dict):
        data = {**data, "format": "augexplorer.graph", "version": 1}
    try:
        spec = from_json(data)
    except SpecFormatError as error:
        assert ": " in str(error)
    else:
        assert isinstance(spec, GraphSpec)


# Text that is not plain JSON numbers and characters: halves of surrogate pairs (as characters
# and as escapes), byte-order marks, integers past 64 bits and past Python's 4,300-digit limit,
# bytes that are not UTF-8.
ODD_TEXT = [
    "\ud800", "\udfff", "\\ud83d", "\\ude00", "\ufeff", "\x00", "\u2028", "9" * 30, "9" * 5000,
    "-" + "1" * 400, "1e999", "\\u0000",
]  # fmt: skip
ODD_BYTES = [b"\xff", b"\xed\xa0\x80", b"\xc3", b"\xef\xbb\xbf", b"\xfe\xff"]


@st.composite
def odd_texts(draw: st.DrawFn) -> str | bytes:
    """A preset's spec text with odd text put in at a few places, as str or as bytes."""
    text = dumps(preset(draw(st.sampled_from(sorted(PRESETS)))))
    for _ in range(draw(st.integers(1, 3))):
        at = draw(st.integers(0, len(text)))
        text = text[:at] + draw(st.sampled_from(ODD_TEXT)) + text[at:]
    if not draw(st.booleans()):
        return text
    data = text.encode("utf-8", "surrogatepass")
    at = draw(st.integers(0, len(data)))
    return data[:at] + draw(st.sampled_from(ODD_BYTES)) + data[at:]


@settings(SETTINGS, max_examples=300)
@given(odd_texts())
def test_odd_text_in_a_spec_loads_or_is_refused_with_our_error(text: str | bytes) -> None:
    try:
        spec = loads(text)
    except SpecFormatError as error:
        message = str(error)
        assert message and "Traceback" not in message and len(message) < 2000, message
        event("refused")
        return
    event("loaded")
    check(to_json(spec))  # what loads must also validate and export, or be refused by us
