"""Hostile specs never get code into an exported module: names are checked identifiers, values
are literals, and the module's calls are only the template's and catalog operators."""

from __future__ import annotations

import ast
import keyword

import pytest
from exported_checks import check_module
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from augexplorer import GraphSpec, Node, Probability, PythonCode, Random, Ref, Source
from augexplorer.errors import AugExplorerError
from augexplorer.export import generate
from augexplorer.presets import preset
from augexplorer.validate import RESERVED_IDS

HOSTILE_TEXT = st.one_of(
    st.text(max_size=40),
    st.sampled_from(
        [
            '"); import os; os.system("echo pwned"); ("',
            "'''\nimport os\n'''",
            '"""\nraise SystemExit\n"""',
            "\\",
            "x\ny = __import__('os')",
            "__import__",
            "{GRAPH}",
            "@@graph@@",
            "# noqa",
            "\x00\r\n\u2028",
        ]
    ),
)
# Python sources that try to end the string literal they are written into, or to run at once.
HOSTILE_SOURCE = st.one_of(
    HOSTILE_TEXT,
    st.sampled_from(
        [
            'def f(x):\n    return x\n"""\n__import__("os").system("echo pwned")\n"""',
            "')\nimport os\nos.system('echo pwned')\n#",
            '"),\n)\n}\nimport os\n{(\n("',
            "\\\n__import__('os')",
            "def f(x):\r    return x\r__import__('os')\r",
            "def f(x):\n    return x  # \u2028 __import__('os')\n",
        ]
    ),
)


def _not_blank(text: str) -> str:
    """Hostile text that is not blank (a blank path or source is refused before export)."""
    return text if text.strip() else f"x{text}"


# Node names that validate; some, like `files` or `print`, clash with the module's own names
# and the exporter must rename its variables for them.
VALID_IDS = st.one_of(
    st.from_regex(r"[a-z_][a-z0-9_]{0,12}", fullmatch=True),
    st.sampled_from(["files", "labels", "print", "source", "decode", "_", "match", "case"]),
).filter(lambda name: not keyword.iskeyword(name) and name not in RESERVED_IDS)
# Names validation refuses, and outright hostile text.
HOSTILE_IDS = st.one_of(st.sampled_from(sorted(RESERVED_IDS)), HOSTILE_TEXT)


@st.composite
def hostile_specs(draw: st.DrawFn) -> tuple[GraphSpec, bool]:
    """A graph with hostile text, and whether it is built to pass validation.

    About half are: their hostile text sits only where validation accepts any string (output
    names, the graph's name, the source's path, Python source), so the exporter must write them
    and the module's body is checked. The rest also put hostile text in node names and layouts.
    """
    valid = draw(st.booleans())
    if valid:
        ids = draw(st.lists(VALID_IDS, min_size=6, max_size=6, unique=True))
        layout = draw(st.sampled_from(["CHW", "HWC"]))
        high = draw(st.floats(-4, 50))
        name = draw(
            st.from_regex(r"[a-z_][a-z0-9_]{0,8}", fullmatch=True).filter(
                lambda n: not keyword.iskeyword(n)
            )
        )
    else:
        ids = draw(st.lists(st.one_of(VALID_IDS, HOSTILE_IDS), min_size=6, max_size=6))
        layout = draw(st.one_of(st.just("CHW"), HOSTILE_TEXT))
        high = draw(st.floats(-5, 50))
        name = draw(st.one_of(st.from_regex(r"[a-z_][a-z0-9_]{0,8}", fullmatch=True), HOSTILE_TEXT))
    source_kind = draw(st.sampled_from(["samples", "folder", "file_list"]))
    path = draw(HOSTILE_TEXT.map(_not_blank)) if source_kind != "samples" else None
    source = Source(ids[0], source_kind, path)
    nodes: tuple[Source | Node, ...] = (
        source,
        Node(ids[1], "decoders.image", (Ref(ids[0]),), {"output_type": "RGB"}),
        Node(
            ids[2],
            "rotate",
            (Ref(ids[1]),),
            {"angle": Random.uniform(-5, high)},
            probability=Probability(draw(st.floats(0, 1))),
        ),
        Node(ids[3], "resize", (Ref(ids[2]),), {"resize_x": 32.0, "resize_y": 32.0}),
        Node(ids[4], "crop_mirror_normalize", (Ref(ids[3]),), {"output_layout": layout}),
    )
    last = ids[4]
    if draw(st.booleans()):  # a python_function node with hostile code
        code = PythonCode(draw(HOSTILE_SOURCE.map(_not_blank)), name)
        last = ids[5]
        nodes = (*nodes, Node(last, "python_function", (Ref(ids[4]),), {"function": code}))
    outputs = {
        draw(HOSTILE_TEXT): Ref(last),
        draw(HOSTILE_TEXT): Ref(ids[0], 1),
    }
    return GraphSpec(nodes, outputs, batch_size=4, name=draw(HOSTILE_TEXT)), valid


