"""A graph whose boxes an image node left behind (a rotate inserted with no bbox_rotate) is
exported with a warning, loudly in the module's header too: training on it would put boxes off
their objects. Carried through the node, the same graph exports without one."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest
from augexplorer_widgets import Explorer
from test_widgets_panel import browser_update

from augexplorer import Node, Random, preset
from augexplorer.annotations.drawable import carry_all
from augexplorer.catalog import Catalog
from augexplorer.export import export, generate
from augexplorer.export.annotations_note import AnnotationsLeftBehind, left_behind
from augexplorer.spec import GraphSpec


def rotated() -> GraphSpec:
    rotate = Node("rot", "rotate", args={"angle": Random.uniform(-30, 30), "keep_size": True})
    return preset("ssd_detection").insert_after("resize", rotate)


def test_boxes_left_behind_are_said_on_export_and_in_the_header(tmp_path: Path) -> None:
    spec = rotated()
    assert left_behind(spec) == ["boxes no longer match the images after 'rot' (rotate)"]
    with pytest.warns(AnnotationsLeftBehind, match="boxes no longer match the images after 'rot'"):
        export(spec, tmp_path / "rotated.py")
    header = (tmp_path / "rotated.py").read_text().split('"""')[1]
    assert "WARNING: ANNOTATIONS DO NOT MATCH THE IMAGES" in header
    assert "add_operator" in header  # the fix


def test_carried_boxes_and_graphs_without_annotations_export_quietly(tmp_path: Path) -> None:
    carried = carry_all(rotated())
    assert left_behind(carried) == []
    assert left_behind(preset("ssd_detection")) == []
    assert left_behind(preset("basic")) == []
    with warnings.catch_warnings():
        warnings.simplefilter("error", AnnotationsLeftBehind)
        export(carried, tmp_path / "carried.py")
    assert "ANNOTATIONS DO NOT MATCH" not in generate(carried)


def test_the_panel_says_it_beside_the_file_written(catalog: Catalog, tmp_path: Path) -> None:
    explorer = Explorer(
        rotated(), batch_size=4, autosave=tmp_path / "autosave.json", catalog=catalog
    )
    target = tmp_path / "rotated.py"
    browser_update(explorer.export_view.path, value=str(target))
    explorer.export_view.button.click()
    said = explorer.export_view.message.value
    assert "Wrote" in said and target.is_file()
    assert "boxes no longer match the images after &#x27;rot&#x27;" in said


def test_the_command_line_says_it_as_a_warning_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from augexplorer.cli import main
    from augexplorer.spec import dumps

    graph = tmp_path / "rotated.json"
    graph.write_text(dumps(rotated()))
    assert main(["export", str(graph), "-o", str(tmp_path / "rotated.py")]) == 0
    err = capsys.readouterr().err
    assert err.startswith("warning: ") and "boxes no longer match the images after 'rot'" in err


def test_the_images_need_not_be_the_first_output() -> None:
    spec = rotated()
    reordered = dict(reversed(list(spec.outputs.items())))
    assert next(iter(reordered)) != "images"
    moved = GraphSpec(spec.nodes, reordered, batch_size=spec.batch_size, seed=spec.seed)
    assert left_behind(moved) == ["boxes no longer match the images after 'rot' (rotate)"]
