"""python_function nodes: Python code travels with the graph as text and runs only once trusted.

The functions below are real functions of this module; the graphs carry their source
(:meth:`PythonCode.from_function`), and the hand-written DALI pipelines call them directly.
"""

from __future__ import annotations

import ast
import functools
import html
import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from augexplorer_widgets import Explorer
from augexplorer_widgets.state import Controller
from nvidia.dali import fn, pipeline_def, types

from augexplorer import GraphSpec, Node, Probability, PythonCode, Ref, Session, Source
from augexplorer import trust as trust_store
from augexplorer.builder import build_pipeline, resolve_fn
from augexplorer.catalog import Catalog, load_catalog
from augexplorer.data import open_source, samples_dir
from augexplorer.errors import GraphInvalid, RunError, SpecFormatError, UntrustedCode
from augexplorer.export import generate
from augexplorer.export.importer import graph_literal
from augexplorer.plan import Plan
from augexplorer.spec import io as spec_io
from augexplorer.validate import validate

BATCH = 6


def invert(image):  # type: ignore[no-untyped-def]
    return 255 - image


def split(image):  # type: ignore[no-untyped-def]
    gray = image.mean(axis=2, keepdims=True).astype(np.uint8)
    return gray, np.array([image.mean()], dtype=np.float32)


@pytest.fixture(autouse=True)
def trust_nothing() -> Iterator[None]:
    """Each test starts, and leaves, with no code trusted."""
    trust_store.forget_all()
    yield
    trust_store.forget_all()


def python_graph(probability: float | None = 0.5) -> GraphSpec:
    """Decode, resize, invert (a python_function applied with a probability), then a
    two-output python_function."""
    nodes = (
        Source("source", shuffle=False),
        Node("decode", "decoders.image", (Ref("source"),), {"output_type": "RGB"}),
        Node("small", "resize", (Ref("decode"),), {"resize_x": 48.0, "resize_y": 40.0}),
        Node(
            "invert",
            "python_function",
            (Ref("small"),),
            {"function": PythonCode.from_function(invert), "output_layouts": "HWC"},
            probability=None if probability is None else Probability(probability),
        ),
        Node(
            "split",
            "python_function",
            (Ref("invert"),),
            {"function": PythonCode.from_function(split), "num_outputs": 2},
        ),
    )
    outputs = {"images": Ref("split"), "mean": Ref("split", 1), "labels": Ref("source", 1)}
    return GraphSpec(nodes, outputs, batch_size=BATCH)


def arrays(result: Any, ref: Ref) -> list[np.ndarray]:
    return [np.asarray(a) for a in result.arrays(ref)]


# ---- catalog and spec ---------------------------------------------------------------------------
def test_catalog_lists_python_function(catalog: Catalog) -> None:
    info = catalog["python_function"]
    assert set(info.backends) == {"cpu", "gpu"} and info.available
    function = info.arg("function")
    assert function is not None and function.kind == "PYTHON_OBJECT" and function.required
    assert resolve_fn("python_function") is fn.python_function
    assert "dl_tensor_python_function" not in catalog  # needs DLPack code, not offered


def test_python_code_is_json_text() -> None:
    spec = python_graph()
    data = json.loads(spec_io.dumps(spec))
    function = next(n for n in data["nodes"] if n["id"] == "invert")["args"]["function"]
    assert function == {"python": PythonCode.from_function(invert).source, "name": "invert"}
    assert spec_io.loads(spec_io.dumps(spec)) == spec
    for bad in ({"python": 3, "name": "f"}, {"python": "x = 1", "name": "f", "run": True}):
        data["nodes"][3]["args"]["function"] = bad
        with pytest.raises(SpecFormatError, match=r"invert.*function"):
            spec_io.from_json(data)


def test_from_function_captures_plain_functions_only() -> None:
    code = PythonCode.from_function(split)
    assert code.name == "split" and code.source.startswith("def split(image):")

    def helper(x):  # type: ignore[no-untyped-def]
        return x

    assert PythonCode.from_function(helper).source.startswith("def helper(x):")  # dedented
    scale = 2

    def closure(x):  # type: ignore[no-untyped-def]
        return x * scale

    cases: list[tuple[Callable[..., Any], str]] = [
        (lambda x: x, "lambda"),
        (closure, r"scale.*top level"),
        (functools.lru_cache(maxsize=None)(invert), "not a Python function|decorated"),
        (len, "not a Python function"),
    ]
    for function, message in cases:
        with pytest.raises(ValueError, match=message):
            PythonCode.from_function(function)


def test_validation_names_the_node_and_the_fix(catalog: Catalog) -> None:
    spec = python_graph()
    broken = (
        spec.set_arg("invert", "function", "def invert(x): return x")
        .set_arg("split", "function", PythonCode("def f(x):\n    return x\n", "not a name"))
        .set_arg("small", "resize_x", PythonCode("x = 1", "x"))
    )
    with pytest.raises(GraphInvalid) as raised:
        validate(broken, catalog)
    problems = {(p.node, p.argument): p for p in raised.value.problems}
    assert "PythonCode" in (problems["invert", "function"].fix or "")
    assert "function name" in problems["split", "function"].message
    assert "python_function" in problems["small", "resize_x"].message
    plan = validate(spec, catalog)
    assert plan.step("split").output_count == 2
    assert plan.step("invert").device == "cpu"


