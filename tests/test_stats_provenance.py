"""Statistics carry the graph and the data they were counted on, and the panel's Statistics tab
says so when the graph shown is no longer that one: after a preset is picked, after an edit,
and on other data; figures are titled as the panel names the graph ("basic, edited")."""

from __future__ import annotations

import html
import re
import shutil
from pathlib import Path

import numpy as np
import pytest
from augexplorer_widgets import Explorer
from test_widgets_panel import browser_update

from augexplorer.data import samples_dir
from augexplorer.spec import Source, chain
from augexplorer.stats import Provenance, collect_stats

BATCHES = 2


def text(widget: object) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", getattr(widget, "value", "")))


@pytest.fixture
def explorer(catalog, tmp_path: Path) -> Explorer:  # type: ignore[no-untyped-def]
    panel = Explorer("basic", batch_size=2, autosave=tmp_path / "autosave.json", catalog=catalog)
    panel.stats_view.batches.value = BATCHES
    return panel


def title_line(explorer: Explorer) -> str:
    """The summary's first line: what the figures are of."""
    found = re.search(r"<pre class='ax-stats-summary'>([^\n]*)", explorer.stats_view.report.value)
    assert found is not None
    return html.unescape(found.group(1))


def count(explorer: Explorer) -> None:
    explorer.stats_view.run_button.click()
    explorer.stats_view.wait(120)
    assert explorer.stats_view.stats is not None, text(explorer.stats_view.status)


def photos(root: Path) -> Path:
    folder = root / "photos" / "pets"
    folder.mkdir(parents=True)
    for photo in sorted(samples_dir().glob("*/*.jpg"))[:3]:
        shutil.copy(photo, folder / photo.name)
    return root / "photos"


# ---- the engine -------------------------------------------------------------------------------


def test_stats_carry_the_graph_and_the_data_they_counted() -> None:
    images = [np.full((16, 16, 3), 10 * i, dtype=np.uint8) for i in range(3)]
    spec = chain(Source("source", "arrays"), ("flip", "flip", {"horizontal": 1}), batch_size=3)
    stats = collect_stats(spec, images, batches=1, device_id=None, name="mine")
    assert stats.provenance is not None
    assert stats.provenance.graph.ids() == ["source", "flip"]
    assert stats.provenance.data == "images in memory (3)"
    assert not stats.provenance.other_data(spec, images)
    assert stats.provenance.other_data(spec, list(images)), "other arrays are other data"
    assert stats.summary().startswith("mine on images in memory (3): 3 samples")
    saved = stats.to_json()
    assert saved["name"] == "mine" and saved["data"] == "images in memory (3)"
    assert [n["id"] for n in saved["graph"]["nodes"]] == ["source", "flip"]


def test_provenance_names_folders_and_the_bundled_samples(tmp_path: Path) -> None:
    spec = chain(Source("source"), ("flip", "flip", {}))
    assert Provenance.of(spec).data == "the bundled samples"
    folder = spec.with_data(Source("source", "folder", str(tmp_path)))
    assert Provenance.of(folder).data == f"folder {tmp_path}"
    assert Provenance.of(spec).other_data(folder)


# ---- the panel --------------------------------------------------------------------------------


def test_a_preset_picked_after_a_run_marks_the_figures_as_another_graphs(
    explorer: Explorer,
) -> None:
    view = explorer.stats_view
    count(explorer)
    assert view.stale.value == "", "the figures of the graph shown"
    assert title_line(explorer).startswith("basic on the bundled samples: 4 samples")
    explorer.controller.pick_preset("randaugment")
    explorer.flush()
    explorer.select(None)  # any redraw of the panel
    said = text(view.stale)
    assert "Out of date: these figures are of “basic”" in said
    assert "(“randaugment”: another graph)" in said and "Run statistics again" in said
    # back to the graph counted: its figures again
    explorer.undo()
    explorer.select(None)
    assert view.stale.value == ""


def test_an_edit_marks_the_figures_and_says_what_changed(explorer: Explorer) -> None:
    view = explorer.stats_view
    explorer.set_arg("rotate", "fill_value", 9.0)
    count(explorer)
    assert title_line(explorer).startswith("basic, edited on the bundled samples")
    explorer.node_panel.actions.remove("flip")
    explorer.flush()
    wanted = "of “basic, edited”, not of the graph shown (“basic, edited”: an edit: removed flip)"
    assert wanted in text(view.stale)


def test_other_data_is_said_and_the_title_is_the_panels(explorer: Explorer, tmp_path: Path) -> None:
    view = explorer.stats_view
    count(explorer)
    folder = photos(tmp_path)
    explorer.controller.set_source("folder", str(folder))
    explorer.set_arg("rotate", "fill_value", 9.0)
    explorer.flush()
    said = text(view.stale)
    assert "of “basic”, not of the graph shown (“basic, edited”: an edit: " in said
    assert "other data" in said
    # counted again on the user's folder: titled as the panel names the edited graph
    count(explorer)
    assert view.stale.value == ""
    # three photos in two batches of 2: the reader's repeat of the last is not counted
    assert title_line(explorer).startswith(f"basic, edited on folder {folder}: 3 samples")
    assert view.stats is not None and view.stats.name == "basic, edited"


def test_statistics_tab_stays_quiet_before_a_run(explorer: Explorer) -> None:
    explorer.controller.pick_preset("randaugment")
    explorer.flush()
    browser_update(explorer.tabs, selected_index=2)
    assert explorer.stats_view.stale.value == ""
