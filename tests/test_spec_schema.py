"""Specs are parsed against a schema: every malformed field gets one error with its path, numbers
and nesting are bounded, and references mean exactly what they say."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from augexplorer import GraphSpec, Node, Ref, Source, SpecFormatError, preset
from augexplorer.errors import AugExplorerError, GraphInvalid
from augexplorer.export import generate
from augexplorer.spec import from_json, load, loads, to_json
from augexplorer.spec.schema import MAX_DEPTH, MAX_NODES, SEED_MAX
from augexplorer.validate import validate


def basic_json() -> dict[str, Any]:
    return to_json(preset("basic"))


def node_json(data: dict[str, Any], node_id: str) -> dict[str, Any]:
    found: dict[str, Any] = next(n for n in data["nodes"] if n["id"] == node_id)
    return found


def index_of(data: dict[str, Any], node_id: str) -> int:
    return next(i for i, n in enumerate(data["nodes"]) if n["id"] == node_id)


def error_of(data: Any) -> str:
    with pytest.raises(SpecFormatError) as error:
        loads(json.dumps(data) if not isinstance(data, str) else data)
    return str(error.value)


def test_a_wrong_type_deep_inside_is_named_by_its_path() -> None:
    data = basic_json()
    node_json(data, "rotate")["args"]["angle"] = {"random": "uniform", "low": "abc", "high": 3}
    i = index_of(data, "rotate")
    assert error_of(data) == (
        f"nodes[{i}] (node 'rotate').args.angle.low: expected a number, got \"abc\""
    )


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (lambda d: d.update(seed="abc"), 'seed: expected an integer, got "abc"'),
        (lambda d: d.update(seed=-1), "seed: expected an integer >= 0, got -1"),
        (lambda d: d.update(seed=SEED_MAX + 1), f"seed: expected an integer <= {SEED_MAX}"),
        (lambda d: d.update(batch_size=0), "batch_size: expected an integer >= 1, got 0"),
        (lambda d: d.update(batch_size=True), "batch_size: expected an integer, got true"),
        (
            lambda d: d["nodes"][0].update(shuffle="false"),
            'shuffle: expected true or false, got "false"',
        ),
        (lambda d: d["nodes"][0].update(path=123), "path: expected text, got 123"),
        (lambda d: d["nodes"][0].update(seed=1.5), "seed: expected an integer, got 1.5"),
        (
            lambda d: d["nodes"][0].update(source="ftp"),
            "unknown source kind 'ftp'; use one of arrays, coco, file_list, folder, samples",
        ),
        (
            lambda d: node_json(d, "rotate").update(device="tpu"),
            "unknown device 'tpu'; use one of cpu, gpu, mixed",
        ),
        (
            lambda d: node_json(d, "rotate").update(probability={"p": "often"}),
            'probability.p: expected a number, got "often"',
        ),
        (
            lambda d: node_json(d, "rotate").update(probability={"p": 0.5, "when": 1}),
            "unknown field 'when'; allowed: p, seed",
        ),
        (
            lambda d: node_json(d, "rotate").update(inputs="decode"),
            'inputs: expected a list, got "decode"',
        ),
        (
            lambda d: node_json(d, "rotate").update(inputs=["decode:xyz"]),
            "inputs[0]: expected a node output such as 'decode' or 'reader:1', got \"decode:xyz\"",
        ),
        (
            lambda d: node_json(d, "rotate").update(inputs=["decode:-1"]),
            "inputs[0]: expected a node output",
        ),
        (lambda d: d.update(outputs={"images": "flip:"}), "outputs.images: expected a node output"),
        (
            lambda d: node_json(d, "rotate")["args"].update(angle={"ref": "x:y"}),
            "args.angle.ref: expected a node output",
        ),
        (
            lambda d: node_json(d, "rotate")["args"].update(angle={"random": "uniform", "mean": 1}),
            "args.angle: unknown field 'mean'; allowed: random, shape, seed, low, high",
        ),
        (
            lambda d: node_json(d, "rotate")["args"].update(angle={"random": "gauss"}),
            "args.angle.random: unknown distribution 'gauss'; use one of uniform, normal, coin_flip, choice",
        ),
        (
            lambda d: node_json(d, "rotate")["args"].update(
                angle={"random": "choice", "values": [1], "p": ["x"]}
            ),
            'args.angle.p[0]: expected a number, got "x"',
        ),
        (
            lambda d: node_json(d, "rotate")["args"].update(
                angle={"random": "uniform", "shape": 0}
            ),
            "args.angle.shape: expected an integer >= 1, got 0",
        ),
        (
            lambda d: node_json(d, "rotate")["args"].update(angle={"eval": "1"}),
            "args.angle: an argument object must be",
        ),
        (lambda d: node_json(d, "rotate")["args"].update(angle=10**400), "args.angle: the integer"),
        (
            lambda d: node_json(d, "rotate")["args"].update(angle=[1, [2, -(2**64)]]),
            "args.angle[1][1]: the integer",
        ),
        (lambda d: d["nodes"].append(7), "nodes[6]: expected an object, got 7"),
        (
            lambda d: d["nodes"][1].pop("op"),
            "nodes[1] (node 'decode'): missing the required field 'op'",
        ),
    ],
)
def test_each_malformed_field_gets_one_error_with_its_path(change: Any, expected: str) -> None:
    data = basic_json()
    change(data)
    assert expected in error_of(data)


def test_huge_numbers_in_the_text_are_refused_without_overflow() -> None:
    data = basic_json()
    node_json(data, "rotate")["args"]["angle"] = 12345.0
    text = json.dumps(data).replace("12345.0", "9" * 5000)
    message = error_of(text)
    assert "args.angle" in message and "out of range" in message
    float_text = json.dumps(data).replace("12345.0", "1e400")
    assert "out of range" in error_of(float_text)


def test_deep_nesting_is_refused_in_text_and_in_objects() -> None:
    text = '{"format": "augexplorer.graph", "version": 1, "nodes": ' + "[" * 100_000
    text += "]" * 100_000 + "}"
    assert "nested more than" in error_of(text)
    data = basic_json()
    deep: Any = 1
    for _ in range(1000):
        deep = {"python": deep}
    node_json(data, "rotate")["args"]["angle"] = deep
    with pytest.raises(SpecFormatError, match=f"nested more than {MAX_DEPTH} levels"):
        from_json(data)


def test_size_limits_refuse_quickly() -> None:
    data = basic_json()
    node = node_json(data, "rotate")
    data["nodes"] += [{**node, "id": f"r{i}"} for i in range(MAX_NODES)]
    started = time.perf_counter()
    message = error_of(data)
    assert f"at most {MAX_NODES} items" in message and message.startswith("nodes:")
    # a limit, not a slow path: decoding and refusing is about as quick as reading the text
    assert time.perf_counter() - started < 10


def test_a_long_chain_listed_in_reverse_order_validates_without_recursion() -> None:
    nodes: list[Source | Node] = [
        Source("source"),
        Node("decode", "decoders.image", (Ref("source"),), {"output_type": "RGB"}),
    ]
    for i in range(1500):
        nodes.append(Node(f"r{i}", "flip", (Ref(nodes[-1].id),), {"horizontal": 1}))
    spec = GraphSpec(tuple(reversed(nodes)), {"images": Ref("r1499")})
    plan = validate(loads(json.dumps(to_json(spec))))
    assert [s.id for s in plan.steps][:3] == ["source", "decode", "r0"]


def test_a_node_name_ending_in_a_newline_is_refused_and_export_terminates() -> None:
    spec = preset("basic").rename("flip", "flip\n")
    with pytest.raises(GraphInvalid, match="Python identifier"):
        validate(spec)
    with pytest.raises(AugExplorerError, match="Python identifier"):
        generate(spec, formatted=False)


def test_seeds_from_python_are_checked_too() -> None:
    spec = GraphSpec(preset("basic").nodes, preset("basic").outputs, seed="abc")  # type: ignore[arg-type]
    with pytest.raises(GraphInvalid, match="seed 'abc' is not a whole number"):
        validate(spec)


def test_a_spec_path_that_is_a_folder_is_named(tmp_path: Any) -> None:
    with pytest.raises(SpecFormatError, match="is a folder, not a spec file"):
        load(tmp_path)


def test_strings_that_are_not_refs_are_refused_by_ref_parse() -> None:
    assert Ref.parse("reader:1") == Ref("reader", 1)
    assert Ref.parse("decode") == Ref("decode", 0)
    # "\u0661" is a digit to str.isdigit, not an index anyone means
    for text in ("rotate:xyz", "rotate:-1", "rotate:", ":1", "rotate:1:2", "rotate:\u0661"):
        with pytest.raises(ValueError, match="is not a node output"):
            Ref.parse(text)
