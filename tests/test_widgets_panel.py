"""The whole panel through its widgets' traits and the messages a browser would send."""

from __future__ import annotations

import html
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from augexplorer_widgets import Explorer
from augexplorer_widgets import export_view as export_module
from augexplorer_widgets.autosave import Autosave
from augexplorer_widgets.explorer import PANEL_SETTLE_S
from test_widgets import in_own_thread

from augexplorer.catalog import Catalog
from augexplorer.data import samples_dir
from augexplorer.spec import Random

JPEG = b"\xff\xd8"


def browser_update(widget: Any, **state: Any) -> None:
    """Exactly what the front end sends when the user changes a widget."""
    widget._handle_msg(
        {
            "content": {"data": {"method": "update", "state": state, "buffer_paths": []}},
            "buffers": [],
        }
    )


def choose(dropdown: Any, value: str) -> None:
    """Pick `value` in a dropdown as the browser does (it sends the option's index)."""
    values = [option[1] if isinstance(option, tuple) else option for option in dropdown.options]
    browser_update(dropdown, index=values.index(value))


def sample_classes() -> set[str]:
    return {p.name for p in samples_dir().iterdir() if p.is_dir()}


def find(root: Any, css: str) -> Any:
    """The widget under `root` that carries the CSS class `css` (the browser tests' hooks)."""
    if css in getattr(root, "_dom_classes", ()):
        return root
    for child in getattr(root, "children", ()):
        found = find(child, css)
        if found is not None:
            return found
    return None


@pytest.fixture
def explorer(catalog, tmp_path: Path) -> Explorer:  # type: ignore[no-untyped-def]
    return Explorer("basic", batch_size=4, autosave=tmp_path / "autosave.json", catalog=catalog)


def test_panel_shows_graph_grid_and_timing(explorer: Explorer) -> None:
    explorer.flush()
    assert [n["id"] for n in explorer.graph.nodes] == explorer.spec.ids()
    assert all(n["time_ms"] is not None for n in explorer.graph.nodes)
    assert explorer.grid.pictures[0][:2] == JPEG
    assert "ax-bar-row" in explorer.timing.chart.value
    assert explorer.timing.chart.value.count("ax-bar-row") == len(explorer.spec.ids())
    assert "steps" in explorer.toolbar.status.value
    assert "ax-explorer" in explorer._dom_classes


def test_clicking_a_node_shows_its_output_and_arguments(explorer: Explorer) -> None:
    final_grid = explorer.grid.pictures
    browser_update(explorer.graph, selected="resize")
    assert explorer.state.selected == "resize"
    assert "resize_shorter" in explorer.node_panel.controls
    assert "resize" in explorer.grid.caption.value
    assert explorer.grid.pictures != final_grid


def test_slider_message_reruns_and_changes_the_grid(explorer: Explorer) -> None:
    browser_update(explorer.graph, selected="rotate")
    before = explorer.grid.pictures
    slider = explorer.node_panel.controls["fill_value"].editor.slider
    for value in (40.0, 80.0, 120.0):
        browser_update(slider, value=value)
    explorer.flush()
    assert explorer.spec.node("rotate").args["fill_value"] == 120.0
    assert explorer.result is not None
    assert explorer.result.plan.spec.node("rotate").args["fill_value"] == 120.0
    assert explorer.grid.pictures != before
    # The drag is one undo step.
    explorer.toolbar.undo.click()
    assert explorer.spec.node("rotate").args["fill_value"] == 0.0
    assert explorer.node_panel.controls["fill_value"].editor.value == 0.0


def test_random_toggle_and_distribution_controls(explorer: Explorer) -> None:
    browser_update(explorer.graph, selected="rotate")
    control = explorer.node_panel.controls["angle"]
    browser_update(control.random_toggle, value=False)
    assert explorer.spec.node("rotate").args["angle"] == 0.0
    browser_update(explorer.node_panel.controls["angle"].random_toggle, value=True)
    angle = explorer.spec.node("rotate").args["angle"]
    assert angle.dist == "uniform"
    editor = explorer.node_panel.controls["angle"].editor
    browser_update(editor.params["range"], value=[-5.0, 5.0])
    assert explorer.spec.node("rotate").args["angle"].high == 5.0
    assert explorer.state.ok


