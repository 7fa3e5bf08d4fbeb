"""``if p: x = A(x) else: x = B(x)`` where A and B both change the type: one block with an
``else`` side, split once and merged once, as DALI user code runs it.

The graph holds B under the opposite condition reading A's output. Run node by node, A's float
output was merged with the uint8 input passing through before B saw it, and DALI refused
("Divergent data"), though the exported module (which writes the ``if``/``else``) ran."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from augexplorer import Session
from augexplorer.blocks import find_blocks
from augexplorer.builder import build_pipeline
from augexplorer.data import open_source
from augexplorer.errors import RunError
from augexplorer.render.sample_view import sample_view
from augexplorer.spec import Clause, GraphSpec, Node, Ref, Source
from augexplorer.validate import validate

BATCH = 8
MEAN, STD = [120.0, 110.0, 100.0], [60.0, 58.0, 57.0]


def normalized(args: dict[str, Any]) -> dict[str, Any]:
    return {"crop": [24.0, 24.0], "mean": MEAN, "std": STD, "dtype": "FLOAT", **args}


def if_else(mirrored_first: bool = True) -> GraphSpec:
    """``if coin: x = cmn(x, mirror=1) else: x = cmn(x * ...)`` (a chain of two on the else
    side), uint8 HWC in, float CHW out on both sides."""
    coin = Clause(Ref("coin"))
    return GraphSpec(
        nodes=(
            Source("source", "samples", shuffle=True, seed=3),
            Node("decode", "decoders.image", inputs=(Ref("source"),), device="cpu"),
            Node(
                "small",
                "resize",
                inputs=(Ref("decode"),),
                args={"resize_x": 32.0, "resize_y": 32.0},
            ),
            Node("coin", "random.coin_flip", args={"dtype": "BOOL"}, seed=7),
            Node(
                "flipped",
                "crop_mirror_normalize",
                inputs=(Ref("small"),),
                args=normalized({"mirror": 1, "output_layout": "CHW"}),
                when=(coin,),
            ),
            Node(
                "plain",
                "crop_mirror_normalize",
                inputs=(Ref("flipped"),),
                args=normalized({"output_layout": "CHW"}),
                when=(Clause(Ref("coin"), False),),
            ),
            Node(
                "halved",
                "expression",
                inputs=(Ref("plain"),),
                args={"expression": "plain * 0.5"},
                when=(Clause(Ref("coin"), False),),
            ),
        ),
        outputs={"images": Ref("halved"), "labels": Ref("source", 1), "coin": Ref("coin")},
        batch_size=BATCH,
    )


def by_hand(files: list[str], labels: list[int]) -> Any:
    """The same pipeline as a DALI user writes it."""
    from nvidia.dali import fn, pipeline_def, types

    @pipeline_def(batch_size=BATCH, num_threads=1, device_id=None, enable_conditionals=True)
    def pipeline() -> Any:
        jpegs, read = fn.readers.file(
            files=files, labels=labels, random_shuffle=True, seed=3, name="source"
        )
        images = fn.resize(fn.decoders.image(jpegs), resize_x=32.0, resize_y=32.0)
        coin = fn.random.coin_flip(dtype=types.BOOL, seed=7)
        common = {"crop": (24, 24), "mean": MEAN, "std": STD, "dtype": types.FLOAT}
        if coin:
            images = fn.crop_mirror_normalize(images, mirror=1, output_layout="CHW", **common)
        else:
            images = fn.crop_mirror_normalize(images, output_layout="CHW", **common)
            images = images * 0.5
        return images, read, coin

    return pipeline()


def arrays(batch: Any) -> list[np.ndarray]:
    return [np.array(batch.at(i)) for i in range(len(batch))]


@pytest.fixture(scope="module")
def original() -> list[list[np.ndarray]]:
    data = open_source(if_else().sources()[0])
    pipe = by_hand(list(data.files), list(data.labels))
    pipe.build()
    outputs = [arrays(out) for out in pipe.run()]
    coins = [bool(c) for c in outputs[2]]
    assert any(coins) and not all(coins), "the coin must take both ways for the test to show"
    return outputs


def test_opposite_conditions_one_after_the_other_are_one_if_else_block() -> None:
    (block,) = find_blocks(validate(if_else()))
    assert [s.id for s in block.then] == ["flipped"]
    assert [s.id for s in block.otherwise] == ["plain", "halved"]
    assert block.predicate == Ref("coin") and block.passed == Ref("small")


def test_the_explorer_runs_it_as_dali_runs_the_user_code(
    original: list[list[np.ndarray]],
) -> None:
    result = Session(if_else(), device_id=None).run()
    got, want = result.arrays("halved"), original[0]
    assert len(got) == len(want) == BATCH
    for sample, (x, y) in enumerate(zip(got, want, strict=True)):
        assert x.dtype == y.dtype == np.float32 and x.shape == (3, 24, 24), sample
        np.testing.assert_array_equal(x, y, err_msg=f"sample {sample}")


def test_each_side_holds_its_own_samples(original: list[list[np.ndarray]]) -> None:
    result = Session(if_else(), device_id=None).run()
    heads = [i for i, coin in enumerate(original[2]) if bool(coin)]
    tails = [i for i in range(BATCH) if i not in heads]
    assert result.sample_indices("flipped") == heads
    assert result.sample_indices("plain") == tails
    assert result.sample_indices("halved") == list(range(BATCH))
    for position, sample in enumerate(tails):
        np.testing.assert_allclose(
            result.arrays("plain")[position] * 0.5, original[0][sample], rtol=1e-6
        )
    # what the else side transformed is the block's input, not the if side's output
    assert result.input_of("plain") == Ref("small")
    view = sample_view(result, "plain", tails[0])
    assert [pane.role for pane in view.panes][:2] == ["after", "before"]
    assert view.panes[1].dtype == "uint8"


def test_the_fused_pipeline_runs_it_as_one_block(original: list[list[np.ndarray]]) -> None:
    session = Session(if_else(), device_id=None)
    result = session.run()
    pipe = build_pipeline(session.plan, result.sources, outputs=[Ref("halved")], num_threads=1)
    pipe.build()
    (fused,) = (arrays(out) for out in pipe.run())
    for x, y in zip(fused, original[0], strict=True):
        np.testing.assert_array_equal(x, y)


def test_an_edit_on_the_else_side_reruns_the_block() -> None:
    session = Session(if_else(), device_id=None)
    before = session.run()
    edited = session.set_arg("halved", "expression", "plain * 0.25")
    assert set(edited.ran()) == {"flipped", "plain", "halved"}
    tails = edited.sample_indices("plain")
    for position, sample in enumerate(tails):
        np.testing.assert_allclose(
            edited.arrays("halved")[sample], edited.arrays("plain")[position] * 0.25, rtol=1e-6
        )
    for sample in before.sample_indices("flipped"):
        np.testing.assert_array_equal(
            edited.arrays("halved")[sample], before.arrays("halved")[sample]
        )


def test_sides_that_end_on_two_types_say_so() -> None:
    graph = if_else().remove("halved")
    graph = graph.replace_node(
        Node(
            "plain",
            "cast",
            inputs=(Ref("flipped"),),
            args={"dtype": "INT16"},
            when=(Clause(Ref("coin"), False),),
        )
    )
    assert graph.outputs["images"] == Ref("plain")
    with pytest.raises(RunError) as failed:
        Session(graph, device_id=None).run()
    text = str(failed.value)
    assert "Divergent data" in text or "distinct types" in text, text
    assert "'flipped' (if) and 'plain' (else) run as one if/else block" in text, text
    assert "the two sides of an if/else must end on one type" in text, text


def flips(plain: dict[str, Any] | None = None, **kinds: Any) -> GraphSpec:
    """``if coin: x = flip(x) else: x = <plain>(x)`` on 16 px images (plain: a vertical flip)."""
    coin = Clause(Ref("coin"))
    other = plain or {"op": "flip", "args": {"horizontal": 0, "vertical": 1}}
    return GraphSpec(
        nodes=(
            Source("source", "samples", shuffle=True, seed=3),
            Node("decode", "decoders.image", inputs=(Ref("source"),), device="cpu"),
            Node("small", "resize", inputs=(Ref("decode"),), args=kinds.get("size", SMALL)),
            Node("coin", "random.coin_flip", args={"dtype": "BOOL"}, seed=7),
            Node("flipped", "flip", inputs=(Ref("small"),), args={"horizontal": 1}, when=(coin,)),
            Node(
                "plain",
                other["op"],
                inputs=(Ref("flipped"),),
                args=other["args"],
                seed=other.get("seed"),
                when=kinds.get("when", (Clause(Ref("coin"), False),)),
            ),
        ),
        outputs={"images": Ref("plain"), "labels": Ref("source", 1), **kinds.get("more", {})},
        batch_size=BATCH,
    )


SMALL = {"resize_x": 16.0, "resize_y": 16.0}


@pytest.mark.parametrize(
    "edited",
    [
        flips(more={"side": Ref("flipped")}),  # the if side read outside: no longer one block
        flips(when=()),  # the else node's condition taken away: it runs on every sample
    ],
    ids=["if-side-read-outside", "else-unconditional"],
)
def test_an_edit_that_unmakes_the_block_runs_its_nodes_again(edited: GraphSpec) -> None:
    # the if side's cached output held only its samples; reused as a whole batch after the
    # edit, it was shown for the merged one, or fed a node that failed ("Batch size clash")
    session = Session(flips(), device_id=None)
    session.run()
    after = session.update(edited)
    fresh = Session(edited, device_id=None).run()
    for node in ("flipped", "plain"):
        assert after.sample_indices(node) == fresh.sample_indices(node), node
        for x, y in zip(after.arrays(node), fresh.arrays(node), strict=True):
            np.testing.assert_array_equal(x, y)


def test_a_block_holding_a_random_node_runs_later_batches() -> None:
    crop = {"op": "random_resized_crop", "args": {"size": [16.0, 16.0]}, "seed": 11}
    session = Session(flips(crop, size={"resize_x": 32.0, "resize_y": 32.0}), device_id=None)
    session.run()
    later = session.next_batch()  # replayed as training draws it; it failed inside the block
    assert later.batch_index == 1 and len(later.arrays("plain")) == BATCH


def test_statistics_of_an_else_side_that_fills_or_crops() -> None:
    from augexplorer.stats.runner import collect_stats

    rotate = {"op": "rotate", "args": {"angle": 30.0, "fill_value": 0.0, "keep_size": True}}
    stats = collect_stats(flips(rotate), batches=1, device_id=None)
    (fill,) = [f for f in stats.fills if f.node == "plain"]
    # every sample of the merged output, against what it transformed (the statistics paired it
    # with the if side's output, which holds only that side's samples, and failed)
    assert fill.samples == BATCH and fill.total_share > 0
    crop = {"op": "random_resized_crop", "args": {"size": [32.0, 32.0]}, "seed": 11}
    size = {"resize_x": 64.0, "resize_y": 64.0}
    stats = collect_stats(flips(crop, size=size), batches=2, device_id=None)
    (windows,) = [w for w in stats.windows if w.node == "plain"]
    assert windows.windows > 0 and windows.unknown == 0  # read against the block's input


def test_an_else_side_is_checked_against_the_input_it_reads() -> None:
    # `if coin: x = cmn(x) (float CHW) else: x = rotate(x); x = cmn(x)`: validation read the
    # else side's rotate as fed the if side's CHW floats, and refused a graph DALI runs
    spec = if_else()
    spec = spec.replace_node(
        Node(
            "plain",
            "rotate",
            inputs=(Ref("flipped"),),
            args={"angle": 10.0, "keep_size": True},
            when=(Clause(Ref("coin"), False),),
        )
    ).replace_node(
        Node(
            "halved",
            "crop_mirror_normalize",
            inputs=(Ref("plain"),),
            args=normalized({"output_layout": "CHW"}),
            when=(Clause(Ref("coin"), False),),
        )
    )
    result = Session(spec, device_id=None).run()
    assert [a.shape for a in result.arrays("halved")] == [(3, 24, 24)] * BATCH
    assert result.arrays("plain")[0].dtype == np.uint8  # the rotated picture, HWC


def test_an_elif_chain_that_changes_the_type_says_the_explorer_runs_it_node_by_node() -> None:
    # `if r < 0.3: cmn(...) elif r < 0.6: cmn(...) else: cmn(...)`: the first branch is read
    # with the input passing through where it does not run; the fix said the user's valid
    # code "must end on one type"
    low, high = Clause(Ref("low")), Clause(Ref("high"))
    chw = normalized({"output_layout": "CHW"})
    spec = if_else()
    nodes = [n for n in spec.nodes if n.id in ("source", "decode", "small")]
    nodes += [
        Node("r", "random.uniform", args={"range": [0.0, 1.0]}, seed=5),
        Node("low", "expression", inputs=(Ref("r"),), args={"expression": "r < 0.3"}),
        Node("high", "expression", inputs=(Ref("r"),), args={"expression": "r < 0.6"}),
        Node("first", "crop_mirror_normalize", inputs=(Ref("small"),), args=chw, when=(low,)),
        Node(
            "second",
            "crop_mirror_normalize",
            inputs=(Ref("first"),),
            args=chw,
            when=(Clause(Ref("low"), False), high),
        ),
    ]
    graph = GraphSpec(
        nodes=tuple(nodes),
        outputs={"images": Ref("second"), "labels": Ref("source", 1)},
        batch_size=BATCH,
    )
    with pytest.raises(RunError) as failed:
        Session(graph, device_id=None).run()
    text = str(failed.value)
    assert "runs an if/elif/else, or an if/else inside another branch, node by node" in text
    assert "so does a module exported from this graph" in text
