"""The panel says what it did and why it did not: typed values that are not applied, a toolbar
that follows undo, the export name that is written, and an undoable notice when a graph is
replaced. Driven through the widgets' traits, as the browser would."""

from __future__ import annotations

import dataclasses
import html
from pathlib import Path

import pytest
from augexplorer_widgets import Explorer
from augexplorer_widgets import export_view as export_module
from test_widgets_panel import browser_update, choose

from augexplorer.data import samples_dir
from augexplorer.presets import preset
from augexplorer.spec import Random, save


@pytest.fixture
def explorer(catalog, tmp_path: Path) -> Explorer:  # type: ignore[no-untyped-def]
    return Explorer("basic", batch_size=4, autosave=tmp_path / "autosave.json", catalog=catalog)


def said(widget: object) -> str:
    return html.unescape(getattr(widget, "value", ""))


# ---- typed values that are not applied say why --------------------------------------------------


def test_text_in_a_number_box_stays_and_says_why(explorer: Explorer) -> None:
    browser_update(explorer.graph, selected="rotate")
    control = explorer.node_panel.controls["fill_value"]
    browser_update(control.editor.box, value="abc")
    explorer.flush()
    assert explorer.spec.node("rotate").args["fill_value"] == 0.0, "nothing applied"
    assert control.editor.box.value == "abc", "what was typed stays"
    message = said(control.message)
    assert "'abc' is not a number" in message and "fill_value stays 0" in message
    assert "ax-arg-error" in control._dom_classes
    # Another edit rebuilds the panel: the typed text and its reason stay.
    explorer.set_arg("rotate", "angle", 10.0)
    control = explorer.node_panel.controls["fill_value"]
    assert control.editor.box.value == "abc" and "'abc' is not a number" in said(control.message)
    # Typing the value in force again takes the complaint away; a new number applies.
    browser_update(control.editor.box, value="0")
    assert control.message.value == "" and "ax-arg-error" not in control._dom_classes
    browser_update(control.editor.box, value="12.5")
    explorer.flush()
    assert explorer.spec.node("rotate").args["fill_value"] == 12.5 and explorer.state.ok


def test_a_whole_number_box_refuses_fractions_with_the_reason(explorer: Explorer) -> None:
    explorer.set_arg("resize", "minibatch_size", 32)
    browser_update(explorer.graph, selected="resize")
    box = explorer.node_panel.controls["minibatch_size"].editor
    assert box.value == "32"
    browser_update(box, value="2.5")
    message = said(explorer.node_panel.controls["minibatch_size"].message)
    assert "'2.5' is not a whole number" in message and "stays 32" in message
    assert explorer.spec.node("resize").args["minibatch_size"] == 32
    browser_update(box, value="16")
    explorer.flush()
    assert explorer.spec.node("resize").args["minibatch_size"] == 16 and explorer.state.ok


def test_a_distribution_box_says_why_text_was_not_applied(explorer: Explorer) -> None:
    explorer.set_arg("rotate", "angle", Random.normal(0.0, 5.0, seed=4))
    browser_update(explorer.graph, selected="rotate")
    control = explorer.node_panel.controls["angle"]
    browser_update(control.editor.params["mean"], value="1o")
    assert explorer.spec.node("rotate").args["angle"] == Random.normal(0.0, 5.0, seed=4)
    message = said(control.message)
    assert "mean" in message and "'1o' is not a number" in message and "N(0, 5)" in message
    assert control.editor.params["mean"].value == "1o"
    browser_update(control.editor.params["mean"], value="10")
    explorer.flush()
    assert explorer.spec.node("rotate").args["angle"].mean == 10.0 and explorer.state.ok
    assert control.message.value == ""