def test_add_operator_from_the_picker_then_undo(explorer: Explorer) -> None:
    browser_update(explorer.graph, selected="rotate")
    assert explorer.picker.matches("gaussian_blur")[0]["name"] == "gaussian_blur"
    assert explorer.picker.pick("gaussian_blur")  # one click
    assert "gaussian_blur" in explorer.spec and explorer.state.ok
    assert explorer.spec.node("gaussian_blur").inputs[0].node == "rotate"
    assert explorer.state.selected == "gaussian_blur"
    views_show(explorer, "gaussian_blur", True)
    explorer.toolbar.undo.click()
    assert "gaussian_blur" not in explorer.spec
    views_show(explorer, "gaussian_blur", False)  # every view follows the undo
    explorer.toolbar.redo.click()
    assert "gaussian_blur" in explorer.spec
    views_show(explorer, "gaussian_blur", True)


def views_show(explorer: Explorer, node: str, shown: bool) -> None:
    """Whether the graph, the timing chart, the picker's insertion point and the history all
    show `node` (once the panel, redrawn a moment after the grid, has settled)."""
    explorer.flush()
    assert (node in [n["id"] for n in explorer.graph.nodes]) is shown
    assert (f"data-node='{node}'" in explorer.timing.chart.value) is shown
    assert (node in explorer.picker.where) is shown, explorer.picker.where
    history = [label for label, _ in explorer.toolbar.history.options]
    now = next(label for label, index in explorer.toolbar.history.options if "now" in label)
    assert (node in now) is shown, history


def test_unavailable_operators_are_listed_with_their_reason(explorer: Explorer) -> None:
    unavailable = [op for op in explorer.controller.catalog if not op.available]
    if not unavailable:
        pytest.skip("every operator runs on this machine")
    item = explorer.picker.item(unavailable[0].name)
    assert item is not None and not item["fits"]
    assert item["reason"] == str(unavailable[0].unavailable_reason)
    assert not explorer.picker.pick(unavailable[0].name)
    assert str(unavailable[0].unavailable_reason) in explorer.picker.message


def test_error_on_node_and_argument_keeps_last_grid(explorer: Explorer) -> None:
    browser_update(explorer.graph, selected="resize")
    grid = explorer.grid.pictures
    explorer.set_arg("resize", "resize_shorter", -4.0)
    node = next(n for n in explorer.graph.nodes if n["id"] == "resize")
    assert node["error"] and "resize_shorter" in node["error"]
    assert "resize_shorter" in explorer.errors.value
    assert "out of range" in explorer.node_panel.controls["resize_shorter"].message.value
    assert explorer.grid.pictures == grid
    assert explorer.spec.node("resize").args["resize_shorter"] == -4.0


def test_node_tools_device_probability_and_rewire(explorer: Explorer) -> None:
    browser_update(explorer.graph, selected="crop")
    find(explorer.node_panel, "ax-duplicate").click()
    assert "crop_2" in explorer.spec and explorer.state.selected == "crop_2"
    browser_update(explorer.graph, selected="flip")
    browser_update(explorer.node_panel.apply, value=True)
    assert explorer.spec.node("flip").probability.p == 0.5  # type: ignore[union-attr]
    browser_update(explorer.node_panel.probability.slider, value=0.3)
    explorer.flush()
    assert explorer.spec.node("flip").probability.p == 0.3  # type: ignore[union-attr]
    assert explorer.state.ok and "flip_apply" in explorer.result.steps  # type: ignore[union-attr]
    browser_update(explorer.node_panel.device, index=1)
    assert explorer.spec.node("flip").device == "cpu"
    picker = explorer.node_panel.inputs[0]
    browser_update(picker, index=list(picker.options).index("resize"))
    assert explorer.spec.node("flip").inputs[0].node == "resize" and explorer.state.ok


def test_an_input_is_offered_only_from_nodes_that_do_not_read_this_one(
    explorer: Explorer,
) -> None:
    browser_update(explorer.graph, selected="rotate")
    options = list(explorer.node_panel.inputs[0].options)
    assert options == ["source", "decode", "resize"]  # crop and flip read rotate: a cycle
    browser_update(explorer.graph, selected="flip")
    assert list(explorer.node_panel.inputs[0].options) == [
        "source",
        "decode",
        "resize",
        "rotate",
        "crop",
    ]
    picker = explorer.node_panel.inputs[0]
    browser_update(picker, index=list(picker.options).index("resize"))  # flip no longer reads crop
    browser_update(explorer.graph, selected="crop")
    assert "flip" in explorer.node_panel.inputs[0].options
    # undo rewires flip to crop again while crop stays selected: the list follows
    explorer.undo()
    assert explorer.state.selected == "crop"
    assert "flip" not in explorer.node_panel.inputs[0].options