def _export_or_refuse(spec: GraphSpec, formatted: bool = True) -> str | None:
    try:
        return generate(spec, formatted=formatted)
    except AugExplorerError:
        return None  # refused with one of our errors (invalid graph): nothing written


def check_hostile(case: tuple[GraphSpec, bool], formatted: bool = True) -> None:
    spec, built_valid = case
    source = _export_or_refuse(spec, formatted)
    if built_valid:
        # hostile text in strings validation accepts must still be exported, safely
        assert source is not None
    if source is not None:
        check_module(source, spec)


# Formatted: black on hostile literals (~0.15 s a graph). Black keeps a module's syntax tree as
# it was, so the calls checked are those of the unformatted module, which the sweep below checks
# by the thousand: a few dozen graphs here cover what black adds.
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hostile_specs())
def test_hostile_specs_export_only_expected_calls(case: tuple[GraphSpec, bool]) -> None:
    check_hostile(case)


@pytest.mark.slow
# A thousand graphs (~25 ms each): every fixed hostile text lands in each place it can go
# dozens of times, besides the random text.
@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hostile_specs())
def test_hostile_specs_thousands(case: tuple[GraphSpec, bool]) -> None:
    # black cannot change which calls a module makes: skip it to check thousands quickly
    check_hostile(case, formatted=False)


@st.composite
def python_specs(draw: st.DrawFn) -> GraphSpec:
    """A valid graph but for its python_function node's hostile source and function name."""
    name = draw(st.one_of(st.from_regex(r"[a-z_][a-z0-9_]{0,8}", fullmatch=True), HOSTILE_TEXT))
    code = PythonCode(draw(HOSTILE_SOURCE), name)
    node = Node("code", "python_function", args={"function": code})
    return preset("basic").insert_after("flip", node)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(python_specs())
def test_hostile_python_sources_export_only_expected_calls(spec: GraphSpec) -> None:
    code = spec.node("code").args["function"]
    source = _export_or_refuse(spec)
    exportable = code.name.isidentifier() and not keyword.iskeyword(code.name)
    assert (source is not None) == (exportable and bool(code.source.strip()))
    if source is not None:
        check_module(source, spec)


def test_a_hostile_spec_that_validates_is_exported_safely() -> None:
    """A concrete case that passes validation: strings with code land only in literals."""
    evil = '"); __import__("os").system("echo pwned"); ("'
    spec = GraphSpec(
        (
            Source("source", "folder", evil + "\n'''"),
            Node("decode", "decoders.image", (Ref("source"),), {}),
            Node("norm", "crop_mirror_normalize", (Ref("decode"),), {"output_layout": "CHW"}),
            Node("code", "python_function", (Ref("norm"),), {"function": PythonCode(evil, "f")}),
        ),
        {evil: Ref("code"), "labels\n# x": Ref("source", 1)},
        name=evil,
    )
    source = generate(spec)
    check_module(source, spec)
    assert "__import__" not in {
        n.id for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Name)
    }


def test_soft_keyword_node_names_export() -> None:
    """`_`, `match` and `case` are valid node names (soft keywords): found by the test above."""
    node = Node(
        "_", "python_function", args={"function": PythonCode("def f(x):\n    return x\n", "f")}
    )
    spec = (
        preset("basic").insert_after("flip", node).insert_after("_", Node("match", "flip", args={}))
    )
    source = generate(spec)
    check_module(source, spec)
    assert "node(s) '_'" in source