def test_uniform_bounds_are_typed_in_boxes_that_say_why(explorer: Explorer) -> None:
    """The range slider's own readout would clamp or drop typed text silently: boxes instead."""
    browser_update(explorer.graph, selected="rotate")
    editor = explorer.node_panel.controls["angle"].editor
    assert not editor.params["range"].readout
    assert (editor.params["low"].value, editor.params["high"].value) == ("-20", "20")
    browser_update(editor.params["range"], value=[-5.0, 5.0])  # the slider moves the boxes
    assert (editor.params["low"].value, editor.params["high"].value) == ("-5", "5")
    assert explorer.spec.node("rotate").args["angle"].high == 5.0
    browser_update(editor.params["high"], value="400")  # beyond the slider: the scale widens
    explorer.flush()
    assert explorer.spec.node("rotate").args["angle"].high == 400.0
    assert editor.params["range"].value == (-5.0, 400.0)
    browser_update(editor.params["low"], value="x")
    message = said(explorer.node_panel.controls["angle"].message)
    assert "low: 'x' is not a number" in message and "angle stays U(-5, 400)" in message
    assert explorer.spec.node("rotate").args["angle"].low == -5.0


def test_a_reversed_range_typed_is_refused_on_the_argument(explorer: Explorer) -> None:
    """A low typed above the high: refused before it reaches the graph, as text that is no
    number is, with the graph check's own words and fix (it was applied, and the graph failed);
    the box keeps what was typed, and the next good value applies both."""
    browser_update(explorer.graph, selected="rotate")
    control = explorer.node_panel.controls["angle"]
    browser_update(control.editor.params["low"], value="30")
    explorer.flush()
    assert explorer.spec.node("rotate").args["angle"] == Random.uniform(-20.0, 20.0)
    assert explorer.state.ok
    message = said(control.message)
    assert "Not applied: uniform range is reversed (30 > 20)" in message
    assert "swap low and high" in message and "angle stays U(-20, 20)" in message
    assert control.editor.params["low"].value == "30"  # what was typed stays
    assert control.editor.params["range"].value == (-20.0, 20.0)  # as it was: it holds no such
    browser_update(control.editor.params["high"], value="40")
    explorer.flush()
    assert explorer.spec.node("rotate").args["angle"] == Random.uniform(30.0, 40.0)
    assert explorer.state.ok and control.editor.params["range"].value == (30.0, 40.0)
    assert control.message.value == ""


def test_a_constant_out_of_its_range_is_refused_before_the_graph(explorer: Explorer) -> None:
    """A crop position of 1.5 typed: refused like text that is no number (it was applied and
    the graph failed, while 'abc' was refused: two rules for one kind of mistake)."""
    browser_update(explorer.graph, selected="crop")
    control = explorer.node_panel.controls["crop_pos_x"]
    before = explorer.spec.node("crop").args.get("crop_pos_x")
    browser_update(control.editor.box, value="1.5")
    explorer.flush()
    assert explorer.spec.node("crop").args.get("crop_pos_x") == before and explorer.state.ok
    message = said(control.message)
    assert "Not applied: 1.5 is out of range [0, 1]" in message
    assert "use a value in [0, 1]" in message
    browser_update(control.editor.box, value="0.25")
    explorer.flush()
    assert explorer.spec.node("crop").args["crop_pos_x"] == 0.25 and control.message.value == ""


def test_a_probability_is_typed_and_refused_beyond_0_and_1(explorer: Explorer) -> None:
    browser_update(explorer.graph, selected="flip")
    browser_update(explorer.node_panel.apply, value=True)
    box = explorer.node_panel.probability.box
    browser_update(box, value="1.5")
    assert explorer.spec.node("flip").probability.p == 0.5  # type: ignore[union-attr]
    message = said(explorer.node_panel.probability_message)
    assert "1.5 is out of range [0, 1] (fix: use a value in [0, 1])" in message
    assert "stays 0.5" in message
    assert box.value == "1.5"
    browser_update(box, value="0.25")
    explorer.flush()
    assert explorer.spec.node("flip").probability.p == 0.25  # type: ignore[union-attr]
    assert explorer.node_panel.probability_message.value == ""
    # A coin flip's probability, in the distribution editor.
    control = explorer.node_panel.controls["horizontal"]
    browser_update(control.editor.params["probability"].box, value="abc")
    assert "probability: 'abc' is not a number" in said(control.message)
    browser_update(control.editor.params["probability"].box, value="0.8")
    explorer.flush()
    assert explorer.spec.node("flip").args["horizontal"].probability == 0.8
    assert control.message.value == ""


