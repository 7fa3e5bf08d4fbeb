"""The panel's Compare tab: the same images through the user's live albumentations Compose and
its port, tiles and figures shown; a file is run only when "run the file" is ticked."""

from __future__ import annotations

import html
from pathlib import Path

import numpy as np
import pytest
from augexplorer_widgets import Explorer
from augexplorer_widgets.compare_view import DEFAULT_IMAGES, CompareView
from test_widgets_panel import browser_update

from augexplorer.catalog import Catalog
from augexplorer.presets import preset

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


@pytest.mark.parametrize(
    ("typed", "reason"),
    [
        ("2.5", "'2.5' is not a whole number; the number of images must be between 1 and 64"),
        ("0", "the number of images must be between 1 and 64, not 0"),
        ("-5", "the number of images must be between 1 and 64, not -5"),
        ("65", "not 65"),
        ("abc", "'abc' is not a whole number"),
    ],
)
def test_images_typed_that_cannot_be_compared_are_refused_with_the_reason(
    tmp_path: Path, typed: str, reason: str
) -> None:
    asked: list[int] = []

    def images(count: int) -> list[np.ndarray]:
        asked.append(count)
        return [np.zeros((8, 8, 3), np.uint8)] * count

    # a file that is not there: the comparison fails at once, after reading the images
    view = CompareView(lambda: str(tmp_path / "missing.py"), lambda: preset("basic"), images)
    browser_update(view.images.box, value=typed)
    assert view.images.value == DEFAULT_IMAGES, "not applied"
    assert view.images.box.value == typed, "what was typed stays in the box"
    said = html.unescape(view.refused.value)
    assert reason in said and f"The number of images stays {DEFAULT_IMAGES}." in said
    assert view.refused.layout.display == "" and "ax-input-refused" in view.images.box._dom_classes
    browser_update(view.images.box, value="3")  # fixed: in force, the reason gone
    assert view.images.value == 3 and view.refused.value == ""
    assert "ax-input-refused" not in view.images.box._dom_classes
    assert view.compare() is None and "compare failed" in view.status.value
    assert asked == [3], "the comparison read the number typed"
