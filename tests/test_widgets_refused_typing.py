"""What a person typed and the panel refused stays theirs: the value in force stays on the
slider (its next step moves from there, not from the refused number), the text and its reason
stay through edits of other arguments and redraws of the editor, and go when the user changes
the value or resets it. Real DALI on the CPU; messages as the page sends them."""

from __future__ import annotations

import html
from pathlib import Path

import pytest
from augexplorer_widgets import Explorer
from augexplorer_widgets.arg_controls import ArgControl, NumberSlider, RandomEditor, RangePair
from test_widgets_panel import browser_update, find

from augexplorer.spec import Random


@pytest.fixture
def explorer(catalog, tmp_path: Path) -> Explorer:  # type: ignore[no-untyped-def]
    return Explorer("reference", batch_size=2, autosave=tmp_path / "autosave.json", catalog=catalog)


def control(explorer: Explorer, node: str, name: str) -> ArgControl:
    explorer.select(node)
    explorer.flush()
    return explorer.node_panel.controls[name]


def said(control: ArgControl) -> str:
    return html.unescape(control.message.value)


def test_a_refused_number_leaves_the_slider_at_the_value_in_force(explorer: Explorer) -> None:
    """-5 typed into resize_shorter (256) was refused, yet put the slider's handle at its low
    end (16): one arrow key on the slider then applied 17, not 257."""
    row = control(explorer, "resize", "resize_shorter")
    editor = row.editor
    assert isinstance(editor, NumberSlider)
    browser_update(editor.box, value="-5")
    explorer.flush()
    assert explorer.spec.node("resize").args["resize_shorter"] == 256.0
    assert editor.box.value == "-5" and "resize_shorter stays 256" in said(row)
    assert editor.value == 256.0 and editor.slider.value == 256.0
    browser_update(editor.slider, value=257.0)  # the slider's next step, from where it is
    explorer.flush()
    assert explorer.spec.node("resize").args["resize_shorter"] == 257.0
    assert editor.box.value == "257" and said(row) == ""


def test_the_value_in_force_typed_again_after_a_refused_one_takes_back_the_complaint(
    explorer: Explorer,
) -> None:
    row = control(explorer, "crop", "crop_pos_x")
    editor = row.editor
    assert isinstance(editor, NumberSlider)
    browser_update(editor.box, value="1.5")
    assert editor.slider.value == 0.5 and "Not applied" in said(row)
    steps = len(explorer.state.history)
    browser_update(editor.box, value="0.5")
    explorer.flush()
    assert said(row) == "" and editor.box.value == "0.5"
    assert len(explorer.state.history) == steps, "nothing changed: no undo step"


def test_a_refused_range_leaves_its_slider_where_the_range_is(
    catalog,  # type: ignore[no-untyped-def]
    tmp_path: Path,
) -> None:
    explorer = Explorer("basic", batch_size=2, autosave=tmp_path / "a.json", catalog=catalog)
    explorer.add("random_resized_crop")
    explorer.flush()
    node = next(n.id for n in explorer.spec.nodes if n.op == "random_resized_crop")
    row = control(explorer, node, "random_area")
    editor = row.editor
    assert isinstance(editor, RangePair)
    before = explorer.spec.node(node).args.get("random_area")  # DALI's default, left out
    browser_update(editor.low, value="-0.5")
    explorer.flush()
    assert explorer.spec.node(node).args.get("random_area") == before
    assert "Not applied" in said(row) and editor.low.value == "-0.5"
    assert editor.value == [0.08, 1.0] and editor.slider.value == (0.08, 1.0)


def test_a_refused_draw_stays_typed_through_an_edit_of_another_argument(
    explorer: Explorer,
) -> None:
    """'abc' typed as the angle's high end, then the fill value edited: the box went back to
    20 and the reason went, without a word."""
    row = control(explorer, "rotate", "angle")
    editor = row.editor
    assert isinstance(editor, RandomEditor)
    browser_update(editor.params["high"], value="abc")
    explorer.flush()
    assert "high: 'abc' is not a number" in said(row)
    explorer.set_arg("rotate", "fill_value", 3.0)
    explorer.flush()
    row = explorer.node_panel.controls["angle"]
    assert row.editor.params["high"].value == "abc"  # type: ignore[attr-defined]
    assert "high: 'abc' is not a number" in said(row)
    assert explorer.spec.node("rotate").args["angle"] == Random.uniform(-20.0, 20.0)
    # the editor is built anew (fill_value made random): what was typed is carried over
    explorer.set_arg("rotate", "fill_value", Random.uniform(0.0, 10.0))
    explorer.flush()
    row = explorer.node_panel.controls["angle"]
    assert row.editor.params["high"].value == "abc"  # type: ignore[attr-defined]
    assert row.editor.params["low"].value == "-20"  # type: ignore[attr-defined]
    assert "high: 'abc' is not a number" in said(row)
    # the value in force typed again takes the complaint back; a good value applies
    browser_update(row.editor.params["high"], value="20")  # type: ignore[attr-defined]
    explorer.flush()
    assert said(explorer.node_panel.controls["angle"]) == "" and row.unparsed is None
    browser_update(row.editor.params["high"], value="abc")  # type: ignore[attr-defined]
    assert "high: 'abc' is not a number" in said(row)
    browser_update(row.editor.params["high"], value="25")  # type: ignore[attr-defined]
    explorer.flush()
    assert explorer.spec.node("rotate").args["angle"] == Random.uniform(-20.0, 25.0)
    assert said(explorer.node_panel.controls["angle"]) == ""


def test_reset_takes_back_what_was_typed(explorer: Explorer) -> None:
    """'abc' typed into brightness (1, its default), then the reset button: the argument went
    back to its default, but the box still read 'abc' and the reason stayed."""
    row = control(explorer, "brightness", "brightness")
    editor = row.editor
    assert isinstance(editor, NumberSlider)
    reset = find(row, "ax-arg-reset")
    for _ in range(2):  # the argument set to its default, then left out: the same 1 in force
        browser_update(editor.box, value="abc")
        assert "'abc' is not a number" in said(row)
        reset.click()
        explorer.flush()
        row = explorer.node_panel.controls["brightness"]
        editor = row.editor
        assert isinstance(editor, NumberSlider)
        assert "brightness" not in explorer.spec.node("brightness").args
        assert editor.box.value == "1" and said(row) == ""
        assert "ax-arg-error" not in row._dom_classes
        reset = find(row, "ax-arg-reset")
