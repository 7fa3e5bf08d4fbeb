"""The exported module's header lists the starting values nobody chose: the arguments of a new
operator that still hold the value it was added with (color_twist's hue 20, ...), as the panel
marks them; a value set, or a graph with none, lists nothing."""

from __future__ import annotations

import ast
import dataclasses

from augexplorer import Node, Ref, preset
from augexplorer.catalog.hints import starting_values
from augexplorer.export import generate
from augexplorer.export.starting_note import starting_note, unchosen_starting_values
from augexplorer.spec import GraphSpec, Origin

HEADING = "Starting values:"


def with_new_operators() -> GraphSpec:
    """The basic preset with color_twist and random_resized_crop added at their starting values."""
    spec = preset("basic")
    twist = Node("twist", "color_twist", (Ref("flip"),), starting_values("color_twist"))
    spec = spec.insert_after("flip", twist)
    crop = Node(
        "rrc", "random_resized_crop", (Ref("twist"),), starting_values("random_resized_crop")
    )
    return spec.insert_after("twist", crop)


def header(spec: GraphSpec) -> str:
    return ast.get_docstring(ast.parse(generate(spec))) or ""


def test_the_header_lists_each_starting_value_still_held() -> None:
    text = header(with_new_operators())
    assert HEADING in text
    assert "- twist: hue=20.0, saturation=1.4, contrast=1.2, brightness=1.1" in text
    assert "- rrc: size=[224.0, 224.0]" in text
    assert "starting value, not chosen yet" in text  # the panel's own words for them


def test_a_value_set_leaves_the_list_and_all_set_leave_no_paragraph() -> None:
    spec = with_new_operators().set_arg("twist", "hue", 0.0)
    text = header(spec)
    assert "- twist: saturation=1.4, contrast=1.2, brightness=1.1" in text
    assert "hue=" not in text
    for name, value in (("saturation", 1.0), ("contrast", 1.0), ("brightness", 1.0)):
        spec = spec.set_arg("twist", name, value)
    spec = spec.set_arg("rrc", "size", [256.0, 256.0])
    assert unchosen_starting_values(spec) == {}
    assert HEADING not in header(spec)
    # set back to the starting value: marked again, as the panel marks it
    assert unchosen_starting_values(spec.set_arg("twist", "hue", 20.0)) == {"twist": {"hue": 20.0}}


def test_the_basic_preset_has_none() -> None:
    assert starting_note(preset("basic")) == ""
    assert HEADING not in header(preset("basic"))


def test_a_ported_nodes_values_are_its_codes_own() -> None:
    spec = with_new_operators()
    twist = spec.node("twist")
    assert isinstance(twist, Node)
    origin = Origin("torchvision", "ColorJitter(hue=0.1)", "approximate", line=3)
    spec = spec.replace_node(dataclasses.replace(twist, origin=origin))
    assert set(unchosen_starting_values(spec)) == {"rrc"}


def test_an_operator_added_in_the_panel_is_listed_until_set() -> None:
    from augexplorer_widgets.explorer import Explorer

    explorer = Explorer("basic", batch_size=2, autosave=None)
    explorer.add("color_twist")
    explorer.flush()
    twist = next(n.id for n in explorer.spec.nodes if isinstance(n, Node) and n.op == "color_twist")
    assert f"- {twist}: hue=20.0, saturation=1.4" in header(explorer.spec)
