"""Conditional blocks: nodes under one condition, each reading the one before, run as one DALI
``if`` (split once, merged once), so the type may change inside them as in DALI user code."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest

from augexplorer import Session
from augexplorer.blocks import find_blocks
from augexplorer.builder import build_pipeline
from augexplorer.data import open_source
from augexplorer.errors import RunError
from augexplorer.render.result_view import render_node
from augexplorer.render.sample_view import sample_view
from augexplorer.render.tiles import node_tiles
from augexplorer.spec import Clause, GraphSpec, Node, Probability, Ref, Source
from augexplorer.validate import validate

BATCH = 8
COIN = Clause(Ref("coin"))


def float_block(probability: float = 0.5) -> GraphSpec:
    """``if coin: x = cast(x, FLOAT); x = x * 0.5 + 20.0; x = cast(x, UINT8)``, then a flip."""
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
            Node(
                "coin",
                "random.coin_flip",
                args={"dtype": "BOOL", "probability": probability},
                seed=5,
            ),
            Node("to_float", "cast", inputs=(Ref("small"),), args={"dtype": "FLOAT"}, when=(COIN,)),
            Node(
                "scaled",
                "expression",
                inputs=(Ref("to_float"),),
                args={"expression": "to_float * 0.5 + 20.0"},
                when=(COIN,),
            ),
            Node(
                "to_uint8", "cast", inputs=(Ref("scaled"),), args={"dtype": "UINT8"}, when=(COIN,)
            ),
            Node("flip", "flip", inputs=(Ref("to_uint8"),)),
        ),
        outputs={"images": Ref("flip"), "labels": Ref("source", 1), "coin": Ref("coin")},
        batch_size=BATCH,
    )


def by_hand(files: list[str], labels: list[int], probability: float = 0.5) -> Any:
    """The same pipeline as a DALI user writes it."""
    from nvidia.dali import fn, pipeline_def, types

    @pipeline_def(batch_size=BATCH, num_threads=1, device_id=None, enable_conditionals=True, seed=0)
    def pipeline() -> Any:
        jpegs, read_labels = fn.readers.file(
            files=files, labels=labels, random_shuffle=True, seed=1, name="source"
        )
        images = fn.resize(fn.decoders.image(jpegs), resize_x=32.0, resize_y=24.0)
        coin = fn.random.coin_flip(dtype=types.BOOL, probability=probability, seed=5)
        if coin:
            images = fn.cast(images, dtype=types.FLOAT)
            images = images * 0.5 + 20.0
            images = fn.cast(images, dtype=types.UINT8)
        return fn.flip(images), read_labels, coin

    return pipeline()


def arrays(batch: Any) -> list[np.ndarray]:
    return [np.array(batch.at(i)) for i in range(len(batch))]


@pytest.fixture(scope="module")
def original() -> list[list[np.ndarray]]:
    data = open_source(float_block().sources()[0])
    pipe = by_hand(list(data.files), list(data.labels))
    pipe.build()
    return [arrays(out) for out in pipe.run()]


@pytest.fixture(scope="module")
def session() -> Session:
    session = Session(float_block(), device_id=None)
    session.run()
    return session


def test_a_chain_under_one_condition_is_one_block() -> None:
    blocks = find_blocks(validate(float_block()))
    assert [[step.id for step in block.steps] for block in blocks] == [
        ["to_float", "scaled", "to_uint8"]
    ]
    assert blocks[0].predicate == Ref("coin")
    assert blocks[0].passed == Ref("small")


def test_what_breaks_a_chain_is_not_in_a_block() -> None:
    graph = float_block()
    # an inner output read outside the chain (a graph output): the block ends before it
    shown = dataclasses.replace(graph, outputs={**graph.outputs, "middle": Ref("scaled")})
    assert [[s.id for s in b.steps] for b in find_blocks(validate(shown))] == [
        ["to_float", "scaled"]
    ]
    # the opposite condition on the last node: an if/else, one block with an `else` side
    other = graph.set_condition("to_uint8", [Clause(Ref("coin"), False)])
    (if_else,) = find_blocks(validate(other))
    assert [s.id for s in if_else.then] == ["to_float", "scaled"]
    assert [s.id for s in if_else.otherwise] == ["to_uint8"]
    # another condition on it (another coin): two nodes left in the block
    graph = dataclasses.replace(
        graph, nodes=(*graph.nodes, Node("coin_2", "random.coin_flip", args={"dtype": "BOOL"}))
    )
    other = graph.set_condition("to_uint8", [Clause(Ref("coin_2"))])
    assert [[s.id for s in b.steps] for b in find_blocks(validate(other))] == [
        ["to_float", "scaled"]
    ]
    # apply-with-probability: each node draws its own coin, so no two share a block
    coins = graph.set_condition("scaled", []).set_condition("to_uint8", [])
    coins = coins.set_condition("to_float", []).set_probability("scaled", Probability(0.5, 3))
    coins = coins.set_probability("to_uint8", Probability(0.5, 4))
    assert find_blocks(validate(coins)) == ()


def reading_back(graph: GraphSpec) -> GraphSpec:
    """The float block whose middle step also reads the block's first output (as an unsharp
    mask reads the image and its blur): ``x = cast(x); y = x * 0.5 + x; ...``."""
    return graph.replace_node(
        dataclasses.replace(
            graph.node("scaled"),
            inputs=(Ref("to_float"),),
            args={"expression": "to_float * 0.5 + to_float"},
        )
    )


def test_a_step_may_read_an_earlier_step_of_its_own_block() -> None:
    """Read by two steps of the chain, to_float had two readers and no block was found: the
    live engine then merged its float output with the uint8 one passing by, and failed."""
    graph = reading_back(float_block())
    assert [[s.id for s in b.steps] for b in find_blocks(validate(graph))] == [
        ["to_float", "scaled", "to_uint8"]
    ]
    coin = Session(graph, device_id=None).run().arrays(Ref("coin"))
    assert any(bool(c) for c in coin) and not all(bool(c) for c in coin)
    # read outside the chain too, the block ends before it, as one step's output must leave it
    shown = dataclasses.replace(graph, outputs={**graph.outputs, "middle": Ref("to_float")})
    assert [[s.id for s in b.steps] for b in find_blocks(validate(shown))] == [
        ["scaled", "to_uint8"]
    ]


def test_the_coin_took_both_ways(original: list[list[np.ndarray]]) -> None:
    coins = [bool(c) for c in original[2]]
    assert any(coins) and not all(coins)  # otherwise the test shows nothing


def test_a_block_that_changes_the_type_runs_as_dali_runs_it(
    session: Session, original: list[list[np.ndarray]]
) -> None:
    result = session.result
    assert result is not None
    for index, ref in enumerate([Ref("flip"), Ref("source", 1), Ref("coin")]):
        got, want = result.arrays(ref), original[index]
        assert len(got) == len(want) == BATCH
        for sample, (x, y) in enumerate(zip(got, want, strict=True)):
            assert x.dtype == y.dtype, f"output {index}, sample {sample}"
            np.testing.assert_array_equal(x, y, err_msg=f"output {index}, sample {sample}")


def test_inner_nodes_hold_the_samples_where_the_block_ran(
    session: Session, original: list[list[np.ndarray]]
) -> None:
    result = session.result
    assert result is not None
    ran = [i for i, coin in enumerate(original[2]) if bool(coin)]
    small = result.arrays("small")
    for node in ("to_float", "scaled"):
        assert result.sample_indices(node) == ran
        inner = result.arrays(node)
        assert [a.dtype for a in inner] == [np.dtype("float32")] * len(ran)
    scaled = result.arrays("scaled")
    for position, sample in enumerate(ran):
        np.testing.assert_array_equal(scaled[position], small[sample].astype(np.float32) * 0.5 + 20)
    assert result.sample_indices("to_uint8") == list(range(BATCH))
    assert result.position_of("scaled", ran[1]) == 1
    missing = next(i for i in range(BATCH) if i not in ran)
    assert result.position_of("scaled", missing) is None


def test_the_fused_pipeline_runs_the_block_as_one(
    session: Session, original: list[list[np.ndarray]]
) -> None:
    result = session.result
    assert result is not None
    wanted = [Ref("scaled"), Ref("flip")]
    pipe = build_pipeline(session.plan, result.sources, outputs=wanted, num_threads=1)
    pipe.build()
    scaled, flipped = (arrays(out) for out in pipe.run())
    assert len(scaled) == len(result.sample_indices("scaled"))
    for x, y in zip(scaled, result.arrays("scaled"), strict=True):
        np.testing.assert_array_equal(x, y)
    for x, y in zip(flipped, original[0], strict=True):
        np.testing.assert_array_equal(x, y)


def test_an_edit_inside_the_block_reruns_it_whole_and_only_it() -> None:
    session = Session(float_block(), device_id=None)
    session.run()
    edited = session.set_arg("scaled", "expression", "to_float * 0.25 + 20.0")
    assert set(edited.ran()) == {"to_float", "scaled", "to_uint8", "flip"}
    scaled = edited.arrays("scaled")
    small = edited.arrays("small")
    for position, sample in enumerate(edited.sample_indices("scaled")):
        np.testing.assert_array_equal(
            scaled[position], small[sample].astype(np.float32) * 0.25 + 20
        )
    after = session.set_arg("flip", "horizontal", 0)
    assert after.ran() == ["flip"]
    assert after.output("scaled") is edited.output("scaled")  # from the cache


def test_a_slider_step_inside_a_block_runs_the_block_with_the_new_value() -> None:
    # A number edited is checked alone (a slider drag); the plan keeps its blocks unless the
    # edited step is in one, whose steps must then be the plan's own.
    graph = float_block().replace_node(
        Node(
            "scaled",
            "brightness",
            inputs=(Ref("to_float"),),
            args={"brightness": 0.5},
            when=(COIN,),
        )
    )
    session = Session(graph, device_id=None)
    session.run()
    kept = session.plan.blocks
    edited = session.set_arg("scaled", "brightness", 0.25)
    assert session.plan.blocks is not kept
    assert session.plan.blocks["scaled"].steps[1] is session.plan.step("scaled")
    assert set(edited.ran()) == {"to_float", "scaled", "to_uint8", "flip"}
    scaled, small = edited.arrays("scaled"), edited.arrays("small")
    assert scaled, "the coin ran the block on no sample"
    for position, sample in enumerate(edited.sample_indices("scaled")):
        np.testing.assert_allclose(scaled[position], small[sample].astype(np.float32) * 0.25)
    inside = session.plan.blocks
    outside = session.set_arg("small", "resize_x", 30.0)
    assert session.plan.blocks is inside  # nothing of the blocks changed
    assert set(outside.ran()) == {"small", "to_float", "scaled", "to_uint8", "flip"}
    assert {b.last.id for b in find_blocks(session.plan)} == {"to_uint8"}


def test_a_block_that_runs_nowhere_passes_its_input_through() -> None:
    result = Session(float_block(probability=0.0), device_id=None).run()
    assert result.sample_indices("scaled") == []
    assert len(result.output("scaled")) == 0
    for x, y in zip(result.arrays("to_uint8"), result.arrays("small"), strict=True):
        np.testing.assert_array_equal(x, y)


def test_a_block_that_ends_on_another_type_says_what_to_do() -> None:
    graph = float_block()
    graph = dataclasses.replace(graph, outputs={**graph.outputs, "images": Ref("scaled")})
    graph = graph.remove("flip").remove("to_uint8")
    with pytest.raises(RunError) as failed:
        Session(graph, device_id=None).run()
    text = str(failed.value)
    assert "node 'scaled' failed" in text and "distinct types: float and uint8" in text, text
    assert "'to_float', 'scaled' run under one condition as one block" in text, text
    assert "the last of a chain of nodes under the same condition" in text, text


def test_views_show_an_inner_node_where_it_ran(session: Session) -> None:
    result = session.result
    assert result is not None
    ran = result.sample_indices("scaled")
    tiles = node_tiles(result, Ref("scaled"), 48)
    assert [tile.index for tile in tiles] == ran
    assert [tile.label for tile in tiles] == [result.captions()[i] for i in ran]
    view = sample_view(result, "scaled", ran[-1])
    assert [pane.role for pane in view.panes][:2] == ["after", "before"]
    assert view.panes[0].dtype == "float32" and view.count == len(ran)
    missing = next(i for i in range(BATCH) if i not in ran)
    with pytest.raises(IndexError):
        sample_view(result, "scaled", missing)
    # the block's last node holds every sample; its input inside the block only some
    last = sample_view(result, "to_uint8", missing)
    assert [pane.role for pane in last.panes] == ["after", "original"]
    picture = render_node(result, "scaled", samples=[missing, ran[0]], captions=False)
    assert picture.width > 0


def test_a_profile_times_a_block_as_one_row() -> None:
    from augexplorer.profiling.timing import profile

    report = profile(float_block(), device="cpu", repeats=1, warmup=0)
    rows = {row.node: row for row in report.rows}
    assert "to_float" not in rows and "scaled" not in rows
    assert rows["to_uint8"].op == "cast"
    assert {"to_float", "scaled", "to_uint8"} <= set(rows["to_uint8"].steps)
