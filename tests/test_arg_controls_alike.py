"""Controls from one rule: a curated numeric argument gets the slider and box whether DALI types
it as a number or as a vector holding one value (gaussian_blur's sigma and window_size), a
vector default that only stands for "not given" is said so rather than shown as 0, and turning
"random" on from such a slider draws around its value."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from augexplorer_widgets import Explorer
from augexplorer_widgets.arg_controls import NumberSlider, RangePair, one_value

from augexplorer.catalog import Catalog
from augexplorer.spec import Random


def browser_update(widget: Any, **state: Any) -> None:
    """Exactly what the front end sends when the user changes a widget's trait."""
    widget._handle_msg(
        {
            "content": {"data": {"method": "update", "state": state, "buffer_paths": []}},
            "buffers": [],
        }
    )


@pytest.fixture
def explorer(catalog, tmp_path: Path) -> Explorer:  # type: ignore[no-untyped-def]
    explorer = Explorer("basic", batch_size=2, autosave=tmp_path / "autosave.json", catalog=catalog)
    explorer.add("gaussian_blur")
    explorer.flush()
    return explorer


def blur_id(explorer: Explorer) -> str:
    return next(n.id for n in explorer.spec.nodes if n.op == "gaussian_blur")


def test_sigma_is_a_slider_with_its_box(explorer: Explorer) -> None:
    node = blur_id(explorer)
    explorer.select(node)
    control = explorer.node_panel.controls["sigma"]
    assert isinstance(control.editor, NumberSlider)
    slider = control.editor.slider
    assert (slider.min, slider.max, slider.step) == (0, 10, 0.1)
    assert control.editor.box.value == "2"  # the starting value, a visible blur
    browser_update(control.editor.box, value="3.5")
    explorer.flush()
    assert explorer.spec.node(node).args["sigma"] == 3.5
    browser_update(explorer.node_panel.controls["sigma"].editor.slider, value=5.0)
    explorer.flush()
    assert explorer.spec.node(node).args["sigma"] == 5.0
    assert explorer.result is not None and explorer.state.ok


def test_a_vector_of_one_value_shows_on_the_slider_and_two_values_stay_text(
    explorer: Explorer,
) -> None:
    node = blur_id(explorer)
    explorer.select(node)
    explorer.set_arg(node, "sigma", [1.5])
    editor = explorer.node_panel.controls["sigma"].editor
    assert isinstance(editor, NumberSlider) and editor.value == 1.5
    explorer.set_arg(node, "sigma", [1.0, 2.0])
    editor = explorer.node_panel.controls["sigma"].editor
    assert not isinstance(editor, NumberSlider) and editor.value == "1, 2"


def test_window_size_says_not_set_rather_than_0(explorer: Explorer, catalog: Catalog) -> None:
    window = catalog["gaussian_blur"].arg("window_size")
    assert window is not None and window.default == [0] and window.default_is_placeholder
    node = blur_id(explorer)
    explorer.select(node)
    control = explorer.node_panel.controls["window_size"]
    assert "ax-arg-unset" in control.editor._dom_classes
    texts = [getattr(child, "value", "") for child in control.children]
    assert any("not set" in str(t) for t in texts), texts
    assert not any(str(t).strip() == "0" for t in texts)
    control.editor.click()  # "set": a value on the slider, odd as DALI needs
    explorer.flush()
    value = explorer.spec.node(node).args["window_size"]
    assert value == 1
    editor = explorer.node_panel.controls["window_size"].editor
    assert isinstance(editor, NumberSlider) and editor.slider.step == 2
    browser_update(editor.box, value="9")
    explorer.flush()
    assert explorer.spec.node(node).args["window_size"] == 9 and explorer.state.ok


def test_random_from_the_sigma_slider_draws_around_its_value(explorer: Explorer) -> None:
    node = blur_id(explorer)
    explorer.select(node)
    explorer.node_panel.controls["sigma"].random_toggle.value = True
    explorer.flush()
    drawn = explorer.spec.node(node).args["sigma"]
    assert isinstance(drawn, Random) and drawn.dist == "uniform"
    assert (drawn.low + drawn.high) / 2 == pytest.approx(2.0, abs=0.05) and drawn.low < drawn.high
    assert explorer.result is not None and explorer.state.ok


def test_one_value_of_each_kind(catalog: Catalog) -> None:
    sigma = catalog["gaussian_blur"].arg("sigma")
    area = catalog["random_resized_crop"].arg("random_area")
    angle = catalog["rotate"].arg("angle")
    assert sigma is not None and area is not None and angle is not None
    assert one_value(sigma, [2.0]) == 2.0 and one_value(sigma, 2.0) == 2.0
    assert one_value(sigma, [1.0, 2.0]) is None
    window = catalog["crop"].arg("crop")
    assert window is not None and window.hint is None
    assert one_value(window, [200.0]) is None  # no curated range: its list stays text
    assert one_value(area, [0.5]) == 0.5  # random_area of one value: that area, always
    assert one_value(angle, 12.5) == 12.5 and one_value(angle, "x") == 0


