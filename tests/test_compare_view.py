"""The panel's Compare tab: the same images through the user's live albumentations Compose and
its port, tiles and figures shown; a file is run only when "run the file" is ticked."""

from __future__ import annotations

from pathlib import Path

import pytest
from augexplorer_widgets import Explorer

from augexplorer.catalog import Catalog

A = pytest.importorskip("albumentations")

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning:albumentations.*")


def test_compare_tab_shows_both_sides_and_the_figures(tmp_path: Path, catalog: Catalog) -> None:
    pipeline = A.Compose([A.HorizontalFlip(p=0.5), A.Resize(48, 48)])
    explorer = Explorer(port=pipeline, batch_size=2, autosave=tmp_path / "a.json", catalog=catalog)
    view = explorer.compare_view
    assert explorer.tabs.get_title(3) == "Compare"
    assert not view.compare_button.disabled
    assert view._file_controls.layout.display == "none"  # a live object: nothing to allow
    view.images.value = 2
    comparison = view.compare()
    assert comparison is not None and view.comparison is comparison
    assert view.tiles.value.count("<img") == 6  # input, original, port for each image
    assert "48x48 uint8" in view.tiles.value
    assert "HorizontalFlip" in view.figures.value and "identical" in view.figures.value
    assert "ax-grade-exact" in view.figures.value
    assert "albumentations 2" in view.status.value


def test_an_edit_in_the_graph_shows_in_the_figures(tmp_path: Path, catalog: Catalog) -> None:
    pipeline = A.Compose([A.Resize(48, 48)])
    explorer = Explorer(port=pipeline, batch_size=2, autosave=tmp_path / "a.json", catalog=catalog)
    explorer.set_arg("resize", "interp_type", "INTERP_NN")
    explorer.flush()
    comparison = explorer.compare_view.compare()
    assert comparison is not None
    resize = comparison.step("Resize")
    assert resize.pixels is not None and resize.pixels.max_abs > 20


def test_a_file_is_compared_only_when_allowed(tmp_path: Path, catalog: Catalog) -> None:
    path = tmp_path / "train.py"
    path.write_text("import albumentations as A\nt = A.Compose([A.Resize(32, 32)])\n")
    explorer = Explorer(port=str(path), batch_size=2, autosave=tmp_path / "a.json", catalog=catalog)
    view = explorer.compare_view
    assert view._file_controls.layout.display == "flex"
    assert view.compare() is None
    assert "run_file=True" in view.status.value and view.tiles.value == ""
    view.run_file.value = True
    comparison = view.compare()
    assert comparison is not None and not comparison.original_error
    assert view.tiles.value.count("<img") == 3 * len(comparison.inputs)


def test_nothing_to_compare_without_a_port(tmp_path: Path, catalog: Catalog) -> None:
    explorer = Explorer(batch_size=2, autosave=tmp_path / "a.json", catalog=catalog)
    assert explorer.compare_view.compare_button.disabled
    assert "Explorer(port=" in explorer.compare_view.status.value


def test_a_preset_picked_leaves_nothing_to_compare(tmp_path: Path, catalog: Catalog) -> None:
    pipeline = A.Compose([A.Resize(32, 32)])
    explorer = Explorer(port=pipeline, batch_size=2, autosave=tmp_path / "a.json", catalog=catalog)
    view = explorer.compare_view
    view.images.value = 1
    assert view.compare() is not None and view.tiles.value
    explorer.toolbar.preset.value = "basic"
    explorer.flush()
    assert explorer.original is None and view.compare_button.disabled
    assert view.tiles.value == "" and view.comparison is None
