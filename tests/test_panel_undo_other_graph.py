"""Undo and redo across a preset picked or a file loaded: the grid under the errors of a graph
that fails never shows another graph's pictures as its "last good result": segmentation
picked on a folder of the user's own (it needs annotations) shows none; undone to the edited basic
graph and redone, its errors must not sit above the basic graph's pictures captioned "the last
good output of the graph".
Real DALI on the CPU."""

from __future__ import annotations

import html
import shutil
from pathlib import Path

from augexplorer_widgets import Explorer

from augexplorer.catalog import Catalog
from augexplorer.data import samples_dir
from augexplorer.spec import dumps


def shows_no_old_pictures(panel: Explorer) -> None:
    assert panel.state.failure is not None
    assert panel.result is None and panel.grid.tiles.tiles == []
    said = html.unescape(panel.errors.value)
    assert "another graph's" in said and "last good result" not in said


def test_redo_to_a_picked_preset_that_fails_shows_no_pictures_of_the_graph_before(
    catalog: Catalog, tmp_path: Path
) -> None:
    # the bundled samples would be read with their annotations: a folder of the user's own
    folder = tmp_path / "photos"
    shutil.copytree(samples_dir(), folder)
    panel = Explorer(
        "basic",
        data=str(folder),
        batch_size=2,
        autosave=tmp_path / "autosave.json",
        catalog=catalog,
    )
    panel.set_arg("rotate", "angle", -5.0)
    panel.flush()
    basic = panel.result
    assert basic is not None and panel.grid.tiles.tiles
    panel._now(lambda: panel.controller.pick_preset("segmentation"))
    panel.flush()
    shows_no_old_pictures(panel)
    panel.undo()
    panel.flush()
    assert panel.state.ok and panel.spec.name == "basic" and panel.grid.tiles.tiles
    panel.redo()
    panel.flush()
    assert panel.spec.name == "segmentation"
    shows_no_old_pictures(panel)
    # back once more: the basic graph's own pictures are its own again
    panel.undo()
    panel.flush()
    assert panel.state.ok and panel.result is not None and panel.grid.tiles.tiles


def test_undo_to_a_loaded_file_of_the_same_name_that_fails_shows_no_pictures(
    catalog: Catalog, tmp_path: Path
) -> None:
    """A graph file of the same name that does not run, loaded, then another preset picked
    and undone: the file's graph is still not the one whose pictures the panel holds."""
    panel = Explorer("basic", batch_size=2, autosave=None, catalog=catalog)
    broken = panel.spec.set_arg("rotate", "angle", "not a number")  # type: ignore[arg-type]
    path = tmp_path / "basic_bad.json"
    path.write_text(dumps(broken))
    panel._now(lambda: panel.controller.load(path))
    panel.flush()
    shows_no_old_pictures(panel)
    panel._now(lambda: panel.controller.pick_preset("imagenet_val"))
    panel.flush()
    assert panel.state.ok and panel.grid.tiles.tiles  # imagenet_val's own pictures
    panel.undo()
    panel.flush()
    shows_no_old_pictures(panel)


def test_a_failing_edit_after_undo_keeps_the_same_graphs_last_good_result(
    catalog: Catalog,
) -> None:
    panel = Explorer("basic", batch_size=2, autosave=None, catalog=catalog)
    panel.set_arg("rotate", "angle", -5.0)
    panel.flush()
    panel.undo()
    panel.flush()
    good = panel.result
    panel.set_arg("rotate", "angle", "not a number")  # type: ignore[arg-type]
    panel.flush()
    assert panel.result is good and panel.grid.tiles.tiles
    assert "showing the last good result" in panel.errors.value