def test_random_area_is_a_range_slider_with_a_box_each_end(catalog, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    explorer = Explorer("basic", batch_size=2, autosave=tmp_path / "a.json", catalog=catalog)
    explorer.add("random_resized_crop")
    explorer.flush()
    node = next(n.id for n in explorer.spec.nodes if n.op == "random_resized_crop")
    explorer.select(node)
    editor = explorer.node_panel.controls["random_area"].editor
    assert isinstance(editor, RangePair)
    assert (editor.slider.min, editor.slider.max) == (0.01, 1.0)
    assert editor.value == [0.08, 1.0] and editor.slider.value == (0.08, 1.0)
    assert (editor.low.value, editor.high.value) == ("0.08", "1")
    browser_update(editor.slider, value=[0.3, 1.0])
    explorer.flush()
    assert explorer.spec.node(node).args["random_area"] == [0.3, 1.0]
    editor = explorer.node_panel.controls["random_area"].editor
    browser_update(editor.high, value="0.9")
    explorer.flush()
    assert explorer.spec.node(node).args["random_area"] == [0.3, 0.9]
    assert explorer.state.ok
    # text that is no number stays typed, says why, and changes nothing
    editor = explorer.node_panel.controls["random_area"].editor
    browser_update(editor.low, value="abc")
    explorer.flush()
    message = explorer.node_panel.controls["random_area"].message.value
    assert "Not applied" in message and "abc" in message
    assert explorer.spec.node(node).args["random_area"] == [0.3, 0.9]
    # the aspect ratio alike; the slider takes its curated range
    ratio = explorer.node_panel.controls["random_aspect_ratio"].editor
    assert isinstance(ratio, RangePair) and (ratio.slider.min, ratio.slider.max) == (0.25, 4.0)


def test_starting_values_are_marked_until_the_user_sets_them(catalog, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    explorer = Explorer("basic", batch_size=2, autosave=tmp_path / "s.json", catalog=catalog)
    explorer.add("color_twist")
    explorer.flush()
    node = next(n.id for n in explorer.spec.nodes if n.op == "color_twist")
    explorer.select(node)
    controls = explorer.node_panel.controls
    marked = {n for n, c in controls.items() if "ax-arg-starting" in c._dom_classes}
    assert marked == {"hue", "saturation", "contrast", "brightness"}
    assert controls["hue"].starting_note.layout.display != "none"
    browser_update(controls["hue"].editor.box, value="0")
    explorer.flush()
    controls = explorer.node_panel.controls
    assert "ax-arg-starting" not in controls["hue"]._dom_classes
    assert controls["hue"].starting_note.layout.display == "none"
    assert "ax-arg-starting" in controls["saturation"]._dom_classes  # the others still marked
    # an argument with no curated start is never marked
    explorer.select("rotate")
    assert not any(
        "ax-arg-starting" in c._dom_classes for c in explorer.node_panel.controls.values()
    )


def test_a_value_the_user_sets_is_never_marked_as_a_starting_value(catalog, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Typing an operator's curated starting value on a preset's node (normalize's mirror 1) is
    a choice: the row says nothing of a starting value, and stays where it was."""
    explorer = Explorer("basic", batch_size=2, autosave=tmp_path / "m.json", catalog=catalog)
    explorer.add("color_twist")
    explorer.flush()
    node = next(n.id for n in explorer.spec.nodes if n.op == "color_twist")
    explorer.select(node)
    rows = list(explorer.node_panel.controls)
    start = explorer.spec.node(node).args["hue"]
    browser_update(explorer.node_panel.controls["hue"].editor.box, value="0")
    explorer.flush()
    browser_update(explorer.node_panel.controls["hue"].editor.box, value=str(start))
    explorer.flush()
    controls = explorer.node_panel.controls
    assert explorer.spec.node(node).args["hue"] == start
    assert "ax-arg-starting" not in controls["hue"]._dom_classes  # typed: chosen
    assert controls["hue"].starting_note.layout.display == "none"
    assert "ax-arg-starting" in controls["saturation"]._dom_classes  # not typed: still marked
    explorer.select("rotate")
    explorer.select(node)  # built again: still chosen
    assert "ax-arg-starting" not in explorer.node_panel.controls["hue"]._dom_classes
    assert list(explorer.node_panel.controls) == rows


def test_setting_an_argument_leaves_the_rows_in_their_order(catalog, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    explorer = Explorer("basic", batch_size=2, autosave=tmp_path / "o.json", catalog=catalog)
    explorer.select("crop")
    rows = list(explorer.node_panel.controls)
    assert rows.index("crop_pos_y") > rows.index("crop_h")  # shown below crop_h, unset
    explorer.set_arg("crop", "crop_pos_y", 0.3)
    explorer.flush()
    assert explorer.spec.node("crop").args["crop_pos_y"] == 0.3
    assert list(explorer.node_panel.controls) == rows  # not moved up among the set ones
