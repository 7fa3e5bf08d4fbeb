"""A graph that needs annotated data, on a folder: the error names the source it needs and the
panel offers it as a button; the grid under the error never shows another graph's pictures.
Real DALI on the CPU."""

from __future__ import annotations

import dataclasses
import html
import shutil
from pathlib import Path

from augexplorer_widgets import Explorer

from augexplorer.catalog import Catalog
from augexplorer.checks.annotated import ANNOTATED_FIX, needs_annotated_source
from augexplorer.data import samples_dir
from augexplorer.errors import GraphInvalid
from augexplorer.presets import preset, preset_on
from augexplorer.spec import Source
from augexplorer.validate import validate


def texts(explorer: Explorer) -> list[str]:
    return [button.description for button in explorer.fixes.children]


def test_an_annotated_preset_on_a_folder_names_the_source_it_needs(catalog: Catalog) -> None:
    spec = preset_on("ssd_detection", Source("source", "folder", "photos/"))
    assert needs_annotated_source(spec)
    assert not needs_annotated_source(preset("ssd_detection"))
    assert not needs_annotated_source(preset("basic"))
    try:
        validate(spec, catalog)
    except GraphInvalid as error:
        problems = error.problems
    else:
        raise AssertionError("an SSD graph on a folder must not validate")
    assert len(problems) == 1
    problem = problems[0]
    assert problem.node == "box_crop" and problem.fix == ANNOTATED_FIX
    assert "output index" not in str(problem)
    assert (
        "input 1 reads annotations" in problem.message and "a folder of images" in problem.message
    )
    assert "COCO annotations" in (problem.fix or "")


def test_picking_ssd_detection_on_a_folder_offers_coco_and_shows_no_other_graphs_result(
    catalog: Catalog, tmp_path: Path
) -> None:
    # a folder of the user's own: on the bundled samples the preset reads their annotations
    folder = tmp_path / "photos"
    shutil.copytree(samples_dir(), folder)
    panel = Explorer(
        "basic",
        data=str(folder),
        batch_size=2,
        autosave=tmp_path / "autosave.json",
        catalog=catalog,
    )
    assert panel.state.ok and panel.result is not None
    basic_tiles = list(panel.grid.tiles.tiles)
    assert basic_tiles
    panel._now(lambda: panel.controller.pick_preset("ssd_detection"))
    panel.flush()
    failure = panel.state.failure
    assert failure is not None and failure.kind == "invalid"
    said = html.unescape(panel.errors.value)
    assert "COCO annotations" in said and "output index" not in said
    # the basic graph's pictures are not this graph's "last good result"
    assert panel.result is None and panel.grid.tiles.tiles == []
    assert "last good result" not in said and "another graph's" in said
    assert panel.grid.overlay_toggles.layout.display == "none"
    assert texts(panel) == ["Read COCO annotations"]
    panel.fixes.annotated.click()
    panel.flush()
    assert panel.state.ok, panel.state.failure
    source = panel.spec.sources()[0]
    assert source.kind == "coco" and source.path is None  # the bundled annotated photos
    assert source.reader_args.get("skip_empty")  # as the preset reads them
    assert panel.spec.batch_size == 2
    assert panel.fixes.layout.display == "none" and panel.errors.layout.display == "none"
    toggles = panel.grid.overlay_toggles
    for kind in ("boxes", "polygons", "keypoints"):  # every kind read is carried and drawn
        assert toggles.buttons[kind].value and not toggles.buttons[kind].disabled, kind
    assert panel.grid.tiles.tiles  # this graph's own pictures


def test_a_failing_edit_of_the_same_graph_keeps_its_last_good_result(
    catalog: Catalog, tmp_path: Path
) -> None:
    panel = Explorer("basic", batch_size=2, autosave=None, catalog=catalog)
    good = panel.result
    panel.set_arg("rotate", "angle", "not a number")  # type: ignore[arg-type]
    assert not panel.state.ok
    assert panel.result is good  # the same graph's last good result stays on screen
    assert "showing the last good result" in panel.errors.value
    panel.undo()
    assert panel.state.ok


def test_a_broken_file_of_the_same_graphs_name_shows_no_old_pictures(
    catalog: Catalog, tmp_path: Path
) -> None:
    """Found in a trial: a saved basic graph edited by hand (a node removed, an operator named
    'flipp') and loaded showed the replaced graph's pictures as its "last good output", since
    the two graphs had one name."""
    from augexplorer.spec import dumps

    panel = Explorer("basic", batch_size=2, autosave=tmp_path / "autosave.json", catalog=catalog)
    assert panel.result is not None and panel.grid.tiles.tiles
    edited = panel.spec.remove("rotate").replace_node(
        dataclasses.replace(panel.spec.node("flip"), op="flipp")
    )
    assert edited.name == panel.spec.name
    path = tmp_path / "basic_other_bad.json"
    path.write_text(dumps(edited))
    panel._now(lambda: panel.controller.load(path))
    panel.flush()
    assert panel.state.failure is not None
    assert panel.result is None and panel.grid.tiles.tiles == []  # nothing of the old graph
    assert "another graph's" in html.unescape(panel.errors.value)