def test_an_output_with_no_pixels_is_said_not_left_as_the_old_pictures(
    explorer: Explorer,
) -> None:
    """A crop to 0x0 runs in DALI; its tiles and large view say the images are empty. Drawing
    them failed, and the previous pictures stayed under a caption naming the new output."""
    explorer.add("random_resized_crop", after="flip")
    explorer.flush()
    node = explorer.spec.nodes[-1].id
    explorer.set_arg(node, "size", [0.0, 0.0])
    explorer.flush()
    assert explorer.state.ok and explorer.grid.note.value == ""
    tiles = explorer.grid.tiles.tiles
    assert len(tiles) == 4
    assert all(t["pictures"] == [None] for t in tiles)
    assert all(t["text"] == "empty: 0x0x3 uint8, no pixels to show" for t in tiles)
    browser_update(explorer.grid.tiles, opened=1)
    after = explorer.grid.tiles.large["panes"][0]
    assert after["role"] == "after" and after["pixels"] is None and "empty" in after["text"]


def test_mode_views_variety_and_ab(explorer: Explorer) -> None:
    explorer.set_arg("rotate", "fill_value", 200.0)
    browser_update(explorer.grid.mode, index=2)  # A/B
    assert "before" in explorer.grid.caption.value and explorer.grid.pictures[0][:2] == JPEG
    browser_update(explorer.grid.mode, index=1)  # Variety
    assert "one image, 8 draws" in explorer.grid.caption.value
    assert explorer.grid.note.value == ""
    # a large view open over the grid closes when another mode is picked: it would hide it
    browser_update(explorer.grid.tiles, opened=2)
    assert explorer.grid.tiles.large
    browser_update(explorer.grid.mode, index=2)
    assert explorer.grid.tiles.opened == -1


def test_export_writes_module_and_shows_code(explorer: Explorer, tmp_path: Path) -> None:
    if export_module.find_exporter() is None:
        pytest.skip("augexplorer.export is not installed")
    target = tmp_path / "exported.py"
    browser_update(explorer.export_view.path, value=str(target))
    explorer.export_view.button.click()
    assert target.is_file()
    source = target.read_text()
    code = explorer.export_view.code.value
    assert "pipeline_def" in code
    # shown highlighted (Pygments' token classes, coloured by the theme); copied as plain code
    assert code.startswith("<pre class='ax-code ax-highlight'>")
    assert '<span class="k">def</span>' in code and "<span" not in source
    assert explorer.export_view.copy.text == source
    explorer.export_view.button.click()  # a second export refuses to replace the file
    said = explorer.export_view.message.value
    assert "already exists; tick “replace an existing file” to replace it" in said
    assert "Not written:" in said and "failed" not in said  # nothing failed: a file is in the way
    assert "overwrite=True" not in said  # the panel's way, not the API's
    browser_update(explorer.export_view.overwrite, value=True)
    explorer.export_view.button.click()
    assert "Wrote" in explorer.export_view.message.value


def test_save_refuses_an_existing_file_and_says_how_in_the_panel(
    explorer: Explorer, tmp_path: Path
) -> None:
    target = tmp_path / "graph.json"
    target.write_text("{}")
    toolbar = explorer.toolbar
    browser_update(toolbar.spec_path, value=str(target))
    toolbar.save.click()
    assert "already exists; tick “replace file” to replace it" in toolbar.file_message.value
    assert target.read_text() == "{}"
    explorer.set_arg("rotate", "angle", 3.0)  # an edit: the refusal still stands for this graph
    assert "already exists" in toolbar.file_message.value
    choose(toolbar.preset, "imagenet_val")  # another graph: a refusal of the one replaced goes
    assert toolbar.file_message.value == ""
    choose(toolbar.preset, "basic")
    toolbar.save.click()
    browser_update(toolbar.overwrite, value=True)
    toolbar.save.click()
    assert "saved" in toolbar.file_message.value and target.read_text() != "{}"