@pytest.mark.parametrize(
    ("typed", "reason"),
    [
        ("0", "Not applied: the batch size must be at least 1, not 0."),
        ("-3", "must be at least 1"),
        ("abc", "'abc' is not a whole number"),
        ("2.5", "'2.5' is not a whole number"),
        ("", "the box is empty"),
        ("100000", "can be at most 256"),
    ],
)
def test_a_batch_size_that_is_not_applied_says_why(
    explorer: Explorer, typed: str, reason: str
) -> None:
    batch = explorer.toolbar.batch
    browser_update(batch, value=typed)
    explorer.flush()
    assert explorer.spec.batch_size == 4, "nothing applied"
    assert batch.value == typed, "what was typed stays"
    message = said(explorer.toolbar.batch_message)
    assert reason in message and "The batch stays 4" in message
    assert explorer.toolbar.batch_message.layout.display != "none"
    browser_update(batch, value="6")
    explorer.flush()
    assert explorer.spec.batch_size == 6 and explorer.toolbar.batch_message.value == ""
    assert explorer.toolbar.batch_message.layout.display == "none"


def test_a_refused_batch_size_stays_typed_through_other_edits(explorer: Explorer) -> None:
    browser_update(explorer.toolbar.batch, value="0")
    explorer.set_arg("rotate", "fill_value", 30.0)
    assert explorer.toolbar.batch.value == "0" and "at least 1" in said(
        explorer.toolbar.batch_message
    )


# ---- the toolbar follows undo and redo ----------------------------------------------------------


def test_the_toolbar_shows_the_preset_and_folder_of_the_graph_on_screen(explorer: Explorer) -> None:
    t = explorer.toolbar
    assert t.preset.value == "basic" and t.source.value == "samples" and t.batch.value == "4"
    choose(t.preset, "imagenet_train")
    assert explorer.spec.name == "imagenet_train"
    folder = str(samples_dir())
    choose(t.source, "folder")
    browser_update(t.path, value=folder)
    assert explorer.spec.sources()[0].path == folder and explorer.state.ok
    browser_update(t.batch, value="6")
    explorer.flush()

    t.undo.click()  # the batch size
    assert t.batch.value == "4"
    t.undo.click()  # the folder
    assert t.source.value == "samples" and t.path.layout.display == "none"
    assert t.preset.value == "imagenet_train"
    t.undo.click()  # the preset
    assert t.preset.value == "basic" and explorer.spec.name == "basic"
    t.redo.click()
    t.redo.click()
    assert t.preset.value == "imagenet_train" and t.source.value == "folder"
    assert t.path.value == folder and t.path.layout.display != "none"
    t.redo.click()
    assert t.batch.value == "6"


def test_a_graph_that_is_no_preset_shows_none(explorer: Explorer, tmp_path: Path) -> None:
    spec = preset("basic")
    path = tmp_path / "mine.json"
    save(spec.__class__(**{**spec.__dict__, "name": "my_graph"}), path)
    browser_update(explorer.toolbar.spec_path, value=str(path))
    explorer.toolbar.load.click()
    assert explorer.spec.name == "my_graph" and explorer.toolbar.preset.value == ""
    # the history names the file loaded, not only the graph it holds
    assert any("loaded mine.json" in step.label for step in explorer.controller.state.history)
    explorer.toolbar.undo.click()
    assert explorer.toolbar.preset.value == "basic"


# ---- export: the name shown is the file written -------------------------------------------------


