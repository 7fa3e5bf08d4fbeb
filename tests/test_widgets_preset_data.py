"""A preset picked on the bundled photos reads them as the preset is written to: the detection
preset picked on the bundled samples started with an error and a "Read COCO annotations"
button (the bundled COCO file is there for it), and a classification preset picked after it
stayed on that COCO file, reading a box reader's output as its labels. The user's own folder
is never swapped: the error and its button stay. Real DALI on the CPU."""

from __future__ import annotations

import html
import shutil
from pathlib import Path

from augexplorer_widgets import Explorer
from test_widgets_annotations import drawn
from test_widgets_panel import choose, sample_classes

from augexplorer.catalog import Catalog
from augexplorer.data import samples_dir


def open_panel(
    tmp_path: Path, catalog: Catalog, name: str = "basic", data: str | None = None
) -> Explorer:
    panel = Explorer(
        name, data=data, batch_size=4, autosave=tmp_path / "autosave.json", catalog=catalog
    )
    panel.flush()
    assert panel.state.ok, panel.state.failure
    return panel


def pick(panel: Explorer, name: str) -> None:
    """Pick preset `name` in the toolbar's drop-down, as the page sends it."""
    choose(panel.toolbar.preset, name)
    panel.flush()


def test_the_detection_preset_on_the_bundled_samples_draws_its_boxes_at_once(
    tmp_path: Path, catalog: Catalog
) -> None:
    panel = open_panel(tmp_path, catalog)
    pick(panel, "ssd_detection")
    assert panel.spec.name == "ssd_detection"
    assert panel.state.ok, panel.state.failure
    assert panel.fixes.layout.display == "none" and panel.errors.layout.display == "none"
    source = panel.spec.sources()[0]
    assert source.kind == "coco" and source.path is None  # the bundled COCO file
    assert source.reader_args.get("skip_empty")  # as the preset reads it
    assert panel.toolbar.source.value == "coco"  # the data menu says what is read
    toggles = panel.grid.overlay_toggles
    for kind in ("boxes", "polygons", "keypoints"):  # what the photos carry, drawn
        assert toggles.buttons[kind].value and not toggles.buttons[kind].disabled, kind
    assert panel.grid.tiles.tiles
    assert any(overlay["boxes"] for overlay in drawn(panel))
    assert "the bundled COCO annotations" in panel.state.history[-1].label
    # one undo step back to the graph and data before the pick
    panel.undo()
    panel.flush()
    assert panel.spec.name == "basic" and panel.spec.sources()[0].kind == "samples"
    assert panel.state.ok


def test_a_classification_preset_after_it_reads_the_bundled_samples_again(
    tmp_path: Path, catalog: Catalog
) -> None:
    panel = open_panel(tmp_path, catalog, "segmentation")  # on the bundled COCO file
    assert panel.spec.sources()[0].kind == "coco"
    pick(panel, "imagenet_val")
    assert panel.state.ok, panel.state.failure
    source = panel.spec.sources()[0]
    assert source.kind == "samples" and source.reader_args == {} and not source.keypoints
    assert panel.toolbar.source.value == "samples"
    labels = {tile["label"] for tile in panel.grid.tiles.tiles}
    assert labels and labels <= sample_classes()  # each photo's class, not a box reader's
    assert panel.grid.overlay_toggles.layout.display == "none"


def test_the_users_own_folder_stays_under_the_detection_preset_with_its_fix(
    tmp_path: Path, catalog: Catalog
) -> None:
    folder = tmp_path / "photos"
    shutil.copytree(samples_dir(), folder)
    panel = open_panel(tmp_path, catalog, data=str(folder))
    pick(panel, "ssd_detection")
    source = panel.spec.sources()[0]
    assert source.kind == "folder" and source.path == str(folder)
    failure = panel.state.failure
    assert failure is not None and failure.kind == "invalid"
    assert "COCO annotations" in html.unescape(panel.errors.value)
    assert [button.description for button in panel.fixes.children] == ["Read COCO annotations"]
    assert panel.toolbar.path.value == str(folder)  # nothing the user typed is lost