# ---- trust --------------------------------------------------------------------------------------
def test_untrusted_code_never_runs_and_the_last_good_result_stays(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    code = PythonCode(
        f"open({str(marker)!r}, 'w').close()\n\ndef invert(image):\n    return 255 - image\n",
        "invert",
    )
    session = Session(python_graph(None).remove("split"), batch_size=BATCH, device_id=None)
    spec = session.spec
    session.update(spec.remove("invert"))  # a graph without code runs as usual
    good = session.result
    assert good is not None
    with pytest.raises(UntrustedCode) as raised:
        session.update(spec.set_arg("invert", "function", code))
    assert raised.value.nodes == ["invert"]
    assert "'invert'" in str(raised.value) and "session.trust()" in str(raised.value)
    assert session.result is good and not marker.exists()
    assert session.untrusted() == ["invert"]

    assert session.trust() == ["invert"] and session.untrusted() == []
    result = session.run()
    assert marker.exists()  # the module-level code ran once trusted
    for before, after in zip(
        arrays(result, Ref("small")), arrays(result, Ref("invert")), strict=True
    ):
        np.testing.assert_array_equal(after, 255 - before)


def test_a_changed_source_needs_trusting_again() -> None:
    session = Session(python_graph(), batch_size=BATCH, device_id=None)
    session.trust()
    good = session.run()
    changed = PythonCode("def invert(image):\n    return image // 2\n", "invert")
    with pytest.raises(UntrustedCode):
        session.set_arg("invert", "function", changed)
    assert session.result is good and session.untrusted() == ["invert"]
    with pytest.raises(ValueError, match="'small' holds no Python code"):
        session.trust("small")
    assert session.trust("invert") == ["invert"]
    result = session.run()
    assert result.ran() and "invert" in result.ran()


def test_to_callable_is_the_one_gate() -> None:
    code = PythonCode("def f(x):\n    return np.sqrt(x)\n", "f")
    with pytest.raises(UntrustedCode, match="'node_a'"):
        trust_store.to_callable(code, "node_a")
    trust_store.trust(code)
    assert trust_store.to_callable(code, "node_a")(np.array([4.0]))[0] == 2.0
    for source, name, message in [
        ("def f(x):\n    return x +\n", "f", "does not compile"),
        ("def f(x):\n    return x\n", "g", "defines no function g"),
        ("raise KeyError('k')\n", "f", "KeyError"),
    ]:
        broken = PythonCode(source, name)
        trust_store.trust(broken)
        with pytest.raises(RunError, match=message) as raised:
            trust_store.to_callable(broken, "node_b")
        assert raised.value.node == "node_b"


def test_an_error_in_the_code_names_the_node_and_line() -> None:
    spec = python_graph(None).set_arg(
        "invert", "function", PythonCode("def invert(x):\n    raise ValueError('no')\n", "invert")
    )
    session = Session(spec, batch_size=BATCH, device_id=None)
    session.trust()
    with pytest.raises(RunError) as raised:
        session.run()
    assert raised.value.node == "invert"
    assert (
        raised.value.dali_message
        == "the Python function raised ValueError: no (line 2 of its code)"
    )


# ---- the engine equals DALI with the same functions ---------------------------------------------
def run_hand_written(plan: Plan) -> list[list[np.ndarray]]:
    seeds = {step.id: step.seed for step in plan.steps if step.seed is not None}

    @pipeline_def(batch_size=BATCH, num_threads=2, device_id=None, enable_conditionals=True)
    def hand() -> tuple[Any, ...]:
        jpegs, labels = fn.readers.file(
            file_root=str(samples_dir()), random_shuffle=False, seed=seeds["source"], name="source"
        )
        images = fn.decoders.image(jpegs, output_type=types.RGB)
        images = fn.resize(images, resize_x=48.0, resize_y=40.0)
        apply = fn.random.coin_flip(
            probability=0.5, dtype=types.DALIDataType.BOOL, seed=seeds["invert_apply"]
        )
        if apply:
            images = fn.python_function(images, function=invert, output_layouts="HWC")
        gray, mean = fn.python_function(images, function=split, num_outputs=2)
        return gray, mean, labels

    pipe = hand()
    pipe.build()
    return [[np.array(out.at(i)) for i in range(len(out))] for out in pipe.run()]


def test_engine_matches_hand_written_dali_with_the_same_functions() -> None:
    session = Session(python_graph(), batch_size=BATCH, device_id=None)
    session.trust()
    result = session.run()
    expected = run_hand_written(session.plan)
    for ref, want in zip(result.plan.outputs.values(), expected, strict=True):
        got = arrays(result, ref)
        assert len(got) == BATCH
        for a, b in zip(got, want, strict=True):
            assert a.dtype == b.dtype and a.shape == b.shape
            np.testing.assert_array_equal(a, b)
    applied = result.draws()["invert"]["apply"]
    assert any(applied) and not all(applied), "the coin flips split the batch"


def test_fused_pipeline_runs_python_function_with_default_executor() -> None:
    """DALI 2.4 runs python_function in the default (asynchronous, pipelined) executor too."""
    session = Session(python_graph(), batch_size=BATCH, device_id=None)
    session.trust()
    result = session.run()
    pipe = build_pipeline(session.plan, result.sources)
    pipe.build()
    for ref, batch in zip(session.plan.outputs.values(), pipe.run(), strict=True):
        for sample, want in enumerate(arrays(result, ref)):
            np.testing.assert_array_equal(np.array(batch.at(sample)), want)


def test_fused_pipeline_refuses_untrusted_code() -> None:
    plan = validate(python_graph(), load_catalog(gpu=False))
    data = {"source": open_source(Source("source", shuffle=False))}
    with pytest.raises(Exception) as raised:  # DALI wraps our error in its own
        build_pipeline(plan, data).build()
    chain: BaseException | None = raised.value
    while chain is not None and not isinstance(chain, UntrustedCode):
        chain = chain.__cause__ or chain.__context__
    assert isinstance(chain, UntrustedCode) and chain.nodes == ["invert"]


@pytest.mark.gpu
def test_gpu_python_function_gets_cupy_arrays() -> None:
    code = PythonCode(
        "def invert(image):\n"
        "    import cupy\n"
        "    assert isinstance(image, cupy.ndarray), type(image)\n"
        "    return 255 - image\n",
        "invert",
    )
    spec = python_graph(None).remove("split").set_arg("invert", "function", code)
    session = Session(spec.set_device("invert", "gpu"), batch_size=BATCH, device_id=0)
    session.trust()
    result = session.run()
    assert result.plan.step("invert").device == "gpu"
    for before, after in zip(
        arrays(result, Ref("small")), arrays(result, Ref("invert")), strict=True
    ):
        np.testing.assert_array_equal(after, 255 - before)


# ---- export ---------------------------------------------------------------------------------------
def test_export_embeds_the_source_as_text_and_says_so() -> None:
    spec = python_graph()
    source = generate(spec)
    header = ast.get_docstring(ast.parse(source)) or ""
    assert "RUNS PYTHON CODE THAT CAME FROM THE GRAPH" in header
    assert "'invert', 'split'" in " ".join(header.split())
    tree = ast.parse(source)
    sources = next(
        node.value
        for node in tree.body
        if isinstance(node, ast.Assign) and ast.unparse(node.targets[0]) == "PYTHON_SOURCES"
    )
    assert ast.literal_eval(sources) == {
        "invert": ("invert", PythonCode.from_function(invert).source),
        "split": ("split", PythonCode.from_function(split).source),
    }
    assert 'function=PYTHON_FUNCTIONS["invert"]' in source
    assert graph_literal(source) == spec  # the graph comes back, code as text
    defined = {node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)}
    assert not defined & {"invert", "split"}, "the code is never spliced in as code"


