"""Text typed into an argument's box and refused stays the user's when they look at another
node and come back: -5 typed into resize's resize_shorter was kept through edits of the node's
other arguments, but selecting another node and coming back showed 256 and no reason, as if
nothing had been typed. It stays (box, reason, outline) until the user changes the value,
resets it, or the graph changes it some other way (undo); the graph keeps the value in force.
Real DALI on the CPU; messages as the page sends them."""

from __future__ import annotations

import html
from pathlib import Path

import pytest
from augexplorer_widgets import Explorer
from augexplorer_widgets.arg_controls import ArgControl, NumberSlider, RandomEditor
from test_widgets_panel import browser_update, choose, find

from augexplorer.spec import Random


@pytest.fixture
def explorer(catalog, tmp_path: Path) -> Explorer:  # type: ignore[no-untyped-def]
    return Explorer("reference", batch_size=2, autosave=tmp_path / "autosave.json", catalog=catalog)


def control(explorer: Explorer, node: str, name: str) -> ArgControl:
    explorer.select(node)
    explorer.flush()
    return explorer.node_panel.controls[name]


def number_box(row: ArgControl) -> str:
    assert isinstance(row.editor, NumberSlider)
    return str(row.editor.box.value)


def said(row: ArgControl) -> str:
    return html.unescape(row.message.value)


def shows_refused(row: ArgControl, typed: str, stays: str) -> None:
    """The box holds what was typed, and the row says, outlined, that it was not applied."""
    assert number_box(row) == typed
    assert said(row).startswith("⚠ Not applied") and stays in said(row), said(row)
    assert "ax-arg-error" in row._dom_classes


def shows_applied(row: ArgControl, value: str) -> None:
    assert number_box(row) == value and said(row) == ""
    assert "ax-arg-error" not in row._dom_classes


def type_refused(explorer: Explorer, node: str, name: str, text: str) -> None:
    browser_update(control(explorer, node, name).editor.box, value=text)  # type: ignore[attr-defined]
    explorer.flush()


def test_a_refused_number_is_kept_while_another_node_is_selected(explorer: Explorer) -> None:
    type_refused(explorer, "resize", "resize_shorter", "-5")
    for elsewhere in ("rotate", None, "source"):  # another node, none, the data source
        explorer.select(elsewhere)
        explorer.flush()
        row = control(explorer, "resize", "resize_shorter")
        shows_refused(row, "-5", "resize_shorter stays 256")
        assert explorer.spec.node("resize").args["resize_shorter"] == 256.0
        assert isinstance(row.editor, NumberSlider) and row.editor.slider.value == 256.0
    # a good value typed takes its place, and is what shows from then on
    browser_update(row.editor.box, value="300")
    explorer.flush()
    assert explorer.spec.node("resize").args["resize_shorter"] == 300.0
    control(explorer, "rotate", "angle")
    shows_applied(control(explorer, "resize", "resize_shorter"), "300")


def test_a_refused_draw_is_kept_while_another_node_is_selected(explorer: Explorer) -> None:
    row = control(explorer, "rotate", "angle")
    assert isinstance(row.editor, RandomEditor)
    browser_update(row.editor.params["high"], value="abc")
    explorer.flush()
    control(explorer, "crop", "crop_pos_x")
    row = control(explorer, "rotate", "angle")
    assert isinstance(row.editor, RandomEditor)
    assert row.editor.params["high"].value == "abc"
    assert "high: 'abc' is not a number" in said(row) and "ax-arg-error" in row._dom_classes
    assert explorer.spec.node("rotate").args["angle"] == Random.uniform(-20.0, 20.0)


def test_reset_takes_back_what_was_typed_for_good(explorer: Explorer) -> None:
    type_refused(explorer, "brightness", "brightness", "abc")
    find(control(explorer, "brightness", "brightness"), "ax-arg-reset").click()
    explorer.flush()
    control(explorer, "rotate", "angle")
    shows_applied(control(explorer, "brightness", "brightness"), "1")


def test_undo_of_the_argument_elsewhere_takes_back_what_was_typed(explorer: Explorer) -> None:
    """The value the text was refused against undone while another node was shown: the box
    shows the value in force, and redo (the same value again) does not bring the text back."""
    row = control(explorer, "resize", "resize_shorter")
    browser_update(row.editor.box, value="300")  # type: ignore[attr-defined]
    explorer.flush()
    type_refused(explorer, "resize", "resize_shorter", "-5")
    control(explorer, "rotate", "angle")
    explorer.undo()
    explorer.flush()
    assert explorer.spec.node("resize").args["resize_shorter"] == 256.0
    explorer.redo()
    explorer.flush()
    shows_applied(control(explorer, "resize", "resize_shorter"), "300")
    control(explorer, "rotate", "angle")
    explorer.undo()
    explorer.flush()
    shows_applied(control(explorer, "resize", "resize_shorter"), "256")


def test_another_graph_picked_takes_back_what_was_typed_for_this_one(
    catalog,  # type: ignore[no-untyped-def]
    tmp_path: Path,
) -> None:
    """imagenet_val's resize holds the 256 the basic graph's did: text typed for the basic
    graph is not shown on it."""
    explorer = Explorer("basic", batch_size=2, autosave=tmp_path / "a.json", catalog=catalog)
    type_refused(explorer, "resize", "resize_shorter", "-5")
    choose(explorer.toolbar.preset, "imagenet_val")
    explorer.flush()
    assert explorer.spec.node("resize").args["resize_shorter"] == 256.0
    shows_applied(control(explorer, "resize", "resize_shorter"), "256")
