"""Hostile specs never get code into an exported module: names are checked identifiers, values
are literals, and the module's calls are only the template's and catalog operators."""

from __future__ import annotations

import ast

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from augexplorer import GraphSpec, Node, Probability, Random, Ref, Source
from augexplorer.catalog import load_catalog
from augexplorer.errors import AugExplorerError
from augexplorer.export import generate
from augexplorer.export.importer import graph_literal

# Every call the template itself makes; anything else must be `fn.<catalog operator>`.
TEMPLATE_CALLS = {
    "sorted",
    "os.listdir",
    "os.path.isdir",
    "os.path.join",
    "os.path.isfile",
    "os.path.splitext",
    "os.path.dirname",
    "os.path.abspath",
    "enumerate",
    "files.append",
    "labels.append",
    "ValueError",
    "open",
    "line.split",
    "raw.strip",
    "line.startswith",
    "int",
    "min",
    "len",
    "rows.append",
    "read_folder",
    "read_file_list",
    "list",
    "range",
    "torch.tensor",
    "read_data",
    "pipeline_def",
    "super",
    "super().__init__",
    "super().__next__",
    "batch[LABELS].view(-1).long().cpu",
    "batch[LABELS].view(-1).long",
    "batch[LABELS].view",
    "self.label_table[index].to",
    "torch.cuda.is_available",
    "os.environ.get",
    "DALIGenericIterator",
    "LabelledIterator",
    "argparse.ArgumentParser",
    "parser.add_argument",
    "parser.parse_args",
    "make_loader",
    "time.perf_counter",
    "next",
    "print",
    "main",
    "name.startswith",
    "os.path.splitext(entry)[1].lower",
}

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
# Mostly valid identifiers (so the export succeeds and the body is exercised), some hostile.
NODE_IDS = st.one_of(
    st.from_regex(r"[a-z_][a-z0-9_]{0,12}", fullmatch=True),
    st.sampled_from(["files", "labels", "print", "fn", "torch", "os", "main", "make_loader"]),
    HOSTILE_TEXT,
)


@st.composite
def hostile_specs(draw: st.DrawFn) -> GraphSpec:
    ids = draw(st.lists(NODE_IDS, min_size=5, max_size=5))
    source_kind = draw(st.sampled_from(["samples", "folder", "file_list"]))
    source = Source(ids[0], source_kind, draw(st.one_of(st.none(), HOSTILE_TEXT)))
    layout = draw(st.one_of(st.just("CHW"), HOSTILE_TEXT))
    nodes = (
        source,
        Node(ids[1], "decoders.image", (Ref(ids[0]),), {"output_type": "RGB"}),
        Node(
            ids[2],
            "rotate",
            (Ref(ids[1]),),
            {"angle": Random.uniform(-5, draw(st.floats(-5, 50)))},
            probability=Probability(draw(st.floats(0, 1))),
        ),
        Node(ids[3], "resize", (Ref(ids[2]),), {"resize_x": 32.0, "resize_y": 32.0}),
        Node(ids[4], "crop_mirror_normalize", (Ref(ids[3]),), {"output_layout": layout}),
    )
    outputs = {
        draw(HOSTILE_TEXT): Ref(ids[4]),
        draw(HOSTILE_TEXT): Ref(ids[0], 1),
    }
    return GraphSpec(nodes, outputs, batch_size=4, name=draw(HOSTILE_TEXT))


def _call_name(call: ast.Call) -> str:
    return ast.unparse(call.func)


def check_module(source: str, spec: GraphSpec) -> None:
    tree = ast.parse(source)
    operators = set(load_catalog().names()) | {"readers.file", "external_source"}
    pipelines = [
        n.name for n in tree.body if isinstance(n, ast.FunctionDef) and n.name.endswith("_pipeline")
    ]
    assert len(pipelines) == 1
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = _call_name(node)
            if name.startswith("fn."):
                assert name[3:] in operators, name
            else:
                assert name in TEMPLATE_CALLS or name == pipelines[0], name
        # no statement kinds beyond what the template writes
        assert not isinstance(
            node,
            (ast.Lambda, ast.Global, ast.Nonlocal, ast.Delete, ast.Await, ast.AsyncFunctionDef),
        )
    defined = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    assert defined <= {
        "read_folder",
        "read_file_list",
        "read_data",
        "LabelledIterator",
        "ArrayBatches",
        "make_loader",
        "main",
        pipelines[0],
    }
    # the graph travels as a literal and comes back exactly
    assert graph_literal(source) == spec


def _export_or_refuse(spec: GraphSpec) -> str | None:
    try:
        return generate(spec)
    except AugExplorerError:
        return None  # refused with one of our errors (invalid graph): nothing written


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hostile_specs())
def test_hostile_specs_export_only_expected_calls(spec: GraphSpec) -> None:
    source = _export_or_refuse(spec)
    if source is not None:
        check_module(source, spec)


@pytest.mark.slow
@settings(max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hostile_specs())
def test_hostile_specs_thousands(spec: GraphSpec) -> None:
    source = _export_or_refuse(spec)
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
        ),
        {evil: Ref("norm"), "labels\n# x": Ref("source", 1)},
        name=evil,
    )
    source = generate(spec)
    check_module(source, spec)
    assert "__import__" not in {
        n.id for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Name)
    }