def test_the_export_box_holds_the_name_that_is_written(
    explorer: Explorer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    view = explorer.export_view
    assert view.path.value == "basic_pipeline.py" == view.path.placeholder
    choose(explorer.toolbar.preset, "imagenet_train")
    assert view.path.value == "imagenet_train_pipeline.py", "the default follows the graph"
    explorer.toolbar.undo.click()
    assert view.path.value == "basic_pipeline.py"
    if export_module.find_exporter() is None:
        pytest.skip("augexplorer.export is not installed")
    monkeypatch.chdir(tmp_path)
    written = view.export()
    assert written == Path("basic_pipeline.py") and (tmp_path / "basic_pipeline.py").is_file()
    browser_update(view.path, value="mine.py")  # a name the user typed is theirs
    choose(explorer.toolbar.preset, "imagenet_train")
    assert view.path.value == "mine.py"
    browser_update(view.path, value="")
    assert view.path.placeholder == "imagenet_train_pipeline.py"
    assert view.export() == Path("imagenet_train_pipeline.py")


@pytest.fixture
def exporting(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The folder exports are written to (the current one), where the exporter is installed."""
    if export_module.find_exporter() is None:
        pytest.skip("augexplorer.export is not installed")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_the_default_export_name_is_importable_whatever_the_graph_is_called(
    catalog,
    tmp_path: Path,  # type: ignore[no-untyped-def]
) -> None:
    spec = dataclasses.replace(preset("basic"), name="my graph")
    explorer = Explorer(spec, batch_size=4, autosave=tmp_path / "autosave.json", catalog=catalog)
    assert explorer.export_view.path.value == "my_graph_pipeline.py"


def test_export_refuses_a_name_that_cannot_be_imported_and_says_which_would(
    explorer: Explorer, exporting: Path
) -> None:
    view = explorer.export_view
    browser_update(view.path, value="my aug.py")
    assert view.export() is None
    refusal = said(view.message)
    assert "Export failed: my aug.py cannot be imported" in refusal
    assert "name it my_aug.py" in refusal
    assert not list(exporting.glob("*.py"))
    browser_update(view.path, value="")
    assert view.export() == Path("basic_pipeline.py")
    assert "the box was empty: the graph's default name" in said(view.message)
    folder = exporting / "with space"
    folder.mkdir()
    browser_update(view.path, value=str(folder / "aug.py"))
    assert view.export() is not None
    assert f"python '{folder / 'aug.py'}'" in said(view.message)


def test_export_of_a_name_without_suffix_writes_that_module(
    explorer: Explorer, exporting: Path
) -> None:
    view = explorer.export_view
    browser_update(view.path, value="my_aug")
    assert view.export() == Path("my_aug.py") and (exporting / "my_aug.py").is_file()
    assert view.path.value == "my_aug.py"  # the box holds the file written
    assert "my_aug.py</code> (.py added to the name typed)" in said(view.message)
    browser_update(view.path, value="my_aug.txt")  # another suffix is not taken for a module
    assert view.export() is None and "not a Python module" in said(view.message)
    for folder in (".", "out/"):  # a folder is no module name: refused with why, nothing added
        browser_update(view.path, value=folder)
        assert view.export() is None and "Export failed" in said(view.message)
        assert view.path.value == folder


def test_export_of_a_graph_that_fails_here_warns(explorer: Explorer, exporting: Path) -> None:
    explorer.set_arg("crop", "crop", [4000.0, 4000.0])
    state = explorer.set_arg("crop", "out_of_bounds_policy", "error")
    assert state.failure is not None and state.failure.kind == "run"
    assert explorer.export_view.export() == Path("basic_pipeline.py")
    warned = said(explorer.export_view.message)
    assert "The graph fails here now: node 'crop'" in warned
    assert "On this data the module will fail the same way" in warned
    explorer.undo()
    explorer.undo()
    assert explorer.state.ok
    explorer.export_view.overwrite.value = True
    assert explorer.export_view.export() is not None
    assert "fails here" not in explorer.export_view.message.value


# ---- a default that stands for "not given" is shown as not set ----------------------------------


def test_a_placeholder_default_is_shown_as_not_set_and_the_fix_names_both_arguments(
    explorer: Explorer,
) -> None:
    # crop_w's DALI default 0 means "take the window from `crop`"; shown as 0 beside a slider
    # whose range starts at 8, it read as a value
    browser_update(explorer.graph, selected="crop")
    row = explorer.node_panel.controls["crop_w"]
    assert said(row.children[1]) == "not set: DALI's default 0 stands for not given"
    row.editor.click()  # "set"
    assert explorer.spec.node("crop").args["crop_w"] == 8.0
    failure = explorer.state.failure
    assert failure is not None
    assert "(fix: give crop_w and crop_h a value each)" in failure.lines()[0]
    explorer.set_arg("crop", "crop_h", 8.0)
    failure = explorer.state.failure
    assert failure is not None
    assert "leave crop out to use the others" in failure.lines()[0]
    explorer.controller.unset_arg("crop", "crop")
    assert explorer.state.ok
    assert explorer.result is not None
    assert explorer.result.arrays("crop")[0].shape == (8, 8, 3)


# ---- replacing an edited graph is announced, with Undo ------------------------------------------


def test_a_preset_over_an_edited_graph_says_so_and_undoes(explorer: Explorer) -> None:
    explorer.set_arg("rotate", "fill_value", 99.0)
    edited = explorer.spec
    choose(explorer.toolbar.preset, "randaugment")
    notice = explorer.notice
    assert notice.shown and notice.layout.display != "none"
    assert "Replaced your edited graph “basic” with the preset “randaugment”" in said(notice.text)
    notice.undo.click()
    assert explorer.spec == edited and not notice.shown
    assert explorer.toolbar.preset.label == "basic, edited"


def test_an_edited_preset_can_be_picked_again_to_start_over(explorer: Explorer) -> None:
    preset_box = explorer.toolbar.preset
    assert preset_box.label == "basic"
    browser_update(explorer.toolbar.batch, value="6")  # nor data nor batch size edit a preset
    explorer.flush()
    assert preset_box.label == "basic"
    explorer.set_arg("rotate", "fill_value", 99.0)
    assert preset_box.label == "basic, edited" and "start over" in preset_box.description
    choose(preset_box, "basic")  # a change of the drop-down, not the value it held
    assert explorer.spec == dataclasses.replace(preset("basic"), batch_size=6)
    assert preset_box.label == "basic" and explorer.notice.shown
    explorer.notice.undo.click()
    assert explorer.spec.node("rotate").args["fill_value"] == 99.0
    assert preset_box.label == "basic, edited"


def test_without_the_seed_lock_a_picked_preset_is_not_edited(explorer: Explorer) -> None:
    # Unlocked, every edit draws anew, the pick of a preset too: new draws are no edit.
    browser_update(explorer.toolbar.seed_lock, value=False)
    explorer.set_arg("rotate", "fill_value", 99.0)
    assert explorer.toolbar.preset.label == "basic, edited"
    choose(explorer.toolbar.preset, "basic")
    assert explorer.spec.node("rotate").args["fill_value"] == 0.0
    assert explorer.toolbar.preset.label == "basic"


def test_a_preset_over_an_unedited_graph_needs_no_notice(explorer: Explorer) -> None:
    choose(explorer.toolbar.preset, "randaugment")
    assert explorer.spec.name == "randaugment" and not explorer.notice.shown


def test_the_notice_goes_once_the_graph_moves_on(explorer: Explorer) -> None:
    explorer.set_arg("rotate", "fill_value", 99.0)
    choose(explorer.toolbar.preset, "imagenet_train")
    assert explorer.notice.shown
    explorer.set_arg("resize", "resize_x", 200.0)
    assert not explorer.notice.shown, "its Undo would now take back another step"


def test_loading_a_file_over_an_edited_graph_says_so(explorer: Explorer, tmp_path: Path) -> None:
    path = tmp_path / "other.json"
    save(preset("imagenet_train"), path)
    explorer.set_arg("rotate", "fill_value", 99.0)
    browser_update(explorer.toolbar.spec_path, value=str(path))
    explorer.toolbar.load.click()
    assert explorer.spec.name == "imagenet_train"
    assert f"with the file {path}" in said(explorer.notice.text)
    explorer.notice.undo.click()
    assert explorer.spec.node("rotate").args["fill_value"] == 99.0


def test_export_of_a_graph_whose_images_differ_in_size_says_training_fails(
    explorer: Explorer, exporting: Path
) -> None:
    """Without its crop the basic graph ends in images of several sizes: the explorer shows
    them, and the exported loader failed on them with DALI's "IsDenseTensor" assertion."""
    state = explorer.controller.remove("flip")
    state = explorer.controller.remove("crop")
    assert state.ok, state.failure
    assert explorer.export_view.export() is not None
    warned = said(explorer.export_view.message)
    assert "Training would fail on the batch shown: the images leave 'rotate' in" in warned
    assert "resize_x and resize_y" in warned
    explorer.undo()
    explorer.undo()
    explorer.export_view.overwrite.value = True
    assert explorer.export_view.export() is not None
    assert "Training would fail" not in explorer.export_view.message.value
