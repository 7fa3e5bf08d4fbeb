"""What the panel's words say against what the panel does: the timing chart's bounds, where the
schedule editor is said to be, what a Variety tile is called, and what an autosaved graph offered
back has that the graph shown has not. Real DALI on the CPU."""

from __future__ import annotations

import dataclasses
import html
import re
from pathlib import Path

import pytest
from augexplorer_widgets import Explorer
from augexplorer_widgets.autosave import Autosave
from augexplorer_widgets.schedule_view import schedule_plot
from augexplorer_widgets.timing_view import chart_html, summary
from test_grid_view import page_message, page_update

from augexplorer.presets import preset


@pytest.fixture
def explorer(catalog, tmp_path: Path) -> Explorer:  # type: ignore[no-untyped-def]
    return Explorer("basic", batch_size=4, autosave=tmp_path / "autosave.json", catalog=catalog)


def test_the_timing_title_bounds_the_time_from_above_and_the_rate_from_below(
    explorer: Explorer,
) -> None:
    # Each operator is timed alone, so the summed time can only be more than the fused
    # pipeline's: the rate worked out from it is the least the pipeline gives, not the most.
    result = explorer.result
    assert result is not None
    total, rate = summary(result)
    title = re.search("<div class='ax-chart-title'>(.*?)</div>", chart_html(result))
    assert title is not None
    assert title.group(1) == (f"batch of 4: at most {total:.0f} ms, at least {rate:.0f} images/s")
    assert "upper bound" not in title.group(1)


def test_the_empty_run_plot_names_the_editor_instead_of_a_direction() -> None:
    # The "Follow the run" editor sits with the selected node's controls: above the training
    # run box in a narrow panel, in the column beside it in a wide one. Never below it.
    text = schedule_plot(preset("basic"), 0)
    assert "No value follows the run yet" in text
    assert "below" not in text and "above" not in text
    assert "“Follow the run”" in text


def test_variety_tiles_are_named_as_draws_of_the_one_sample(explorer: Explorer) -> None:
    page_update(explorer.grid.tiles, opened=2)
    page_message(explorer.grid.tiles, {"event": "vary", "sample": 2, "draws": 5})
    tiles = explorer.grid.tiles.tiles
    # every tile is sample #2 drawn again: "#0".."#4" would read as other samples
    assert [t["name"] for t in tiles] == [f"draw {k}" for k in range(1, 6)]
    page_update(explorer.grid.mode, index=0)  # Batch
    assert [t["name"] for t in explorer.grid.tiles.tiles] == [""] * 4


def test_an_autosave_offered_back_says_how_it_differs_from_the_graph_shown(
    catalog, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    # The edited graph keeps its preset's name: "an autosaved graph imagenet_train" offered over
    # imagenet_train read as the same graph, and "Keep this one" threw the edits away.
    path = tmp_path / "autosave.json"
    edited = preset("basic").set_arg("rotate", "fill_value", 77.0).remove("flip")
    Autosave(path).save(dataclasses.replace(edited, batch_size=4))
    explorer = Explorer("basic", batch_size=4, autosave=path, catalog=catalog)
    said = html.unescape(explorer.banner.text.value)
    assert explorer.banner.shown and "An autosaved graph <b>basic</b>" in said
    assert said.endswith("It differs from the graph shown: removed flip; changed rotate.")


def test_the_toolbar_bounds_the_time_and_rate_as_the_timing_tab_does(explorer: Explorer) -> None:
    result = explorer.result
    assert result is not None
    total, rate = summary(result)
    shown = html.unescape(re.sub(r"<[^>]+>", "", explorer.toolbar.status.value))
    assert f"≤{total:.0f} ms/batch · ≥{rate:.0f} img/s" in shown
