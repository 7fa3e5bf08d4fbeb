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
        elif item["kind"] == "port":
            ids += node_ids(item["items"])
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


def ported(library: str, transforms: str) -> GraphSpec:
    """The graph a port of ``Compose([transforms])`` (one line of a file) gives."""
    from augexplorer.port import albumentations, torchvision
    from augexplorer.port.reading import read_source

    module = "albumentations as A" if library == "albumentations" else "torchvision.transforms as T"
    (found,) = read_source(f"import {module}\nt = {library[0].upper()}.Compose([\n{transforms}])\n")
    port = albumentations.port if library == "albumentations" else torchvision.port
    return port(found.compose).spec


def ports(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every folded transform of a layout, at any depth."""
    found: list[dict[str, Any]] = []
    for item in items:
        if item["kind"] == "port":
            found += [item, *ports(item["items"])]
        elif item["kind"] == "block":
            for branch in item["branches"]:
                found += ports(branch["items"])
    return found


def test_a_transform_ported_to_many_nodes_is_one_item_folded_to_the_node_read_on() -> None:
    graph = ported(
        "albumentations",
        "A.HorizontalFlip(p=0.5),\nA.UnsharpMask(p=0.3),\nA.CLAHE(p=0.2),\nA.Normalize(),\n",
    )
    layout = graph_layout(graph)
    assert sorted(node_ids(layout)) == sorted(graph.ids())
    # one node a transform stays a plain node (its grade is on its box)
    assert [item["kind"] for item in layout] == ["node", "node", "node", "port", "port", "node"]
    unsharp, clahe = layout[3], layout[4]
    assert (unsharp["header"], unsharp["line"]) == ("UnsharpMask(p=0.3)", 4)
    assert (clahe["header"], clahe["line"]) == ("CLAHE(p=0.2)", 5)
    # the folded view shows the node the next transform reads
    normalize = graph.node(layout[5]["id"])
    assert [ref.node for ref in normalize.inputs] == [clahe["main"]]
    assert unsharp["main"] in [ref.node for ref in graph.node(node_ids(clahe["items"])[3]).inputs]
    for item in (unsharp, clahe):
        members = node_ids(item["items"])
        assert item["count"] == len(members) > 1 and item["main"] in members
        assert all(graph.node(m).origin.transform in item["header"] for m in members)
    # unfolded, its conditions are blocks as anywhere else: CLAHE's parts under their choice
    assert any(inner["kind"] == "block" for inner in clahe["items"])


def test_the_last_transform_folds_to_the_graphs_output() -> None:
    graph = ported("albumentations", "A.UnsharpMask(p=1),\n")
    (item,) = [i for i in graph_layout(graph) if i["kind"] == "port"]
    final = graph.final_output()
    assert final is not None and item["main"] == final.node


def test_a_wrapper_and_what_it_holds_fold_together() -> None:
    """torchvision's RandomApply([ColorJitter()]): the wrapper's coin is what the jitter's
    nodes run on, so neither folds alone (the jitter's nodes were split among four blocks)."""
    graph = ported(
        "torchvision",
        "T.RandomApply([T.ColorJitter(0.4, 0.4, 0.4, 0.1)], p=0.8),\n"
        "T.RandomAdjustSharpness(2.0, p=0.5),\n",
    )
    layout = graph_layout(graph)
    assert sorted(node_ids(layout)) == sorted(graph.ids())
    jitter, sharpness = [item for item in layout if item["kind"] == "port"]
    # what is wrapped first: the header's start is what shows on a narrow column
    assert jitter["header"] == "ColorJitter(0.4, 0.4, 0.4, 0.1) / RandomApply([ColorJitter], p=0.8)"
    assert jitter["line"] == 3
    assert (sharpness["header"], sharpness["line"]) == ("RandomAdjustSharpness(2.0, p=0.5)", 4)
    assert jitter["main"] in {ref.node for node in graph.nodes for ref in node.inputs
                              if node.id in node_ids(sharpness["items"])}  # fmt: skip


def test_a_transform_inside_another_ones_block_folds_inside_its_branch() -> None:
    """albumentations' OneOf draws which transform runs: each, on a line of its own, is folded
    in its column; written on the OneOf's line, they fold with it."""
    graph = ported(
        "albumentations",
        "A.OneOf([\n    A.UnsharpMask(p=1),\n    A.Sharpen(p=1),\n    A.CLAHE(p=1),\n], p=0.9),\n",
    )
    layout = graph_layout(graph)
    assert sorted(node_ids(layout)) == sorted(graph.ids())
    folded = {item["header"].split("(")[0]: item for item in ports(layout)}
    assert set(folded) == {"OneOf", "UnsharpMask", "Sharpen", "CLAHE"}
    # each inside the OneOf's block, with the draws it runs on (drawn whatever the OneOf drew)
    for name in ("UnsharpMask", "Sharpen", "CLAHE"):
        assert folded[name] not in layout
    assert "unsharp_size" in node_ids(folded["UnsharpMask"]["items"])
    assert folded["UnsharpMask"]["main"] == "unsharp"
    one_line = ported("albumentations", "A.OneOf([A.UnsharpMask(p=1), A.CLAHE(p=1)], p=0.9),\n")
    (item,) = graph_layout(one_line)[-1:]
    assert item["kind"] == "port" and item["header"].endswith("OneOf([UnsharpMask, CLAHE], p=0.9)")
    assert item["header"].startswith("UnsharpMask(p=1) / CLAHE(p=1)")


def test_a_graph_without_ports_has_no_folds() -> None:
    assert ports(graph_layout(blocks_graph())) == []


def test_a_compose_on_one_line_folds_each_transform_apart() -> None:
    """On one line, only the wrapper and what it holds fold together (the whole Compose was
    one frame of 31 nodes, folded to its last flip)."""
    graph = ported(
        "torchvision",
        "T.RandomApply([T.ColorJitter(0.4, 0.4, 0.4, 0.1)], p=0.8), T.RandomGrayscale(p=0.2), "
        "T.RandomHorizontalFlip(),\n",
    )
    layout = graph_layout(graph)
    assert sorted(node_ids(layout)) == sorted(graph.ids())
    headers = [item["header"] for item in ports(layout)]
    assert headers[0] == "ColorJitter(0.4, 0.4, 0.4, 0.1) / RandomApply([ColorJitter], p=0.8)"
    assert not any("RandomHorizontalFlip" in header for header in headers)
    assert "horizontal_flip" in [item["id"] for item in layout if item["kind"] == "node"]
