"""A drawn value reads the same on its tile and in its large view: one rule words both (the
tile said rotate.angle=18 where the large view said 17.98). Real DALI on the CPU; messages as
the page sends them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from augexplorer_widgets import Explorer

from augexplorer.engine.result import caption_draws, draw_text
from augexplorer.presets import preset
from augexplorer.render.sample_view import listed_draws
from augexplorer.spec import Probability


def page_update(widget: Any, **state: Any) -> None:
    """Exactly what the front end sends when the user changes a widget's trait."""
    widget._handle_msg(
        {
            "content": {"data": {"method": "update", "state": state, "buffer_paths": []}},
            "buffers": [],
        }
    )


@pytest.fixture
def explorer(catalog, tmp_path: Path) -> Explorer:  # type: ignore[no-untyped-def]
    return Explorer("basic", batch_size=6, autosave=tmp_path / "autosave.json", catalog=catalog)


def large_rows(explorer: Explorer, index: int) -> list[list[str]]:
    page_update(explorer.grid.tiles, opened=index)
    return list(explorer.grid.tiles.large["draw_rows"])


def test_a_drawn_angle_reads_the_same_on_its_tile_and_in_its_large_view(
    explorer: Explorer,
) -> None:
    result = explorer.result
    assert result is not None
    angles = result.draws("rotate")["rotate"]["angle"]
    for tile in explorer.grid.tiles.tiles:
        index = tile["index"]
        rows = large_rows(explorer, index)
        # every row of the large view is a word of the tile's caption, in its order
        assert " ".join(f"{name}={text}" for name, text in rows) == tile["draws"]
        angle = dict(rows)["rotate.angle"]
        assert float(angle) == pytest.approx(angles[index], abs=0.01)  # hundredths kept


def test_a_value_that_rounds_to_a_whole_number_keeps_its_digits() -> None:
    """17.98 read "18" on the tile: a drawn angle that reads as a whole number."""
    assert draw_text(17.98) == "17.98"
    assert draw_text(-18.4213) == "-18.42"
    assert draw_text(0.73512) == "0.7351"
    assert draw_text(-3.0) == "-3"
    assert draw_text(True) == "1"
    assert draw_text([0.5, 12.345]) == "[0.5,12.35]"


def test_a_node_its_coin_skipped_reads_skipped_in_the_large_view_as_on_its_tile(
    catalog,  # type: ignore[no-untyped-def]
) -> None:
    """The tile left the values of a node that did not run out ("skipped rotate"); the large
    view listed its angle and its coin (rotate.apply 0) as if they had made the picture."""
    spec = preset("basic").set_probability("rotate", Probability(0.5, 3))
    explorer = Explorer(spec, batch_size=6, autosave=None, catalog=catalog)
    result = explorer.result
    assert result is not None
    flips = result.draws("rotate")["rotate"]["apply"]
    assert 0 < sum(bool(f) for f in flips) < len(flips)  # some ran, some were skipped
    for tile in explorer.grid.tiles.tiles:
        rows = dict(large_rows(explorer, tile["index"]))
        assert "rotate.apply" not in rows
        if flips[tile["index"]]:
            assert "rotate.angle" in rows and "skipped" not in rows
        else:
            assert rows["skipped"] == "rotate" and "rotate.angle" not in rows
            assert "skipped rotate" in tile["draws"]


def test_a_random_nodes_own_draw_is_named_by_the_node() -> None:
    """The segmentation preset's tiles read "crop_x.drawn=0.5012 coin.drawn=0": "drawn" is no
    argument a person set; the node's name says what was drawn."""
    draws = {"crop_x": {"drawn": [0.50123]}, "coin": {"drawn": [0]}, "flip": {"horizontal": [1]}}
    assert caption_draws(draws, 1, True) == ["crop_x=0.5012 coin=0 flip.horizontal=1"]
    assert listed_draws({"coin": {"drawn": 1}}) == [("coin", "1")]


def test_a_random_nodes_output_reads_as_its_draw(catalog) -> None:  # type: ignore[no-untyped-def]
    """Selecting segmentation's crop_x showed its value "0.501" above "crop_x 0.5012" in the
    same large view: a value's text is the draw's wherever it shows."""
    panel = Explorer("segmentation", batch_size=4, autosave=None, catalog=catalog)
    panel.select("crop_x")
    panel.flush()
    result = panel.result
    assert result is not None
    drawn = result.draws("crop_x")["crop_x"]["drawn"]
    for tile in panel.grid.tiles.tiles:
        index = tile["index"]
        assert tile["text"] == draw_text(drawn[index]) == dict(large_rows(panel, index))["crop_x"]
        after = next(p for p in panel.grid.tiles.large["panes"] if p["role"] == "after")
        assert after["text"] == tile["text"]
