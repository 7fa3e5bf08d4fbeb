"""The graph view's layout of conditional blocks (widgets/graph_layout.py): which nodes form
which branch of which block, computed from the GraphSpec alone and sent to the browser."""

from __future__ import annotations

from typing import Any

import pytest
from augexplorer_widgets.graph_layout import graph_layout
from graph_blocks import blocks_graph
from pipelines_conditionals import CONDITIONALS

from augexplorer.data import samples_dir
from augexplorer.export.importer import import_pipeline
from augexplorer.spec import Clause, GraphSpec, Node, Probability, Ref, Source


def outline(items: list[dict[str, Any]]) -> list[Any]:
    """Node ids, and for a block ``(header, [(label, outline), ...])``."""
    return [
        item["id"]
        if item["kind"] == "node"
        else (item["header"], [(b["label"], outline(b["items"])) for b in item["branches"]])
        for item in items
    ]


def node_ids(items: list[dict[str, Any]]) -> list[str]:
    ids: list[str] = []
    for item in items:
        if item["kind"] == "node":
            ids.append(item["id"])
        else:
            for branch in item["branches"]:
                ids += node_ids(branch["items"])
    return ids


def imported(name: str) -> GraphSpec:
    pipe = CONDITIONALS[name](
        str(samples_dir()), "unused", batch_size=2, num_threads=1, device_id=None
    )
    return import_pipeline(pipe, name=name)


def chain(*nodes: Node) -> GraphSpec:
    return GraphSpec(
        nodes=(Source("source", "samples"), *nodes),
        outputs={"images": Ref(nodes[-1].id)},
    )


def test_if_else_is_one_block_of_two_branches() -> None:
    assert outline(graph_layout(imported("flip_or_rotate")))[-1] == (
        "if coin_flip",
        [("if coin_flip", ["flip"]), ("else", ["rotate"])],
    )


def test_if_elif_else_are_columns_of_one_block() -> None:
    # the elif's predicate, computed between the branches, is drawn above the block
    assert outline(graph_layout(imported("by_the_angle_sign")))[3:] == [
        "coin_flip",
        "uniform",
        "compare",
        (
            "if coin_flip",
            [
                ("if coin_flip", ["flip"]),
                ("elif compare", ["rotate", "brightness"]),
                ("else", ["flip_2"]),
            ],
        ),
    ]


def test_elif_on_a_negation_keeps_the_users_order() -> None:
    layout = outline(graph_layout(imported("logic_with_elif")))
    assert layout[-1] == (
        "if coin_flip_2_and_not_coin_flip",
        [
            ("if coin_flip_2_and_not_coin_flip", ["flip"]),
            ("elif not compare_or_coin_flip", ["rotate"]),
            ("elif coin_flip_2_or_compare_and_coin_flip", ["brightness", "hsv"]),
            ("else", ["flip_2"]),
        ],
    )


def test_a_nested_if_is_a_block_inside_its_branch() -> None:
    assert outline(graph_layout(imported("nested_ifs")))[-1] == (
        "if coin_flip",
        [
            (
                "if coin_flip",
                [
                    "flip",
                    (
                        "if coin_flip_2",
                        [("if coin_flip_2", ["rotate"]), ("else", ["hsv"])],
                    ),
                ],
            )
        ],
    )


def test_the_node_after_the_merge_is_below_the_block() -> None:
    layout = outline(graph_layout(imported("channels_first_inside_the_branch")))
    assert layout[-2:] == [
        ("if compare", [("if compare", ["transpose", "flip", "transpose_2"])]),
        "rotate",
    ]


def test_an_unrelated_node_between_two_steps_of_a_branch_goes_above_it() -> None:
    layout = outline(graph_layout(imported("two_variables_one_if")))
    assert layout[-2:] == [
        "color_space_conversion",
        ("if coin_flip", [("if coin_flip", ["flip", "flip_2"])]),
    ]


def test_if_not_names_the_negation() -> None:
    assert outline(graph_layout(imported("unless_flipped")))[-1] == (
        "if not coin_flip",
        [("if not coin_flip", ["hsv"])],
    )


def test_applied_with_probability_and_unconditional_nodes_stay_plain() -> None:
    graph = chain(
        Node("flip", "flip", inputs=(Ref("source"),), probability=Probability(0.5, seed=1)),
        Node("crop", "crop", inputs=(Ref("flip"),)),
    )
    assert graph_layout(graph) == [
        {"kind": "node", "id": "source"},
        {"kind": "node", "id": "flip"},
        {"kind": "node", "id": "crop"},
    ]


def test_two_ifs_on_different_predicates_are_two_blocks() -> None:
    a, b = Ref("a"), Ref("b")
    graph = chain(
        Node("a", "random.coin_flip", args={"dtype": "BOOL"}),
        Node("b", "random.coin_flip", args={"dtype": "BOOL"}),
        Node("flip", "flip", inputs=(Ref("source"),), when=(Clause(a),)),
        Node("hsv", "hsv", inputs=(Ref("flip"),), when=(Clause(b),)),
        Node("crop", "crop", inputs=(Ref("hsv"),), when=(Clause(a, False),)),
    )
    # crop reads hsv (inside b's block): it cannot join a's block above it
    assert outline(graph_layout(graph))[3:] == [
        ("if a", [("if a", ["flip"])]),
        ("if b", [("if b", ["hsv"])]),
        ("if not a", [("if not a", ["crop"])]),
    ]


@pytest.mark.parametrize("name", sorted(CONDITIONALS))
def test_every_node_is_placed_once(name: str) -> None:
    graph = imported(name)
    assert sorted(node_ids(graph_layout(graph))) == sorted(graph.ids())


def test_blocks_graph_layout() -> None:
    assert outline(graph_layout(blocks_graph())) == [
        "source",
        "decode",
        "small",
        "coin",
        "angle",
        "negative",
        (
            "if coin",
            [
                ("if coin", ["flip"]),
                ("elif negative", ["rotate", "brighten"]),
                ("else", ["vflip"]),
            ],
        ),
        "crop",
        "tilt",
        ("if tilt", [("if tilt", [("if coin", [("if coin", ["hsv"])])])]),
        "blur",
    ]


def test_the_graph_view_sends_the_layout_with_the_nodes() -> None:
    from augexplorer_widgets.graph_view import GraphView

    view = GraphView()
    view.show(blocks_graph(), None, None)
    assert view.arrangement == graph_layout(blocks_graph())
    assert {d["id"] for d in view.nodes} == set(node_ids(view.arrangement))
    block = view.arrangement[6]
    assert [b["label"] for b in block["branches"]] == ["if coin", "elif negative", "else"]
    # the node keeps its own condition for anything that shows it outside a block
    assert {d["id"]: d["condition"] for d in view.nodes}["vflip"] == "if not coin and not negative"
