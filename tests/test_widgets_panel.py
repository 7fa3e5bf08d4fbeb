"""The whole panel through its widgets' traits and the messages a browser would send."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from augexplorer_widgets import Explorer
from augexplorer_widgets import export_view as export_module
from augexplorer_widgets.autosave import Autosave

JPEG = b"\xff\xd8"
PNG = b"\x89PNG"


def browser_update(widget: Any, **state: Any) -> None:
    """Exactly what the front end sends when the user changes a widget."""
    widget._handle_msg(
        {
            "content": {"data": {"method": "update", "state": state, "buffer_paths": []}},
            "buffers": [],
        }
    )


@pytest.fixture
def explorer(catalog, tmp_path: Path) -> Explorer:  # type: ignore[no-untyped-def]
    return Explorer("basic", batch_size=4, autosave=tmp_path / "autosave.json", catalog=catalog)


def test_panel_shows_graph_grid_and_timing(explorer: Explorer) -> None:
    explorer.flush()
    assert [n["id"] for n in explorer.graph.nodes] == explorer.spec.ids()
    assert all(n["time_ms"] is not None for n in explorer.graph.nodes)
    assert explorer.grid.image.value[:2] == JPEG
    assert bytes(explorer.timing.image.value).startswith(PNG)
    assert "steps" in explorer.toolbar.status.value
    assert "ax-explorer" in explorer._dom_classes


def test_clicking_a_node_shows_its_output_and_arguments(explorer: Explorer) -> None:
    final_grid = explorer.grid.image.value
    browser_update(explorer.graph, selected="resize")
    assert explorer.state.selected == "resize"
    assert "resize_shorter" in explorer.node_panel.controls
    assert "resize" in explorer.grid.caption.value
    assert explorer.grid.image.value != final_grid


def test_slider_message_reruns_and_changes_the_grid(explorer: Explorer) -> None:
    browser_update(explorer.graph, selected="rotate")
    before = explorer.grid.image.value
    slider = explorer.node_panel.controls["fill_value"].editor
    for value in (40.0, 80.0, 120.0):
        browser_update(slider, value=value)
    explorer.flush()
    assert explorer.spec.node("rotate").args["fill_value"] == 120.0
    assert explorer.result is not None
    assert explorer.result.plan.spec.node("rotate").args["fill_value"] == 120.0
    assert explorer.grid.image.value != before
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
    browser_update(explorer.picker.search, value="gaussian_blur")
    assert explorer.picker.list.value == "gaussian_blur"
    explorer.picker.add.click()
    assert "gaussian_blur" in explorer.spec and explorer.state.ok
    assert explorer.spec.node("gaussian_blur").inputs[0].node == "rotate"
    assert explorer.state.selected == "gaussian_blur"
    explorer.toolbar.undo.click()
    assert "gaussian_blur" not in explorer.spec
    explorer.toolbar.redo.click()
    assert "gaussian_blur" in explorer.spec


def test_unavailable_operators_are_listed_with_their_reason(explorer: Explorer) -> None:
    unavailable = [op for op in explorer.controller.catalog if not op.available]
    if not unavailable:
        pytest.skip("every operator runs on this machine")
    browser_update(explorer.picker.search, value=unavailable[0].name)
    browser_update(
        explorer.picker.list,
        index=[o[1] for o in explorer.picker.list.options].index(unavailable[0].name),
    )
    assert explorer.picker.add.disabled
    assert str(unavailable[0].unavailable_reason) in explorer.picker.reason.value


def test_error_on_node_and_argument_keeps_last_grid(explorer: Explorer) -> None:
    browser_update(explorer.graph, selected="resize")
    grid = explorer.grid.image.value
    explorer.set_arg("resize", "resize_shorter", -4.0)
    node = next(n for n in explorer.graph.nodes if n["id"] == "resize")
    assert node["error"] and "resize_shorter" in node["error"]
    assert "resize_shorter" in explorer.errors.value
    assert "out of range" in explorer.node_panel.controls["resize_shorter"].message.value
    assert explorer.grid.image.value == grid
    assert explorer.spec.node("resize").args["resize_shorter"] == -4.0


def test_node_tools_device_probability_and_rewire(explorer: Explorer) -> None:
    browser_update(explorer.graph, selected="crop")
    explorer.node_panel.children[1].children[2].click()  # duplicate
    assert "crop_2" in explorer.spec and explorer.state.selected == "crop_2"
    browser_update(explorer.graph, selected="flip")
    browser_update(explorer.node_panel.apply, value=True)
    assert explorer.spec.node("flip").probability.p == 0.5  # type: ignore[union-attr]
    browser_update(explorer.node_panel.probability, value=0.3)
    explorer.flush()
    assert explorer.spec.node("flip").probability.p == 0.3  # type: ignore[union-attr]
    assert explorer.state.ok and "flip_apply" in explorer.result.steps  # type: ignore[union-attr]
    browser_update(explorer.node_panel.device, index=1)
    assert explorer.spec.node("flip").device == "cpu"
    picker = explorer.node_panel.inputs[0]
    browser_update(picker, index=list(picker.options).index("resize"))
    assert explorer.spec.node("flip").inputs[0].node == "resize" and explorer.state.ok


def test_mode_views_variety_and_ab(explorer: Explorer) -> None:
    explorer.set_arg("rotate", "fill_value", 200.0)
    browser_update(explorer.grid.mode, index=2)  # A/B
    assert "before" in explorer.grid.caption.value and explorer.grid.image.value[:2] == JPEG
    browser_update(explorer.grid.mode, index=1)  # Variety
    assert "one image, 8 draws" in explorer.grid.caption.value
    assert explorer.grid.note.value == ""


def test_export_writes_module_and_shows_code(explorer: Explorer, tmp_path: Path) -> None:
    if export_module.find_exporter() is None:
        pytest.skip("augexplorer.export is not installed")
    target = tmp_path / "exported.py"
    browser_update(explorer.export_view.path, value=str(target))
    explorer.export_view.button.click()
    assert target.is_file()
    assert "pipeline_def" in explorer.export_view.code.value
    assert explorer.export_view.copy.text == target.read_text()
    explorer.export_view.button.click()  # a second export refuses to replace the file
    assert "already exists" in explorer.export_view.message.value


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
    browser_update(explorer.toolbar.batch, value=6)
    explorer.flush()
    assert explorer.result is not None and explorer.result.plan.spec.batch_size == 6
    explorer.toolbar.next_batch.click()
    assert explorer.result.batch_index == 1 and explorer.result.files() != files
