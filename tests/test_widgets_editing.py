"""The editing side of the panel through its traits: the picker, new nodes' controls, the
distribution editors, the fixes errors suggest, the undo history and the highlighted code."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import ipywidgets as widgets
import pytest
from augexplorer_widgets import Explorer
from augexplorer_widgets.arg_controls import NumberSlider, RandomEditor, make_random, number_box
from augexplorer_widgets.code_view import highlighted
from augexplorer_widgets.node_panel import starting_value
from augexplorer_widgets.op_picker import HIDDEN_GROUP, group_of
from test_widgets_panel import find

from augexplorer.catalog import Catalog
from augexplorer.spec import Node, Random


def browser_update(widget: Any, **state: Any) -> None:
    """Exactly what the front end sends when the user changes a widget."""
    widget._handle_msg(
        {
            "content": {"data": {"method": "update", "state": state, "buffer_paths": []}},
            "buffers": [],
        }
    )


def click(widget: Any, content: dict[str, Any]) -> None:
    """A custom message from the front end (the picker's click)."""
    widget._handle_msg(
        {"content": {"data": {"method": "custom", "content": content}}, "buffers": []}
    )


def classes_under(root: Any) -> set[str]:
    found = set(getattr(root, "_dom_classes", ()))
    for child in getattr(root, "children", ()):
        found |= classes_under(child)
    return found


@pytest.fixture
def explorer(catalog: Catalog, tmp_path: Path) -> Explorer:
    return Explorer("basic", batch_size=2, autosave=tmp_path / "autosave.json", catalog=catalog)


def test_picker_groups_by_what_operators_do_and_hides_audio_video_readers(
    explorer: Explorer,
) -> None:
    catalog = explorer.controller.catalog
    assert group_of(catalog["hsv"]) == "colour"
    assert group_of(catalog["rotate"]) == "geometry"
    assert group_of(catalog["crop"]) == "crop and resize"
    assert group_of(catalog["gaussian_blur"]) == "blur and noise"
    assert group_of(catalog["random.uniform"]) == "random"
    assert group_of(catalog["transforms.rotation"]) == "transforms"
    assert group_of(catalog["mfcc"]) == HIDDEN_GROUP
    assert group_of(catalog["readers.file"]) == HIDDEN_GROUP
    listed = {item["name"] for item in explorer.picker.matches("")}
    assert "hsv" in listed and "mfcc" not in listed and "readers.file" not in listed
    assert "mfcc" in {item["name"] for item in explorer.picker.matches("mfcc")}  # searched for
    # every word, anywhere in the name (its parts read as words) or the summary
    assert "random_resized_crop" in {i["name"] for i in explorer.picker.matches("random crop")}
    assert "gaussian_blur" in {i["name"] for i in explorer.picker.matches("blur gaussian")}
    assert explorer.picker.matches("rotate zzz") == []
    browser_update(explorer.picker, show_hidden=True)
    assert "readers.file" in {item["name"] for item in explorer.picker.matches("")}


def test_picker_greys_what_cannot_go_at_the_selection_with_the_reason(
    catalog: Catalog, tmp_path: Path
) -> None:
    explorer = Explorer("imagenet_val", batch_size=2, autosave=tmp_path / "a.json", catalog=catalog)
    browser_update(explorer.graph, selected="normalize")  # CHW float
    water = explorer.picker.item("water")
    assert water is not None and not water["fits"]
    assert water["reason"] == "water takes HWC images; here they are CHW"
    assert "Adds after normalize" in explorer.picker.where
    assert explorer.picker.matches("")[0]["fits"]  # what fits is listed first
    click(explorer.picker, {"add": "water"})
    assert "water" not in explorer.spec
    assert "HWC" in explorer.picker.message


def test_an_image_operator_picked_at_the_source_goes_after_the_decoder(
    explorer: Explorer,
) -> None:
    browser_update(explorer.graph, selected="source")
    item = explorer.picker.item("hsv")
    assert item is not None and item["fits"] and "after decode" in item["note"]
    click(explorer.picker, {"add": "hsv"})
    assert explorer.spec.node("hsv").inputs[0].node == "decode"
    assert explorer.state.ok, explorer.state.failure
    # a new hsv shows its controls and starts with a visible effect
    assert {"hue", "saturation", "value"} <= set(explorer.node_panel.controls)
    assert explorer.spec.node("hsv").args["hue"] == 30.0


def test_distribution_editors_have_visible_labels(explorer: Explorer) -> None:
    browser_update(explorer.graph, selected="rotate")
    control = explorer.node_panel.controls["angle"]
    assert isinstance(control.editor, RandomEditor)
    assert {"ax-param-low", "ax-param-high"} <= classes_under(control.editor)
    browser_update(control.editor.dist, index=control.editor.dist.options.index("normal"))
    explorer.flush()
    editor = explorer.node_panel.controls["angle"].editor
    assert {"ax-param-mean", "ax-param-stddev"} <= classes_under(editor)
    # the normal starts from the range it replaces (U(-20, 20)), not from N(0, 1)
    normal = explorer.spec.node("rotate").args["angle"]
    assert (normal.dist, normal.mean, normal.stddev) == ("normal", 0.0, 10.0)
    browser_update(editor.dist, index=editor.dist.options.index("choice"))
    explorer.flush()
    editor = explorer.node_panel.controls["angle"].editor
    assert {"ax-param-values", "ax-param-weights"} <= classes_under(editor)
    # a choice of one value would draw it every time: it starts from the gentle range's ends
    assert explorer.spec.node("rotate").args["angle"].values == (-18.0, 0.0, 18.0)


def test_random_starts_around_the_current_value(catalog: Catalog) -> None:
    hue = catalog["hue"].arg("hue")  # curated -180..180
    drawn = make_random(hue, 163.0)
    assert drawn.low < 163.0 < drawn.high
    assert 163.0 - drawn.low == pytest.approx(drawn.high - 163.0)
    assert drawn.high <= 180.0
    assert make_random(hue, 0.0) == Random.uniform(-36.0, 36.0)
    assert make_random(None, 50.0) == Random.uniform(40.0, 60.0)


def test_random_from_a_value_between_steps_is_centred_on_it(catalog: Catalog) -> None:
    """-12.5 on a slider of whole degrees: each end rounded alone gave U(-30, 6), centred on -12;
    the high end mirrors the low one, so the range is centred on the value itself."""
    angle = catalog["rotate"].arg("angle")  # curated -90..90 in whole degrees
    assert make_random(angle, -12.5) == Random.uniform(-30.0, 5.0)
    for value in (-89.5, -12.5, -0.5, 0.0, 7.5, 33.0, 89.5):
        drawn = make_random(angle, value)
        assert (drawn.low + drawn.high) / 2 == pytest.approx(value, abs=0.5), (value, drawn)
        assert -90.0 <= drawn.low < drawn.high <= 90.0, (value, drawn)
        assert drawn.low == round(drawn.low) and drawn.high == round(drawn.high)


def test_random_starts_on_the_slider_s_steps(catalog: Catalog) -> None:
    """The range slider moves on the hint's steps: a range between them would be shown as
    another one than the one drawn from."""
    contrast = catalog["contrast"].arg("contrast")  # curated 0..3 in steps of 0.05
    drawn = make_random(contrast, 1.33)
    assert drawn == Random.uniform(1.05, 1.6)  # centred on 1.325, the nearest the steps allow
    for value in (0.0, 0.01, 0.33, 1.0, 2.97, 3.0):
        drawn = make_random(contrast, value)
        for end in (drawn.low, drawn.high):
            assert round(end / 0.05, 6) == round(end / 0.05), (value, drawn)
        assert 0.0 <= drawn.low < drawn.high <= 3.0, (value, drawn)


def test_sliders_move_in_fine_steps(explorer: Explorer) -> None:
    browser_update(explorer.graph, selected="resize")
    explorer.controller.set_arg("rotate", "angle", 10.0)
    browser_update(explorer.graph, selected="rotate")
    slider = explorer.node_panel.controls["angle"].editor.slider
    assert slider.step == 1 and slider.max - slider.min <= 180


def test_one_step_from_a_value_between_steps_lands_on_the_next_step(explorer: Explorer) -> None:
    # 14.5 on a slider of whole degrees shows at 15; an arrow key moves the page's handle to 16,
    # which is a step and a half from the value the box says: the step next to 14.5 is meant.
    browser_update(explorer.graph, selected="rotate")
    for key, expected in [(16.0, 15.0), (14.0, 14.0)]:
        explorer.set_arg("rotate", "angle", 14.5)
        slider = explorer.node_panel.controls["angle"].editor.slider
        assert slider.step == 1
        browser_update(slider, value=15.0)  # the page showing 14.5 on its steps: no edit
        explorer.flush()
        assert explorer.spec.node("rotate").args["angle"] == 14.5
        browser_update(slider, value=key)
        explorer.flush()
        assert explorer.spec.node("rotate").args["angle"] == expected
    browser_update(slider, value=15.0)  # from a value on a step, a step is a step
    explorer.flush()
    assert explorer.spec.node("rotate").args["angle"] == 15.0
    explorer.set_arg("rotate", "angle", 14.5)
    slider = explorer.node_panel.controls["angle"].editor.slider
    browser_update(slider, value=20.0)  # a drag lands where the handle went
    explorer.flush()
    assert explorer.spec.node("rotate").args["angle"] == 20.0


def test_an_integer_slider_stepping_from_between_its_steps_stays_an_integer() -> None:
    control = NumberSlider(widgets.IntSlider(min=1, max=31, step=2, readout=False), number_box(), 6)
    browser_update(control.slider, value=7)  # the page showing 6 on its odd steps
    browser_update(control.slider, value=9)  # one step on: the odd step next to 6
    assert control.value == 7 and isinstance(control.value, int)


def test_skip_bad_files_is_a_switch_on_the_source(explorer: Explorer) -> None:
    browser_update(explorer.graph, selected="source")
    switch = explorer.node_panel.skip_bad
    assert switch.value is False
    browser_update(switch, value=True)
    explorer.flush()
    assert explorer.spec.sources()[0].skip_bad is True
    assert "skip bad files" in explorer.state.history[-1].label
    explorer.undo()
    assert explorer.spec.sources()[0].skip_bad is False
    assert explorer.node_panel.skip_bad.value is False


def test_a_misplaced_operator_offers_to_move_after_the_decoder(
    catalog: Catalog, tmp_path: Path
) -> None:
    explorer = Explorer("basic", batch_size=2, autosave=tmp_path / "a.json", catalog=catalog)
    spec = explorer.spec.insert_after("source", Node("blur", "gaussian_blur", args={"sigma": 2.0}))
    explorer.controller.replace(spec)
    explorer.select("blur")
    panel = explorer.node_panel
    assert "encoded" in panel.misplaced.value
    assert panel.move_after_decoder.description == "Move after decode"
    panel.move_after_decoder.click()
    assert explorer.spec.node("blur").inputs[0].node == "decode"
    assert explorer.state.ok, explorer.state.failure
    assert panel.fix_row.layout.display == "none"


def panel_text(explorer: Explorer) -> str:
    panel = explorer.node_panel
    return panel.node_error.value + panel.misplaced.value


def test_an_input_that_cannot_be_read_is_said_once(catalog: Catalog, tmp_path: Path) -> None:
    explorer = Explorer("basic", batch_size=2, autosave=tmp_path / "a.json", catalog=catalog)
    explorer.select("rotate")
    explorer.node_panel.actions.rewire("rotate", 0, "source")
    explorer.flush()
    # no decoder to move after: said with its fix among the node's problems
    assert panel_text(explorer).count("takes HWC images") == 1
    assert "(fix: connect it to a node whose output it can read)" in panel_text(explorer)
    # with another problem on the node, validation names only that one: the input's is kept
    explorer.set_arg("rotate", "interp_type", "NOT_A_MODE")
    explorer.flush()
    failure = explorer.state.failure
    assert failure is not None and "NOT_A_MODE" in str(failure.problems)
    assert "takes HWC images" not in str(failure.problems)
    assert panel_text(explorer).count("takes HWC images") == 1
    explorer.undo()
    explorer.undo()
    blurred = explorer.spec.insert_after("source", Node("blur", "gaussian_blur"))
    explorer.controller.replace(blurred)
    explorer.select("blur")
    # beside the button that moves it after the decoder
    assert panel_text(explorer).count("encoded image files") == 1
    assert explorer.node_panel.misplaced.value.count("encoded image files") == 1


def test_the_history_lists_what_each_step_did_and_jumps_back(explorer: Explorer) -> None:
    explorer.set_arg("rotate", "fill_value", 40.0)
    explorer.add("hsv", after="crop")
    labels = [step.label for step in explorer.state.history]
    assert labels == ["start: basic", "rotate.fill_value = 40", "added hsv after crop"]
    options = explorer.toolbar.history.options
    assert options[-1][0] == "2. added hsv after crop  ◀ now"
    browser_update(explorer.toolbar.history, index=1)
    assert "hsv" not in explorer.spec
    assert explorer.spec.node("rotate").args["fill_value"] == 40.0
    assert explorer.toolbar.history.options[-1][0].endswith("(undone)")


def test_exported_code_is_highlighted() -> None:
    out = highlighted("def f(x):\n    return x + 1  # one\n")
    assert out.startswith("<pre class='ax-code ax-highlight'>")
    assert '<span class="k">def</span>' in out and '<span class="c1"># one</span>' in out


def test_what_the_picker_said_goes_when_the_selection_moves(explorer: Explorer) -> None:
    browser_update(explorer.graph, selected="source")
    explorer.picker.pick("gaussian_blur")
    explorer.flush()
    assert explorer.picker.message.startswith("Added gaussian_blur: placed after decode")
    shown = explorer.picker.message
    explorer.flush()
    assert explorer.picker.message == shown  # the add's own redraw keeps it
    browser_update(explorer.graph, selected="crop")
    explorer.flush()
    assert explorer.picker.message == ""


def boxes_with_tooltips(root: Any) -> list[Any]:
    """Boxes under `root` given a tooltip: ipywidgets' box view fails to draw one (the page
    shows "Failed to create view" in its place)."""
    found = [root] if isinstance(root, widgets.Box) and root.tooltip is not None else []
    for child in getattr(root, "children", ()):
        found += boxes_with_tooltips(child)
    return found


def test_a_coin_flip_is_offered_only_where_dali_can_draw_it(explorer: Explorer) -> None:
    """DALI's random.coin_flip draws bool, uint8 or int32: a float argument is not offered one,
    and a spec that asks for one anyway is refused by name with the choice that does it."""
    browser_update(explorer.graph, selected="rotate")
    angle = explorer.node_panel.controls["angle"].editor
    assert isinstance(angle, RandomEditor)
    assert "coin_flip" not in angle.dist.options and "choice" in angle.dist.options
    browser_update(explorer.graph, selected="flip")
    horizontal = explorer.node_panel.controls["horizontal"].editor  # int32
    assert isinstance(horizontal, RandomEditor) and "coin_flip" in horizontal.dist.options
    assert boxes_with_tooltips(explorer) == []

    state = explorer.set_arg("rotate", "angle", Random.coin_flip(0.3))
    assert state.failure is not None and state.failure.kind == "invalid"  # before DALI runs
    message = state.failure.argument_messages("rotate")["angle"]
    assert "bool, uint8 or int32" in message
    assert "choice: values 0, 1 and weights 0.7, 0.3" in message


def test_the_page_snapping_a_slider_to_its_steps_is_not_an_edit(explorer: Explorer) -> None:
    """Drawn on the page, a slider puts its value on ``min + n * step`` in floating point and
    sends it back (-20 as -19.999999999999986): selecting a node, undoing or redoing must not
    turn that into a step of the history (which would also drop the steps to redo)."""
    browser_update(explorer.graph, selected="rotate")
    spec, steps = explorer.spec, len(explorer.state.history)
    editor = explorer.node_panel.controls["angle"].editor
    assert isinstance(editor, RandomEditor) and editor.random == Random.uniform(-20.0, 20.0)
    slider = editor.params["range"]
    browser_update(slider, value=[-19.999999999999986, 20.000000000000014])
    explorer.flush()
    assert explorer.spec is spec and len(explorer.state.history) == steps

    # a real move of one end keeps the other exact, and drops the page's float noise
    browser_update(slider, value=[-15.000000000000002, 20.000000000000014])
    explorer.flush()
    assert explorer.spec.node("rotate").args["angle"] == Random.uniform(-15.0, 20.0)
    assert editor.params["low"].value == "-15"
    explorer.undo()
    assert explorer.state.can_redo
    editor = explorer.node_panel.controls["angle"].editor
    browser_update(editor.params["range"], value=[-19.999999999999986, 20.0])  # redrawn
    explorer.flush()
    assert explorer.state.can_redo, "the redo step must survive the page redrawing a slider"

    # a value between the slider's steps comes back on the nearest step: still no edit
    explorer.set_arg("rotate", "angle", Random.uniform(-20.5, 20.25))
    editor = explorer.node_panel.controls["angle"].editor
    spec, steps = explorer.spec, len(explorer.state.history)
    browser_update(editor.params["range"], value=[-20.0, 20.0])  # -20.5 rounds half up
    explorer.flush()
    assert explorer.spec is spec and len(explorer.state.history) == steps
    browser_update(editor.params["range"], value=[-19.0, 20.0])  # the low end moved a step on
    explorer.flush()
    assert explorer.spec.node("rotate").args["angle"] == Random.uniform(-19.0, 20.25)
    # a range typed beyond the scale widens it by whole steps: the ends stay on them
    explorer.set_arg("rotate", "angle", Random.uniform(-200.0, 20.0))
    slider = explorer.node_panel.controls["angle"].editor.params["range"]
    assert slider.min == -200.0 and slider.value == (-200.0, 20.0)
    # the node's probability: 0.3333 shows as 0.33 on its slider of 0.01 steps
    explorer.controller.set_probability("rotate", 0.3333)
    browser_update(explorer.graph, selected="crop")
    browser_update(explorer.graph, selected="rotate")
    spec = explorer.spec
    browser_update(explorer.node_panel.probability.slider, value=0.33)
    explorer.flush()
    assert explorer.spec is spec and explorer.spec.node("rotate").probability.p == 0.3333
    browser_update(explorer.node_panel.probability.slider, value=0.34)
    explorer.flush()
    assert explorer.spec.node("rotate").probability.p == 0.34

    # a number slider: snapped, or shown at its end for a value beyond its range
    browser_update(explorer.graph, selected="flip")
    explorer.set_arg("rotate", "fill_value", 300.0)
    browser_update(explorer.graph, selected="rotate")
    fill = explorer.node_panel.controls["fill_value"].editor
    assert isinstance(fill, NumberSlider) and fill.slider.value == fill.slider.max
    spec = explorer.spec
    browser_update(fill.slider, value=fill.slider.max - 1e-13)
    explorer.flush()
    assert explorer.spec is spec and fill.box.value == "300"
    browser_update(fill.slider, value=fill.slider.max - 10 + 3e-14)
    explorer.flush()
    assert explorer.spec.node("rotate").args["fill_value"] == fill.slider.max - 10


def sent_values(widget: Any, monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The values `widget` sends the page of its own accord (echoes of the page's own
    messages left out)."""
    sent: list[Any] = []
    send = widget._send

    def recording(msg: dict[str, Any], buffers: Any = None) -> None:
        if msg.get("method") == "update" and "value" in msg.get("state", {}):
            sent.append(msg["state"]["value"])
        send(msg, buffers)

    monkeypatch.setattr(widget, "_send", recording)
    return sent


def test_a_slider_never_sends_the_page_back_its_own_value_cleaned(
    explorer: Explorer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The page sends 14.999999999999998 for 15. Sending the clean 15 back would reach the page
    after the user's next key presses or drag, and pull the handle back to 15."""
    browser_update(explorer.graph, selected="rotate")
    fill = explorer.node_panel.controls["fill_value"].editor
    assert isinstance(fill, NumberSlider)
    sent = sent_values(fill.slider, monkeypatch)
    browser_update(fill.slider, value=14.999999999999998)
    explorer.flush()
    assert explorer.spec.node("rotate").args["fill_value"] == 15.0 and fill.box.value == "15"
    assert sent == []
    explorer.undo()  # a value from elsewhere still goes to the page
    assert sent == [0.0]

    angle = explorer.node_panel.controls["angle"].editor
    assert isinstance(angle, RandomEditor)
    sent = sent_values(angle.params["range"], monkeypatch)
    browser_update(angle.params["range"], value=[-15.000000000000002, 20.000000000000014])
    explorer.flush()
    browser_update(explorer.graph, selected="rotate")  # the panel redrawn around the editor
    assert explorer.spec.node("rotate").args["angle"] == Random.uniform(-15.0, 20.0)
    assert sent == []


def test_an_unset_argument_without_a_default_says_what_dali_does_instead(
    explorer: Explorer,
) -> None:
    """rotate without fill_value repeats the border pixels, which no value gives: the row
    says so (from DALI's doc) rather than showing a made-up 0, and "set" gives it a value."""
    explorer.add("rotate", after="flip")
    rotate = explorer.state.selected
    assert rotate is not None and "fill_value" not in explorer.spec.node(rotate).args
    control = explorer.node_panel.controls["fill_value"]
    assert "ax-arg-unset" in control.editor._dom_classes
    note = find(control, "ax-arg-unset-note")
    assert "not set: the source coordinates are clamped and the border pixel is repeated" in (
        note.value
    )
    assert find(control, "ax-number") is None  # no slider pretending to hold a value
    find(control, "ax-arg-set").click()
    explorer.flush()
    assert explorer.spec.node(rotate).args["fill_value"] == 0.0
    assert isinstance(explorer.node_panel.controls["fill_value"].editor, NumberSlider)
    explorer.undo()
    assert "ax-arg-unset" in explorer.node_panel.controls["fill_value"].editor._dom_classes


def test_a_set_argument_starts_from_the_curated_starter_and_a_vector_as_a_vector(
    catalog: Catalog,
) -> None:
    assert starting_value(catalog["transforms.shear"], "angles") == [10.0, 0.0]
    assert starting_value(catalog["transforms.scale"], "center") == [0.0, 0.0]
    assert starting_value(catalog["pad"], "shape") == [0, 0]
    assert starting_value(catalog["crop"], "crop_pos_x") == 0.5  # DALI's default


def test_a_required_argument_left_out_shows_no_value_and_offers_no_reset(
    explorer: Explorer, catalog: Catalog
) -> None:
    """Found in a trial: rotate's angle reset (its x) showed 0 in the box while the graph had no
    angle and said it was required."""
    info = catalog.get("rotate")
    assert info is not None and info.arg("angle").required
    explorer._render(explorer.controller.select("rotate"))
    explorer.node_panel.controls["angle"].random_toggle.value = False  # a constant angle
    explorer.flush()
    reset = find(explorer.node_panel.controls["angle"], "ax-arg-reset")
    assert reset is not None and reset.layout.display == "none"  # nothing to leave it out with
    explorer._now(lambda: explorer.controller.unset_arg("rotate", "angle"))  # a graph written so
    explorer.flush()
    assert "angle" not in explorer.spec.node("rotate").args
    control = explorer.node_panel.controls["angle"]
    assert control.editor.description == "set"  # a button, not a made-up 0
    assert "required" in find(control, "ax-arg-unset-note").value
    control.editor.click()
    explorer.flush()
    assert "angle" in explorer.spec.node("rotate").args