def test_export_guard_without_the_exporter(
    explorer: Explorer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(export_module, "find_exporter", lambda: None)
    assert explorer.export_view.export() is None
    assert "augexplorer.export" in explorer.export_view.message.value


def test_restore_offer_after_a_restart(catalog, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "autosave.json"
    first = Explorer("basic", batch_size=4, autosave=path, catalog=catalog)
    first.set_arg("rotate", "fill_value", 99.0)
    again = Explorer("basic", batch_size=4, autosave=path, catalog=catalog)  # after a restart
    assert again.banner.layout.display != "none"
    restore = again.banner.children[1]
    restore.click()
    assert again.spec.node("rotate").args["fill_value"] == 99.0
    assert again.banner.layout.display == "none"
    assert Autosave(path).load() is not None


def test_batch_size_and_next_batch(explorer: Explorer) -> None:
    files = explorer.result.files()  # type: ignore[union-attr]
    browser_update(explorer.toolbar.batch, value="6")
    explorer.flush()
    assert explorer.result is not None and explorer.result.plan.spec.batch_size == 6
    explorer.toolbar.next_batch.click()
    assert explorer.result.batch_index == 1 and explorer.result.files() != files


def test_typed_invalid_number_stays_visible_with_its_error(explorer: Explorer) -> None:
    browser_update(explorer.graph, selected="resize")
    box = explorer.node_panel.controls["resize_shorter"].editor.box
    browser_update(box, value="-4")  # beyond the slider's range, and invalid for DALI
    explorer.flush()
    control = explorer.node_panel.controls["resize_shorter"]
    # refused before the graph, as text that is no number is; the graph keeps its value
    assert explorer.spec.node("resize").args["resize_shorter"] == 256.0 and explorer.state.ok
    assert control.editor.box.value == "-4"  # not snapped back to the last good value
    assert "Not applied: -4 is out of range" in html.unescape(control.message.value)
    assert "ax-arg-error" in control._dom_classes
    browser_update(control.editor.box, value="2000")  # valid, beyond the slider's range
    explorer.flush()
    assert explorer.state.ok and control.message.value == ""
    assert control.editor.box.value == "2000" and control.editor.slider.value == 1024.0


def test_unparsable_vector_text_is_kept_until_fixed(explorer: Explorer) -> None:
    browser_update(explorer.graph, selected="crop")
    text = explorer.node_panel.controls["crop"].editor
    browser_update(text, value="224, 22x")
    assert explorer.spec.node("crop").args["crop"] == [224.0, 224.0]  # nothing applied
    message = explorer.node_panel.controls["crop"].message.value
    assert "22x" in message
    explorer.set_arg("crop", "out_of_bounds_policy", "pad")  # another edit rebuilds the panel
    text = explorer.node_panel.controls["crop"].editor
    assert text.value == "224, 22x" and "22x" in explorer.node_panel.controls["crop"].message.value
    browser_update(text, value="200, 180")
    explorer.flush()
    assert explorer.spec.node("crop").args["crop"] == [200.0, 180.0] and explorer.state.ok
    assert explorer.node_panel.controls["crop"].message.value == ""


def test_unparsable_choice_values_say_why_and_apply_nothing(explorer: Explorer) -> None:
    explorer.set_arg("rotate", "angle", Random.choice([0.0, 90.0], seed=3))
    browser_update(explorer.graph, selected="rotate")
    control = explorer.node_panel.controls["angle"]
    browser_update(control.editor.params["values"], value="0, 9o")
    explorer.flush()
    assert explorer.spec.node("rotate").args["angle"] == Random.choice([0.0, 90.0], seed=3)
    assert "9o" in control.message.value and "ax-arg-error" in control._dom_classes
    assert control.editor.params["values"].value == "0, 9o"  # what was typed stays
    browser_update(control.editor.params["values"], value="0, 180")
    explorer.flush()
    assert explorer.spec.node("rotate").args["angle"].values == (0.0, 180.0)
    assert explorer.state.ok and control.message.value == ""


def test_choice_weights_and_shape_go_through_the_panel(explorer: Explorer) -> None:
    explorer.set_arg("rotate", "angle", Random.choice([0.0, 90.0], [0.8, 0.2], seed=3))
    browser_update(explorer.graph, selected="rotate")
    control = explorer.node_panel.controls["angle"]
    assert control.editor.params["weights"].value == "0.8, 0.2"
    browser_update(control.editor.params["values"], value="0, 90, 180")
    explorer.flush()  # three values, two weights: refused on the argument, nothing applied
    assert explorer.spec.node("rotate").args["angle"].values == (0.0, 90.0)
    control = explorer.node_panel.controls["angle"]
    assert "Not applied" in control.message.value
    assert "one weight per value" in control.message.value
    browser_update(control.editor.params["weights"], value="0.5, 0.25, 0.25")
    explorer.flush()
    assert explorer.spec.node("rotate").args["angle"] == Random.choice(
        [0.0, 90.0, 180.0], [0.5, 0.25, 0.25], seed=3
    )
    assert explorer.state.ok
    explorer.set_arg("crop", "crop", Random.choice([200.0, 224.0], [0.5, 0.5], shape=2, seed=4))
    browser_update(explorer.graph, selected="crop")
    control = explorer.node_panel.controls["crop"]
    browser_update(control.editor.params["weights"], value="0.9, 0.1")
    explorer.flush()
    drawn = explorer.spec.node("crop").args["crop"]
    assert drawn.p == (0.9, 0.1) and drawn.shape == 2 and explorer.state.ok


def test_rename_button_refuses_bad_names_inline(explorer: Explorer) -> None:
    browser_update(explorer.graph, selected="crop")
    panel = explorer.node_panel
    find(panel, "ax-rename").click()
    assert panel.rename_row.layout.display != "none"
    browser_update(panel.rename_box, value="2nd crop")
    said = html.unescape(panel.rename_message.value)
    assert "'2nd crop' is not a valid node name" in said and "'n_2nd_crop'" in said
    assert panel.rename_box.value == "2nd crop" and "crop" in explorer.spec
    browser_update(panel.rename_box, value="flip")
    assert "already exists" in panel.rename_message.value
    browser_update(panel.rename_box, value="lambda")
    assert "taken by Python" in panel.rename_message.value
    browser_update(panel.rename_box, value="center_crop")
    assert "center_crop" in explorer.spec and "crop" not in explorer.spec
    assert explorer.spec.node("flip").inputs[0].node == "center_crop"
    assert explorer.state.selected == "center_crop" and explorer.state.ok
    assert "center_crop" in explorer.node_panel.title.value
    explorer.toolbar.undo.click()
    assert "crop" in explorer.spec


def test_variety_captions_name_the_class(explorer: Explorer) -> None:
    result = explorer.result
    assert result is not None
    browser_update(explorer.grid.mode, index=1)  # Variety
    assert explorer.variety.caption == result.captions()[0]
    assert explorer.variety.caption in sample_classes()
    varied = explorer.variety.run(result.plan.spec, result)
    assert varied.labels() == [result.labels()[0]] * explorer.variety.copies


def test_random_toggle_is_labelled(explorer: Explorer) -> None:
    browser_update(explorer.graph, selected="rotate")
    toggle = explorer.node_panel.controls["angle"].random_toggle
    assert toggle.description == "random" and toggle.value and not toggle.disabled


def test_each_argument_label_shows_its_doc_on_hover(explorer: Explorer, catalog: Catalog) -> None:
    browser_update(explorer.graph, selected="rotate")
    info = catalog["rotate"]
    controls = explorer.node_panel.controls
    assert {"angle", "fill_value"} <= set(controls)
    for name, control in controls.items():
        arg = info.arg(name)
        assert arg is not None, name
        label = find(control, "ax-arg-label")
        assert label is not None
        shown = re.fullmatch(r'<span title="([^"]*)">(.*)</span>', label.value)
        assert shown is not None, label.value
        # the name whole, breakable after each "_" only (a long one wraps, never cut)
        assert html.unescape(shown[2].replace("<wbr>", "")) == name, label.value
        assert shown[2].count("<wbr>") == name.count("_"), label.value
        hover = html.unescape(shown[1])
        assert hover.startswith(f"{name}: "), hover  # the full name on hover too
        doc = " ".join(arg.doc.split())  # the tooltip runs DALI's lines together
        assert len(doc) >= 20 and doc[:60] in hover, name


def hover_text(description: str) -> tuple[str, str]:
    """(the text shown, the text on hover) of a description given as HTML with a title."""
    shown = re.fullmatch(r'<span title="([^"]*)">([^<]*)</span>', description)
    assert shown is not None, description
    return html.unescape(shown[2]), html.unescape(shown[1])


def test_described_controls_explain_themselves_on_hover(explorer: Explorer) -> None:
    """A tooltip of a widget with a description never reaches the page (ipywidgets#3964): the
    description itself carries it."""
    toolbar = explorer.toolbar
    assert toolbar.seed_lock.description_allow_html
    assert hover_text(toolbar.seed_lock.description) == (
        "seed lock",
        "keep the same random draws across edits",
    )
    explorer.set_arg("rotate", "fill_value", 12.0)
    # the history's box has no description, so its own tooltip (the whole step, where the box
    # shortens it) reaches the page where the pointer is: on the box
    assert toolbar.history.description == "" and "fill_value" in toolbar.history.tooltip
    browser_update(explorer.graph, selected="source")
    explorer.flush()
    shown, hover = hover_text(explorer.node_panel.skip_bad.description)
    assert shown == "skip bad files" and "not images" in hover


def test_the_panel_says_what_the_folder_left_out(catalog, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]

    root = tmp_path / "data"
    shutil.copytree(samples_dir(), root)
    shutil.copy(next(root.glob("animal/*.jpg")), root / "stray.jpg")
    (root / ".ipynb_checkpoints").mkdir()
    explorer = Explorer(
        "basic", data=str(root), batch_size=4, autosave=tmp_path / "a.json", catalog=catalog
    )
    explorer.flush()
    shown = html.unescape(explorer.data_notes.value)
    assert "stray.jpg" in shown and ".ipynb_checkpoints" in shown
    plain = Explorer("basic", batch_size=4, autosave=tmp_path / "b.json", catalog=catalog)
    assert plain.flush().ok and plain.data_notes.value == ""


def test_a_slider_step_draws_the_grid_inside_its_message_and_the_panel_after() -> None:
    """In the kernel's event loop a slider step's grid is drawn before the step's message is
    done; the graph, toolbar and status follow once the step settles, showing the last step."""
    import asyncio

    seen: dict[str, Any] = {}

    async def drag() -> None:
        explorer = Explorer("reference", batch_size=2, autosave=None)
        explorer.select("brightness")
        slider = explorer.node_panel.controls["brightness"].editor.slider
        history = list(explorer.toolbar.history.options)
        pictures = list(explorer.grid.pictures)
        for value in (1.2, 1.3, 1.4):
            browser_update(slider, value=value)
        seen["grid at once"] = explorer.grid.pictures != pictures
        seen["history at once"] = list(explorer.toolbar.history.options) == history
        await asyncio.sleep(PANEL_SETTLE_S * 3)
        seen["history after"] = explorer.toolbar.history.options[-1][0]
        seen["value"] = explorer.spec.node("brightness").args["brightness"]

    in_own_thread(lambda: asyncio.run(drag()))
    assert seen["grid at once"] and seen["history at once"]
    assert "1.4" in seen["history after"] and seen["value"] == 1.4


def test_a_failed_exports_message_goes_once_the_graph_changes(
    explorer: Explorer, tmp_path: Path
) -> None:
    """Found in a trial: "Export failed" of a graph since undone stayed above a valid module
    (a file in the way now says "Not written")."""
    if export_module.find_exporter() is None:
        pytest.skip("augexplorer.export is not installed")
    target = tmp_path / "taken.py"
    target.write_text("# someone else's file\n")
    browser_update(explorer.export_view.path, value=str(target))
    explorer.export_view.button.click()
    assert "Not written" in explorer.export_view.message.value
    explorer.export_view.graph_changed()  # a redraw of the same graph keeps it
    assert "Not written" in explorer.export_view.message.value
    explorer._now(lambda: explorer.controller.set_arg("flip", "horizontal", 1))
    explorer.flush()
    assert "Not written" not in explorer.export_view.message.value


def test_a_page_that_renders_no_widgets_shows_one_line_naming_the_graph() -> None:
    # GitHub and nbconvert without widget state show the text form: not the children's tree
    panel = Explorer("basic", batch_size=4, autosave=None)
    text = panel._repr_mimebundle_()["text/plain"]
    assert (
        text == "Explorer: the 'basic' graph, 5 nodes, batch 4 (its panel shows where widgets run)"
    )
    panel.set_arg("crop", "crop", [200.0, 200.0])
    assert repr(panel).startswith("Explorer: the 'basic, edited' graph")
