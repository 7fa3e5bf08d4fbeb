"""Expression and constant nodes: checked at the edge, run by the live engine like any node,
written back in the user's notation, and refused in the user's terms where a construct is not
supported. The import round trip of pipelines using them is in test_import_corpus (its corpus
includes pipelines_expressions)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from test_import_corpus import _refusal

from augexplorer import Session
from augexplorer.errors import GraphInvalid, SpecFormatError
from augexplorer.export.codegen import ExportError, generate
from augexplorer.expressions.nodes import constant, display_text, expression
from augexplorer.expressions.syntax import MAX_DEPTH, MAX_PARTS, MAX_TEXT
from augexplorer.spec import GraphSpec, Node, Probability, Ref, Source
from augexplorer.spec.io import dumps, loads
from augexplorer.validate import validate


def graph(*extra: Node, outputs: dict[str, Ref] | None = None) -> GraphSpec:
    """Small decoded images (`small`, uint8 24x32x3) and their mirror (`flipped`), then `extra`."""
    nodes = (
        Source("source", "samples", shuffle=False),
        Node("decode", "decoders.image", (Ref("source"),)),
        Node("small", "resize", (Ref("decode"),), {"resize_x": 32.0, "resize_y": 24.0}),
        Node("flipped", "flip", (Ref("small"),)),
        *extra,
    )
    wanted = outputs or {"images": Ref(extra[-1].id), "labels": Ref("source", 1)}
    return GraphSpec(nodes, outputs=wanted, batch_size=3)


def problems(spec: GraphSpec) -> list[str]:
    with pytest.raises(GraphInvalid) as invalid:
        validate(spec)
    return [str(problem) for problem in invalid.value.problems]


# ---- the live engine ----------------------------------------------------------------------------


def test_an_expression_computes_what_numpy_computes_and_reruns_alone() -> None:
    session = Session(graph(expression("blend", "0.7 * small + 0.3 * flipped")), device_id=None)
    result = session.run()
    small, flipped = result.arrays(Ref("small")), result.arrays(Ref("flipped"))
    for got, a, b in zip(result.arrays(Ref("blend")), small, flipped, strict=True):
        want = np.float32(0.7) * a.astype(np.float32) + np.float32(0.3) * b.astype(np.float32)
        assert got.dtype == np.float32
        np.testing.assert_allclose(got, want, rtol=1e-6)
    # its numbers are arguments: an edit re-runs the expression only
    edited = session.set_arg("blend", "c0", 0.5)
    assert edited.ran() == ["blend"]
    assert display_text(session.spec.node("blend")) == "0.5 * small + 0.3 * flipped"  # type: ignore[arg-type]
    for got, a, b in zip(edited.arrays(Ref("blend")), small, flipped, strict=True):
        want = np.float32(0.5) * a.astype(np.float32) + np.float32(0.3) * b.astype(np.float32)
        np.testing.assert_allclose(got, want, rtol=1e-6)


def test_an_expression_feeds_an_argument_and_keeps_the_draws() -> None:
    spec = graph(
        Node("draw", "random.uniform", args={"range": [-10.0, 10.0]}, seed=3),
        expression("angle", "draw * 2"),
        Node("rotated", "rotate", (Ref("small"),), {"angle": Ref("angle"), "fill_value": 0.0}),
    )
    session = Session(spec, device_id=None)
    first = session.run()
    draws = np.array([x.item() for x in first.arrays(Ref("draw"))], np.float32)
    # float32 times the int32 number: float32, as numpy computes it too
    np.testing.assert_array_equal(np.hstack(first.arrays(Ref("angle"))), draws * np.float32(2))
    edited = session.set_arg("angle", "c0", 3)
    assert edited.ran() == ["angle", "rotated"]  # the draw is not made again
    np.testing.assert_array_equal(np.hstack(edited.arrays(Ref("angle"))), draws * np.float32(3))


def test_shapes_subscripts_and_constants_run_and_export_in_plain_dali() -> None:
    spec = graph(
        constant("size", np.array([20.0, 16.0], np.float32)),
        Node("resized", "resize", (Ref("small"),), {"size": Ref("size")}),
        expression("half", "small.shape()[1::-1] * 0.5"),
        expression("red", "small[:, :, 0]"),
        expression("inside", "(small > 128) & ~(flipped == 0)"),
        outputs={"images": Ref("resized"), "half": Ref("half"), "red": Ref("red")},
    )
    result = Session(spec, device_id=None).run()
    assert all(a.shape == (20, 16, 3) for a in result.arrays(Ref("resized")))
    np.testing.assert_array_equal(result.arrays(Ref("half"))[0], [16.0, 12.0])
    small = result.arrays(Ref("small"))[0]
    np.testing.assert_array_equal(result.arrays(Ref("red"))[0], small[:, :, 0])
    flipped = result.arrays(Ref("flipped"))[0]
    np.testing.assert_array_equal(result.arrays(Ref("inside"))[0], (small > 128) & ~(flipped == 0))
    source = generate(spec, formatted=False)
    body = source[source.index("def augmentation_pipeline") :]
    assert "half = small.shape()[1::-1] * 0.5" in body
    assert "red = small[:, :, 0]" in body
    assert "inside = (small > 128) & ~(flipped == 0)" in body
    assert "size = types.Constant([20.0, 16.0], dtype=types.DALIDataType.FLOAT, shape=[2])" in body
    for internal in ("Arithmetic", "_tensor_subscript", "_shape", "math."):
        assert internal not in body


def test_math_functions_compute_what_numpy_computes_and_export_as_dali_math() -> None:
    spec = graph(
        Node("values", "cast", (Ref("small"),), {"dtype": "FLOAT"}),
        expression("clamped", "math.clamp(small * 2, 0, 255)"),
        expression("waves", "math.sqrt(values) + math.sin(values * 0.5)"),
        expression("darker", "math.min(small, math.max(flipped, 10)) >> 1"),
        outputs={"a": Ref("clamped"), "b": Ref("waves"), "c": Ref("darker")},
    )
    session = Session(spec, device_id=None)
    result = session.run()
    small = [x.astype(np.int32) for x in result.arrays(Ref("small"))]
    flipped = [x.astype(np.int32) for x in result.arrays(Ref("flipped"))]
    values = result.arrays(Ref("values"))
    for got, want in zip(result.arrays(Ref("clamped")), small, strict=True):
        assert got.dtype == np.int32  # uint8 times DALI's int32 2, as the same DALI code gives
        np.testing.assert_array_equal(got, np.clip(want * 2, 0, 255))
    for got, want in zip(result.arrays(Ref("waves")), values, strict=True):
        assert got.dtype == np.float32
        np.testing.assert_allclose(got, np.sqrt(want) + np.sin(want * 0.5), rtol=1e-5)
    for got, a, b in zip(result.arrays(Ref("darker")), small, flipped, strict=True):
        np.testing.assert_array_equal(got, np.minimum(a, np.maximum(b, 10)) >> 1)
    # the bounds are the node's numbers: editable, and an edit re-runs that node alone
    edited = session.set_arg("clamped", "c2", 100)
    assert edited.ran() == ["clamped"]
    assert display_text(session.spec.node("clamped")) == "math.clamp(small * 2, 0, 100)"  # type: ignore[arg-type]
    for got, want in zip(edited.arrays(Ref("clamped")), small, strict=True):
        np.testing.assert_array_equal(got, np.clip(want * 2, 0, 100))
    source = generate(session.spec, formatted=False)
    assert "from nvidia.dali import fn, math, pipeline_def, types\n" in source
    body = source[source.index("def augmentation_pipeline") :]
    assert "clamped = math.clamp(small * 2, 0, 100)" in body
    assert "darker = math.min(small, math.max(flipped, 10)) >> 1" in body


def test_only_a_graph_calling_math_imports_it() -> None:
    source = generate(graph(expression("blend", "0.5 * small + 0.5 * flipped")))
    assert "from nvidia.dali import fn, pipeline_def, types\n" in source


def test_the_math_functions_are_dalis() -> None:
    import inspect

    from nvidia.dali import math as dali_math

    from augexplorer.expressions.syntax import MATH_FUNCTIONS

    functions = {
        name: len(inspect.signature(function).parameters)
        for name, function in vars(dali_math).items()
        if inspect.isfunction(function) and not name.startswith("_")
    }
    assert functions == MATH_FUNCTIONS


def test_an_input_indexes_per_sample() -> None:
    spec = graph(
        Node("channel", "random.uniform", args={"range": [0.0, 2.0], "dtype": "INT32"}, seed=5),
        Node("top", "random.uniform", args={"range": [0.0, 10.0], "dtype": "INT32"}, seed=6),
        expression("plane", "small[:, :, channel]"),
        expression("band", "small[top:, ::2]"),
        outputs={"plane": Ref("plane"), "band": Ref("band")},
    )
    result = Session(spec, device_id=None).run()
    channels = [int(x) for x in result.arrays(Ref("channel"))]
    tops = [int(x) for x in result.arrays(Ref("top"))]
    assert len(set(channels)) > 1 or len(set(tops)) > 1  # the indices differ between samples
    for index, image in enumerate(result.arrays(Ref("small"))):
        plane = result.arrays(Ref("plane"))[index]
        np.testing.assert_array_equal(plane, image[:, :, channels[index]])
        np.testing.assert_array_equal(result.arrays(Ref("band"))[index], image[tops[index] :, ::2])
    body = generate(spec, formatted=False)
    assert "plane = small[:, :, channel]" in body and "band = small[top:, ::2]" in body


def test_an_index_on_the_gpu_is_refused_with_the_fix() -> None:
    # also on a machine without a GPU, where "moved" would run on the CPU: the graph as written
    spec = graph(
        Node("channel", "random.uniform", args={"range": [0.0, 2.0], "dtype": "INT32"}, seed=5),
        Node("moved", "copy", (Ref("channel"),), device="gpu"),
        expression("plane", "small[:, :, moved]"),
    )
    found = "\n".join(problems(spec))
    assert (
        "node 'plane', argument 'expression': the index 'moved' is on the GPU; DALI reads a "
        "per-sample index on the CPU (fix: compute 'moved' on the CPU" in found
    )


def test_the_text_follows_its_inputs_through_edits() -> None:
    spec = graph(expression("blend", "0.7*small + 0.3 * flipped"))
    renamed = spec.rename("small", "base")
    node = renamed.node("blend")
    assert isinstance(node, Node)
    assert node.args["expression"] == "0.7*base + 0.3 * flipped"  # the user's spacing stays
    validate(renamed)


def test_an_expression_applied_with_a_probability_passes_the_rest_through() -> None:
    spec = graph(
        Node("values", "cast", (Ref("small"),), {"dtype": "FLOAT"}),
        expression("inverted", "255.0 - values"),
    ).set_probability("inverted", Probability(0.5, seed=4))
    result = Session(spec, device_id=None).run()
    values = result.arrays(Ref("values"))
    flips = [bool(x) for x in result.arrays(Ref("inverted_apply"))]
    for got, original, flipped in zip(result.arrays(Ref("inverted")), values, flips, strict=True):
        np.testing.assert_array_equal(got, 255.0 - original if flipped else original)
    assert "if inverted_apply:" in generate(spec, formatted=False)


# ---- the spec --------------------------------------------------------------------------------


def test_expression_and_constant_nodes_survive_json() -> None:
    spec = graph(
        constant("table", np.arange(6, dtype=np.uint8).reshape(2, 3), layout="HW"),
        expression("blend", "0.7 * small + 0.3 * flipped").with_arg("c1", 0.25),
    )
    assert loads(dumps(spec)) == spec
    table = loads(dumps(spec)).node("table")
    assert isinstance(table, Node)
    assert table.args == {
        "values": [0, 1, 2, 3, 4, 5],
        "dtype": "UINT8",
        "shape": [2, 3],
        "layout": "HW",
    }


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"values": [1.0, "x"]}, "args.values[1]: expected"),
        ({"values": [1.0], "dtype": "FLOAT32"}, "args.dtype: unknown value"),
        ({"values": [1.0], "shape": [-1]}, "args.shape[0]"),
        ({"values": [1.0], "colour": 3}, "args: unknown field 'colour'"),
        ({"dtype": "FLOAT"}, "args: "),
    ],
)
def test_constant_json_errors_name_the_field(args: dict[str, object], expected: str) -> None:
    data = json.loads(dumps(graph(constant("table", [1.0]))))
    data["nodes"][-1]["args"] = args
    with pytest.raises(SpecFormatError) as error:
        loads(json.dumps(data))
    assert "nodes[4] (node 'table')." + expected in str(error.value), str(error.value)


# ---- validation ------------------------------------------------------------------------------

BAD_EXPRESSIONS = {
    "unknown name": ("small + other", "reads 'other', but the node has 1 input(s)", "connect"),
    "a call": ("__import__('os')", "`__import__('os')` is not allowed", "names of the node's"),
    "an attribute": ("small.dtype", "`small.dtype` is not allowed", ".shape()"),
    "a lambda": ("(lambda: small)()", "is not allowed", "unary minus"),
    "and": ("small and flipped", "`and`, `or` and `not`", "use & | ~"),
    "a chain": ("0 < small < 9", "chained comparison", "(a < b) & (b < c)"),
    "numbers only": ("small + 2 * 3", "`*` between numbers only", "one number"),
    "a fraction index": ("small[0.5]", "the index `0.5` is neither a whole number", "x[1::-1]"),
    "an index to compute": ("small[small + 1]", "neither a whole number nor an input", "own"),
    "an unknown math function": ("math.hypot(small, small)", "has no function 'hypot'", "clamp"),
    "math arguments": ("math.clamp(small, 0)", "takes 3 argument(s), got 2", "math.clamp(x, y, z)"),
    "named math arguments": ("math.max(small, right=1)", "without names", "math.max(x, y)"),
    "math of numbers": ("small + math.sqrt(2)", "math.sqrt of numbers only", "one number"),
    "math as an input": ("math * 2", "`math` is DALI's nvidia.dali.math", "name the input"),
    "shifts of numbers": ("small + (1 << 3)", "`<<` between numbers only", "one number"),
    "int32": ("small * 3000000000", "does not fit in int32", "as a float"),
    "syntax": ("small +", "not valid Python", "brackets"),
    "too long": ("small" + " + small" * MAX_TEXT, "characters (at most", "split it"),
    "too large": ("small" + "+1" * (MAX_PARTS // 2 + 1), "too large", "split it"),
    "too deep": ("~" * (MAX_DEPTH + 1) + "small", "levels of nesting", "split it"),
    "empty": ("  ", "is empty", "write one"),
}


@pytest.mark.parametrize("case", list(BAD_EXPRESSIONS))
def test_bad_expressions_name_the_node_the_problem_and_the_fix(case: str) -> None:
    text, message, fix = BAD_EXPRESSIONS[case]
    node = Node("mixed", "expression", (Ref("small"),), {"expression": text})
    found = problems(graph(node))
    assert len(found) == 1, found
    assert found[0].startswith("node 'mixed', argument 'expression': "), found
    assert message in found[0] and fix in found[0].split("(fix: ", 1)[1], found


def test_expression_inputs_and_numbers_are_checked() -> None:
    found = problems(
        graph(
            Node("swapped", "expression", (Ref("flipped"),), {"expression": "small * 2"}),
            Node(
                "extra",
                "expression",
                (Ref("small"), Ref("flipped")),
                {"expression": "small * 2", "c0": "two", "c3": 1.0},
            ),
        )
    )
    text = "\n".join(found)
    assert (
        "node 'swapped', argument 'expression': the expression names 'small' where its input 0 reads 'flipped'"
        in text
    )
    assert "node 'extra', argument 'expression': input 1 ('flipped') is not used" in text
    assert (
        "node 'extra', argument 'c0': expected a number, got str 'two' (fix: give a number, e.g. 2)"
        in text
    )
    assert (
        "node 'extra', argument 'c3': an expression has no argument 'c3' (fix: edit its numbers as c0..c0 (c0))"
        in text
    )


def test_constants_are_checked() -> None:
    found = problems(
        graph(
            constant("shaped", [1.0, 2.0, 3.0], shape=[2, 2]),
            constant("bytes", [1, 300], dtype="UINT8"),
            constant("typed", [1.0], dtype="COMPLEX"),
            Node("fed", "constant", (Ref("small"),), {"values": [True], "dtype": "BOOL"}),
            Node("drawn", "constant", args={"values": [1.0]}, probability=Probability(0.5)),
        )
    )
    text = "\n".join(found)
    assert "node 'shaped', argument 'shape': shape [2, 2] holds 4 values, but there are 3" in text
    assert "node 'bytes', argument 'values': element 1: 300 does not fit in uint8 (0..255)" in text
    assert "node 'typed', argument 'dtype': 'COMPLEX' is not a type a constant can hold" in text
    assert "node 'fed': a constant reads no input (fix: remove its inputs)" in text
    assert "node 'drawn', argument 'probability': only a node with an input" in text


def test_an_invalid_expression_is_never_exported() -> None:
    node = Node("bad", "expression", (Ref("small"),), {"expression": "small.__class__"})
    with pytest.raises(ExportError) as error:
        generate(graph(node))
    assert "node 'bad', argument 'expression'" in str(error.value)


# ---- what import still refuses -------------------------------------------------------------

REFUSED = {
    "float64 number": (
        "images = images * types.Constant(0.5, dtype=types.FLOAT64)",
        ["a float64 number in arithmetic", "line 11", "plain Python number"],
    ),
    "shape on the GPU": (
        'images = fn.cast(images.gpu().shape(device="gpu"), dtype=types.FLOAT)',
        ["`.shape()` on the GPU", "line 11", "fn.cast"],
    ),
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_unsupported_constructs_are_refused_in_the_users_terms(tmp_path: Path, case: str) -> None:
    body, expected = REFUSED[case]
    message = _refusal(tmp_path, "from nvidia.dali import math as dmath\n" + body)
    for text in expected:
        assert text in message, f"{text!r} not in {message!r}"