# ---- the panel ----------------------------------------------------------------------------------
def test_controller_shows_untrusted_on_the_node_and_trusts(tmp_path: Path) -> None:
    controller = Controller(Session("basic", batch_size=4, device_id=None), rng_seed=1)
    good = controller.run().result
    code = PythonCode.from_function(invert)
    spec = controller.state.spec.insert_after(
        "flip", Node("py", "python_function", args={"function": code})
    )
    state = controller.edit(spec)
    assert state.failure is not None and state.failure.kind == "untrusted"
    assert "not been trusted" in state.failure.node_messages()["py"]
    assert state.result is good and controller.untrusted() == ["py"]
    state = controller.trust("py")
    assert state.ok and state.result is not None and "py" in state.result.ran()
    assert controller.history.current == spec, "trusting is not an edit"


def test_panel_shows_code_read_only_with_a_trust_button(tmp_path: Path) -> None:
    explorer = Explorer(
        "basic", batch_size=4, autosave=tmp_path / "autosave.json", catalog=load_catalog(gpu=False)
    )
    good = explorer.flush().result
    explorer.add("python_function")
    node = explorer.state.selected
    assert node is not None
    explorer.set_arg(node, "function", PythonCode.from_function(invert))
    state = explorer.flush()
    assert state.failure is not None and state.failure.kind == "untrusted"
    assert state.result is good
    panel = explorer.node_panel
    view = panel.code_views["function"]
    shown = html.unescape(re.sub(r"<[^>]+>", "", view.code.value))  # highlighted: text in spans
    assert "return 255 - image" in shown
    assert "not trusted" in view.status.value and not view.button.disabled
    assert "not been trusted" in panel.node_error.value
    assert "function" not in panel.controls, "code is never an editable control"
    drawn = {n["id"]: n for n in explorer.graph.nodes}
    assert "not been trusted" in (drawn[node]["error"] or "")

    view.button.click()
    state = explorer.state
    assert state.ok and state.result is not good
    assert state.result is not None and node in state.result.ran()
    assert view.button.disabled and "trusted" in view.status.value
    assert panel.node_error.value == ""
