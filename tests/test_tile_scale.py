"""Every tile of a grid at one scale: each tile carries its picture's own size in pixels (the
thumbnail may be smaller), from which the page draws all of them by one factor."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
from augexplorer_widgets import Explorer
from PIL import Image

from augexplorer.render.tiles import picture_size
from augexplorer.spec import Ref


@pytest.fixture
def explorer(catalog, tmp_path: Path) -> Explorer:  # type: ignore[no-untyped-def]
    return Explorer("basic", batch_size=4, autosave=tmp_path / "autosave.json", catalog=catalog)


def jpeg_size(jpeg: bytes) -> tuple[int, int]:
    with Image.open(io.BytesIO(jpeg)) as image:
        return image.size


def test_tiles_carry_their_pictures_own_sizes_where_the_thumbnail_is_smaller(
    explorer: Explorer,
) -> None:
    explorer.select("decode")  # photos of different sizes, several larger than the tile
    result = explorer.result
    assert result is not None
    natural = [(a.shape[1], a.shape[0]) for a in result.arrays(Ref("decode"))]
    assert len(set(natural)) > 1 and max(max(n) for n in natural) > explorer.grid.size.value
    tiles = explorer.grid.tiles.tiles
    assert [tuple(t["sizes"][0]) for t in tiles] == natural
    for tile, (width, height) in zip(tiles, natural, strict=True):
        shown = jpeg_size(tile["pictures"][0])
        # the thumbnail is the picture fitted into the tile: its own size is what is sent beside
        assert max(shown) == min(max(width, height), explorer.grid.size.value)


def test_ab_tiles_carry_both_sizes(explorer: Explorer) -> None:
    explorer.select("rotate")
    explorer.grid.mode.value = "A/B"
    explorer.set_arg("rotate", "angle", 10.0)
    tiles = explorer.grid.tiles.tiles
    assert tiles and all(len(t["pictures"]) == 2 for t in tiles)
    result = explorer.result
    assert result is not None
    now = [(a.shape[1], a.shape[0]) for a in result.arrays(Ref("rotate"))]
    for tile, size in zip(tiles, now, strict=True):
        assert len(tile["sizes"]) == 2 and tuple(tile["sizes"][1]) == size
        assert all(w > 0 and h > 0 for w, h in tile["sizes"])


def test_values_that_are_no_picture_have_no_size(explorer: Explorer) -> None:
    explorer.select("source")  # encoded bytes
    assert all(t["sizes"] == [[0, 0]] for t in explorer.grid.tiles.tiles)
    assert picture_size(np.zeros((1000,), np.uint8), "") == (0, 0)
    assert picture_size(np.zeros((3, 20, 30), np.uint8), "CHW") == (30, 20)


def test_the_tile_size_reaches_the_width_of_a_wide_panel(explorer: Explorer) -> None:
    explorer.grid.size.box.value = "1000"
    assert explorer.grid.size.value == 1000 and explorer.grid.tiles.size == 1000
    assert explorer.grid.refused.value == ""


def test_a_refused_tile_size_does_not_survive_a_preset_switch(explorer: Explorer) -> None:
    grid = explorer.grid
    grid.size.box.value = "5000"
    assert "The tile size stays 240" in grid.refused.value
    assert "ax-input-refused" in grid.size.box._dom_classes
    explorer.toolbar.preset.value = "imagenet_train"
    explorer.flush()
    assert explorer.spec.name != "basic"
    assert grid.refused.value == "" and grid.refused.layout.display == "none"
    assert grid.size.box.value == "240" and "ax-input-refused" not in grid.size.box._dom_classes
