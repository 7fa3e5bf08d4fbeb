"""Conditions on nodes: if/elif/else on any per-sample predicate, nested, run live, exported as
plain DALI `if` blocks and equal to the same pipeline written by hand with DALI conditionals."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from exported_runner import run_exported

from augexplorer import Session
from augexplorer.data import open_source
from augexplorer.errors import GraphInvalid
from augexplorer.export import export
from augexplorer.export.codegen import generate
from augexplorer.expressions.nodes import expression
from augexplorer.spec import Clause, GraphSpec, Node, Probability, Ref, Source
from augexplorer.spec.io import dumps, loads
from augexplorer.validate import validate

BATCH = 8


def conditional_graph() -> GraphSpec:
    """``if coin: flip / elif angle < 0: rotate / else: vertical flip``, then (nested)
    ``if not coin: if angle < 0: brighten``."""
    coin, negative = Ref("coin"), Ref("negative")
    return GraphSpec(
        nodes=(
            Source("source", "samples", shuffle=True, seed=1),
            Node("decode", "decoders.image", inputs=(Ref("source"),), device="cpu"),
            Node(
                "small",
                "resize",
                inputs=(Ref("decode"),),
                args={"resize_x": 32.0, "resize_y": 24.0},
            ),
            Node("coin", "random.coin_flip", args={"dtype": "BOOL"}, seed=3),
            Node("angle", "random.uniform", args={"range": [-10.0, 10.0]}, seed=4),
            expression("negative", "angle < 0"),
            Node("flip", "flip", inputs=(Ref("small"),), when=(Clause(coin),)),
            Node(
                "rotate",
                "rotate",
                inputs=(Ref("flip"),),
                args={"angle": 10.0},
                when=(Clause(coin, False), Clause(negative)),
            ),
            Node(
                "vflip",
                "flip",
                inputs=(Ref("rotate"),),
                args={"vertical": 1, "horizontal": 0},
                when=(Clause(coin, False), Clause(negative, False)),
            ),
            Node(
                "bright",
                "brightness",
                inputs=(Ref("vflip"),),
                args={"brightness": 1.5},
                when=(Clause(coin, False), Clause(negative)),
            ),
        ),
        outputs={"images": Ref("bright"), "labels": Ref("source", 1), "coin": coin},
        batch_size=BATCH,
    )


def by_hand(files: list[str], labels: list[int]) -> Any:
    """The same pipeline as a DALI user writes it."""
    from nvidia.dali import fn, pipeline_def, types

    @pipeline_def(batch_size=BATCH, num_threads=1, device_id=None, enable_conditionals=True, seed=0)
    def pipeline() -> Any:
        jpegs, read_labels = fn.readers.file(
            files=files, labels=labels, random_shuffle=True, seed=1, name="source"
        )
        images = fn.resize(fn.decoders.image(jpegs), resize_x=32.0, resize_y=24.0)
        coin = fn.random.coin_flip(dtype=types.BOOL, seed=3)
        angle = fn.random.uniform(range=[-10.0, 10.0], seed=4)
        if coin:
            images = fn.flip(images)
        elif angle < 0:
            images = fn.rotate(images, angle=10.0)
        else:
            images = fn.flip(images, vertical=1, horizontal=0)
        if not coin:  # noqa: SIM102 (nested, as DALI users write it)
            if angle < 0:
                images = fn.brightness(images, brightness=1.5)
        return images, read_labels, coin

    return pipeline()


def arrays(batch: Any) -> list[np.ndarray]:
    return [np.array(batch.at(i)) for i in range(len(batch))]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("conditions")
    graph = conditional_graph()
    data = open_source(graph.sources()[0])
    pipe = by_hand(list(data.files), list(data.labels))
    pipe.build()
    original = [arrays(out) for out in pipe.run()]
    module = export(graph, tmp / "conditional_aug.py")
    job = {"name": "c", "module": str(module), "out": str(tmp / "c.npz"), "batch_size": BATCH}
    exported = run_exported([{**job, "device": "cpu"}], tmp)["c"]
    session = Session(graph, device_id=None).run()
    return {"original": original, "exported": exported, "session": session, "module": module}


def test_the_branches_took_both_ways(runs: dict[str, Any]) -> None:
    coins = [bool(c) for c in runs["original"][2]]
    assert any(coins) and not all(coins)  # otherwise the test shows nothing


def test_session_runs_what_dali_conditionals_run(runs: dict[str, Any]) -> None:
    session = runs["session"]
    for index, ref in enumerate([Ref("bright"), Ref("source", 1), Ref("coin")]):
        got, want = session.arrays(ref), runs["original"][index]
        assert len(got) == len(want) == BATCH
        for sample, (x, y) in enumerate(zip(got, want, strict=True)):
            np.testing.assert_array_equal(x, y, err_msg=f"output {index}, sample {sample}")


def test_exported_module_runs_what_dali_conditionals_run(runs: dict[str, Any]) -> None:
    for index, want in enumerate(runs["original"]):
        for sample, y in enumerate(want):
            np.testing.assert_array_equal(runs["exported"][f"{index}_{sample}"], y)


def test_export_writes_if_elif_else_blocks(runs: dict[str, Any]) -> None:
    source = Path(runs["module"]).read_text()
    assert "enable_conditionals=True" in source
    assert "    if coin:\n        flip = fn.flip(small" in source
    assert "\n    else:\n        flip = small\n        if negative:\n" in source
    assert "_when" not in source  # the combined predicates are the engine's, not the user's


def test_an_else_holding_one_if_is_written_as_elif() -> None:
    coin, negative = Ref("coin"), Ref("negative")
    graph = conditional_graph().remove("bright").remove("vflip")
    graph = graph.set_condition("flip", [])
    graph = graph.set_condition("rotate", [Clause(coin, False), Clause(negative)])
    source = generate(graph)
    assert "    if coin:\n        rotate = flip\n    elif negative:\n" in source, source
    validate(graph)  # a condition can be cleared and set again like any other edit


def test_condition_survives_json_and_edits() -> None:
    graph = conditional_graph()
    assert loads(dumps(graph)) == graph
    assert '"is": false' in dumps(graph)
    renamed = graph.rename("negative", "tilted_left")
    rotate = renamed.node("rotate")
    assert isinstance(rotate, Node)
    assert rotate.when == (Clause(Ref("coin"), False), Clause(Ref("tilted_left")))
    assert rotate.describe_condition() == "if not coin and tilted_left"
    assert "rotate" in graph.consumers("negative")
    # removing a predicate rewires its clause like any edge (to what it read), never drops it;
    # validation names what is left
    with pytest.raises(GraphInvalid) as invalid:
        validate(graph.remove("negative"))
    assert "node 'rotate', argument 'when': the predicate 'angle' is not a boolean" in str(
        invalid.value
    )


def _problems(graph: GraphSpec) -> str:
    with pytest.raises(GraphInvalid) as invalid:
        validate(graph)
    return str(invalid.value)


def test_predicates_must_be_booleans_per_sample() -> None:
    graph = conditional_graph()
    text = _problems(graph.set_condition("flip", [Clause(Ref("angle"))]))
    assert "node 'flip'" in text and "'angle' is not a boolean per sample" in text
    assert "comparison expression" in text
    text = _problems(graph.set_condition("flip", [Clause(Ref("nowhere"))]))
    assert "'nowhere' does not exist" in text
    text = _problems(graph.set_condition("flip", [Clause(Ref("coin")), Clause(Ref("coin"), False)]))
    assert "both true and false" in text
    both = graph.replace_node(
        Node(
            "flip",
            "flip",
            inputs=(Ref("small"),),
            probability=Probability(0.5),
            when=(Clause(Ref("coin")),),
        )
    )
    assert "either an apply probability or a condition" in _problems(both)
    loop = graph.replace_node(
        Node("flip", "flip", inputs=(Ref("small"),), when=(Clause(Ref("bright")),))
    )
    assert "cycle" in _problems(loop)


def test_condition_json_is_checked() -> None:
    from augexplorer.errors import SpecFormatError

    text = dumps(conditional_graph()).replace('"is": false', '"is": "no"', 1)
    with pytest.raises(SpecFormatError) as bad:
        loads(text)
    assert "when[0].is" in str(bad.value) and "node 'rotate'" in str(bad.value)


def test_the_graph_view_describes_a_condition() -> None:
    from widgets.graph_view import describe_nodes

    described = {d["id"]: d for d in describe_nodes(conditional_graph(), None, None)}
    assert described["rotate"]["condition"] == "if not coin and negative"
    assert described["decode"]["condition"] == ""


def test_logic_predicates_are_checked_for_booleans() -> None:
    graph = conditional_graph().replace_node(
        Node("coin", "random.coin_flip", seed=3)  # int32 0 or 1: `~` would not negate it
    )
    either = graph.replace_node(expression("negative", "coin | (angle < 0)"))
    validate(either)  # 0/1 or a boolean: still a truth value per sample
    inverted = graph.replace_node(expression("negative", "~coin & (angle < 0)"))
    text = _problems(inverted)
    assert "node 'rotate', argument 'when': the predicate 'negative' is not a boolean" in text
    assert "& | ~" in text
    boolean = conditional_graph().replace_node(expression("negative", "~coin & (angle < 0)"))
    validate(boolean)


def test_if_not_is_written_only_for_booleans() -> None:
    graph = conditional_graph().remove("bright").remove("vflip").remove("rotate")
    graph = graph.set_condition("flip", [Clause(Ref("coin"), False)])
    assert "    flip = small\n    if not coin:\n        flip = fn.flip(small" in generate(graph)
    # DALI's `not` refuses an int32 coin flip: the else branch says the same
    as_int = graph.replace_node(Node("coin", "random.coin_flip", seed=3))
    source = generate(as_int)
    assert "not coin" not in source
    assert "    if coin:\n        flip = small\n    else:\n        flip = fn.flip(small" in source


def test_and_or_not_import_as_boolean_expressions(tmp_path: Path) -> None:
    from augexplorer.data import samples_dir
    from augexplorer.export.importer import import_graph

    source = tmp_path / "user_pipeline.py"
    source.write_text(
        "from nvidia.dali import fn, pipeline_def, types\n\n"
        "@pipeline_def(batch_size=2, enable_conditionals=True)\n"
        "def augment():\n"
        f"    jpegs, labels = fn.readers.file(file_root={str(samples_dir())!r})\n"
        "    images = fn.decoders.image(jpegs)\n"
        "    flip = fn.random.coin_flip(dtype=types.BOOL, seed=1)\n"
        "    tilt = fn.random.coin_flip(dtype=types.BOOL, seed=2)\n"
        "    angle = fn.random.uniform(range=[-10.0, 10.0], seed=3)\n"
        "    if flip and not tilt:\n"
        "        images = fn.flip(images)\n"
        "    elif angle < 0 or tilt:\n"
        "        images = fn.rotate(images, angle=angle)\n"
        "    if not flip:\n"
        "        images = fn.hsv(images, saturation=0.5)\n"
        "    return images, labels\n"
    )
    graph = import_graph(source, run_file=True)
    nodes = {node.id: node for node in graph.nodes if isinstance(node, Node)}
    flip, tilt, angle = (next(n.id for n in nodes.values() if n.seed == s) for s in (1, 2, 3))
    logic = {n.args["expression"]: n.id for n in nodes.values() if n.op == "expression"}
    assert set(logic) == {f"{flip} & ~{tilt}", f"({angle} < 0) | {tilt}"}
    first, second = logic[f"{flip} & ~{tilt}"], logic[f"({angle} < 0) | {tilt}"]
    assert first == f"{flip}_and_not_{tilt}"  # the node's name reads as the logic
    assert nodes["flip"].when == (Clause(Ref(first)),)
    assert nodes["rotate"].describe_condition() == f"if not {first} and {second}"
    # `not` straight in an `if` is a clause that must not hold, no node of its own
    assert nodes["hsv"].when == (Clause(Ref(flip), False),)
    assert f"if not {flip}:" in generate(graph)


def test_a_branch_that_changes_the_type_says_what_to_do() -> None:
    from augexplorer.errors import RunError

    graph = conditional_graph()
    graph = graph.replace_node(
        Node(
            "flip",
            "cast",
            inputs=(Ref("small"),),
            args={"dtype": "FLOAT"},
            when=(Clause(Ref("coin")),),
        )
    )
    with pytest.raises(RunError) as failed:
        Session(graph, device_id=None).run()
    text = str(failed.value)
    assert "node 'flip'" in text and "distinct types: float and uint8" in text, text
    # an if/elif/else, which the explorer runs node by node: it says so, and where to cast
    assert "runs an if/elif/else, or an if/else inside another branch, node by node" in text
    assert "keep the type inside the branches and change it (fn.cast" in text, text
