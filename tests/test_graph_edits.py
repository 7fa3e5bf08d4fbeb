"""Graph edits rewire every kind of edge the same way: positional inputs, argument inputs (a warp's
`matrix` read from a `transforms.*` node) and the graph's outputs."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from augexplorer import GraphSpec, Node, Probability, Ref, Session, preset
from augexplorer.catalog import load_catalog
from augexplorer.errors import GraphInvalid
from augexplorer.presets import PRESETS
from augexplorer.validate import validate


def affine() -> GraphSpec:
    return dataclasses.replace(preset("random_affine"), batch_size=2)


def edges(spec: GraphSpec) -> dict[str, list[str]]:
    """Every node's edges, positional inputs first, then argument inputs as ``arg=node``."""
    return {
        node.id: [str(r) for r in node.inputs]
        + [f"{name}={value}" for name, value in node.args.items() if isinstance(value, Ref)]
        for node in spec.operators()
    }


def test_removing_a_matrix_node_rewires_the_warp_to_what_it_read() -> None:
    spec = affine().remove("scale")
    assert edges(spec)["warp"] == ["resize", "matrix=rotation"]
    validate(spec)


def test_removing_the_first_transform_leaves_the_chain_whole() -> None:
    spec = affine().remove("rotation")
    assert edges(spec)["scale"] == []  # its only input went with the node: it starts the chain
    assert edges(spec)["warp"] == ["resize", "matrix=scale"]
    validate(spec)


def test_removing_a_node_with_no_input_drops_the_argument_it_fed() -> None:
    spec = affine().remove("scale").remove("rotation")
    assert edges(spec)["warp"] == ["resize"]
    with pytest.raises(GraphInvalid, match="warp_affine needs a transform"):
        validate(spec)  # named, not a dangling reference to a node that is gone


def test_inserting_after_a_matrix_node_feeds_the_warp_from_the_new_node() -> None:
    shear = Node("shear", "transforms.shear", args={"shear": [0.1, 0.0]})
    spec = affine().insert_after("scale", shear)
    assert edges(spec)["shear"] == ["scale"]
    assert edges(spec)["warp"] == ["resize", "matrix=shear"]
    validate(spec)


def test_renaming_follows_every_edge_and_output() -> None:
    spec = affine().rename("scale", "zoom").rename("warp", "warped")
    assert edges(spec)["warped"] == ["resize", "matrix=zoom"]
    assert spec.outputs["images"] == Ref("warped")
    with pytest.raises(ValueError, match="already exists"):
        spec.rename("zoom", "resize")


def test_a_renamed_node_draws_what_it_drew() -> None:
    # Unset seeds follow from a node's name: renaming pins them, or the same graph under
    # new names would show (and train on) other images.
    random_ops = {op.name for op in load_catalog() if op.random}
    spec = dataclasses.replace(preset("basic"), batch_size=4)
    spec = spec.insert_after(
        "resize",
        Node("zoom", "random_resized_crop", inputs=(Ref("resize"),), args={"size": [240.0, 240.0]}),
    )
    spec = spec.set_probability("rotate", Probability(0.5))
    assert all(getattr(node, "seed", None) is None for node in spec.nodes)
    before = Session(spec, device_id=None).run()
    renamed = spec
    for old, new in [("source", "photos"), ("zoom", "zoomed"), ("rotate", "tilt")]:
        renamed = renamed.rename(old, new, random_ops)
    after = Session(renamed, device_id=None).run()
    assert after.draws()["tilt"] == before.draws()["rotate"]
    assert after.files() == before.files()  # the same shuffle
    for a, b in zip(before.arrays(before.final), after.arrays(after.final), strict=True):
        np.testing.assert_array_equal(a, b)
    assert renamed.node("zoomed").seed is not None
    # a copy draws its own values, however the seeds of what it copies were set
    copied = renamed.duplicate("tilt").node("tilt_2")
    assert isinstance(copied, Node) and copied.args["angle"].seed is None
    assert copied.probability is not None and copied.probability.seed is None
    assert renamed.node("resize") == spec.node("resize")  # nodes not renamed are left as they were


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_renaming_any_node_of_a_preset_leaves_its_seeds_as_lowering_derived_them(
    name: str,
) -> None:
    random_ops = {op.name for op in load_catalog() if op.random}
    spec = preset(name)
    seeds = {s.id: s.seed for s in validate(spec).steps}
    for node in spec.nodes:
        plan = validate(spec.rename(node.id, f"{node.id}_renamed", random_ops))
        by_origin = {s.id.replace(f"{node.id}_renamed", node.id): s.seed for s in plan.steps}
        assert by_origin == seeds, node.id


def test_duplicating_a_matrix_node_puts_the_copy_in_the_chain() -> None:
    spec = affine().duplicate("scale")
    assert edges(spec)["scale_2"] == ["scale"]
    assert edges(spec)["warp"] == ["resize", "matrix=scale_2"]
    validate(spec)


def test_moving_a_transform_up_keeps_the_warp_on_the_chain_end() -> None:
    spec = affine().move("scale", -1)
    assert [n.id for n in spec.nodes][3:5] == ["scale", "rotation"]
    assert edges(spec)["scale"] == []
    assert edges(spec)["rotation"] == ["scale"]
    assert edges(spec)["warp"] == ["resize", "matrix=rotation"]
    validate(spec)


def test_each_rewired_graph_runs() -> None:
    session = Session(affine())
    session.run()
    for spec in (
        affine().remove("scale"),
        affine().insert_after(
            "scale", Node("shear", "transforms.shear", args={"shear": [0.1, 0.0]})
        ),
        affine().move("scale", -1),
        affine().duplicate("scale"),
    ):
        result = session.update(spec)
        assert len(result.arrays(spec.outputs["images"])) == 2
