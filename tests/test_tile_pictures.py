"""What travels to the page for the tiles: pictures by name, only those the page lacks, and a
preview during a drag that the full pictures always replace. Real DALI on the CPU; messages as
the kernel sends them (captured from the widget) and as the page sends them."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path
from typing import Any

import pytest
from augexplorer_widgets import Explorer
from augexplorer_widgets.tile_grid import TileGrid, tile_state
from augexplorer_widgets.tile_pictures import picture_key, picture_type
from PIL import Image

from augexplorer.render.tiles import node_tiles
from augexplorer.spec import Ref


def page_message(widget: Any, content: dict[str, Any]) -> None:
    """A custom message from the page (``model.send`` in the widget's module)."""
    widget._handle_msg(
        {"content": {"data": {"method": "custom", "content": content}}, "buffers": []}
    )


def capture(grid: TileGrid) -> list[tuple[dict[str, Any], list[bytes]]]:
    """Every custom message the widget sends to the page from now on."""
    sent: list[tuple[dict[str, Any], list[bytes]]] = []
    grid.send = lambda content, buffers=None: sent.append((content, list(buffers or [])))  # type: ignore[method-assign]
    return sent


def jpeg_size(picture: bytes) -> tuple[int, int]:
    with Image.open(io.BytesIO(picture)) as image:
        return image.size


@pytest.fixture
def explorer(catalog, tmp_path: Path) -> Explorer:  # type: ignore[no-untyped-def]
    return Explorer("basic", batch_size=4, autosave=tmp_path / "autosave.json", catalog=catalog)


def jpegs(explorer: Explorer) -> list[bytes]:
    pictures = [p for p in explorer.grid.pictures if p is not None]
    assert len(pictures) == 4 and len(set(pictures)) == 4
    return pictures


def test_only_the_pictures_that_changed_are_sent(explorer: Explorer) -> None:
    a, b, c, d = jpegs(explorer)
    grid = TileGrid()
    sent = capture(grid)
    grid.tiles = [tile_state(i, [p], draws=f"x={i}") for i, p in enumerate([a, b, c])]
    assert len(sent) == 1
    content, buffers = sent[0]
    assert content["event"] == "pictures"
    assert content["keys"] == [picture_key(p) for p in (a, b, c)] and buffers == [a, b, c]
    assert content["types"] == ["image/jpeg"] * 3  # what the page decodes them as
    # The tiles' state names the pictures; their bytes never travel in it. The message with
    # the pictures carries the same tiles and the frame's number (the page draws from it).
    state = grid.get_state("tiles")["tiles"]
    assert [t["pictures"] for t in state] == [[picture_key(p)] for p in (a, b, c)]
    assert [t["draws"] for t in state] == ["x=0", "x=1", "x=2"]
    assert content["tiles"] == state and content["frame"] == grid.frame

    # One tile's pixels change (and another's caption alone): one picture goes.
    sent.clear()
    grid.tiles = [
        tile_state(0, [a], draws="x=0"),
        tile_state(1, [d]),
        tile_state(2, [c], draws="y"),
    ]
    assert [(m["keys"], bufs) for m, bufs in sent] == [([picture_key(d)], [d])]
    assert sent[0][0]["tiles"][2]["draws"] == "y" == grid.get_state("tiles")["tiles"][2]["draws"]

    # The same pictures again, a value that is not an image beside them: nothing goes.
    sent.clear()
    grid.tiles = [tile_state(0, [a]), tile_state(1, [d]), tile_state(2, [None], text="[1 2]")]
    assert sent == []
    assert grid.get_state("tiles")["tiles"][2]["pictures"] == [None]
    assert grid.pictures_sent == 4

    # A picture dropped and shown again is sent again: the page kept only those of the tiles.
    grid.tiles = [tile_state(0, [a])]
    grid.tiles = [tile_state(0, [a]), tile_state(1, [b])]
    assert [(m["keys"], bufs) for m, bufs in sent] == [([picture_key(b)], [b])]


def test_a_view_opened_later_gets_the_pictures_it_asks_for(explorer: Explorer) -> None:
    a, b, *_ = jpegs(explorer)
    grid = TileGrid()
    grid.tiles = [tile_state(0, [a]), tile_state(1, [b])]
    sent = capture(grid)
    page_message(grid, {"event": "want", "keys": [picture_key(b), "0123456789abcdef"]})
    # only what the tiles hold now: a name from an older grid is not answered
    assert sent == [({"event": "pictures", "keys": [picture_key(b)], "types": ["image/jpeg"]}, [b])]
    sent.clear()
    page_message(grid, {"event": "want", "keys": "not a list"})
    assert sent == []


def test_switching_views_sends_only_the_pictures_the_page_lacks(explorer: Explorer) -> None:
    explorer.grid.mode.value = "Batch"
    now = explorer.grid.pictures
    explorer.set_arg("rotate", "fill_value", 64.0)  # an edit: A/B has a "before" to show
    explorer.flush()
    sent = capture(explorer.grid.tiles)
    explorer.grid.mode.value = "A/B"
    # The "now" pictures are on the page already: only the "before" ones go.
    tiles = explorer.grid.tiles.tiles
    before = {picture_key(t["pictures"][0]) for t in tiles}
    after = {picture_key(t["pictures"][1]) for t in tiles}
    assert len(sent) == 1 and set(sent[0][0]["keys"]) == before - after
    sent.clear()
    explorer.grid.mode.value = "Batch"
    assert sent == []  # every picture of the batch is still on the page
    assert explorer.grid.pictures != now  # the edit's pictures, not the first ones


def test_a_drag_previews_then_the_full_pictures_of_the_final_value(explorer: Explorer) -> None:
    explorer.select("rotate")
    grid = explorer.grid
    grid.mode.value = "Batch"
    slider = explorer.node_panel.controls["angle"].editor.params["range"]

    half = grid.size.value // 2

    async def drag() -> list[int]:
        preview_sides = []
        for high in (19.0, 17.0, 15.0, 13.0, 11.0, 9.0):
            slider.value = (-20.0, high)  # as the page sends a dragged handle, ~30 ms apart
            await asyncio.sleep(0.03)
            tiles = grid.tiles.tiles
            if all(t["preview"] for t in tiles):
                preview_sides += [max(jpeg_size(t["pictures"][0])) for t in tiles]
                # made by the tiles' quick path (lower quality), not the full one made smaller
                assert explorer.result is not None
                shown = [t["pictures"][0] for t in tiles]
                quick = node_tiles(explorer.result, Ref("rotate"), half, preview=True)
                assert shown == [t.picture for t in quick]
                full_small = node_tiles(explorer.result, Ref("rotate"), half)
                assert shown != [t.picture for t in full_small]
        await asyncio.sleep(0.5)  # the slider rests
        return preview_sides

    preview_sides = asyncio.run(drag())
    assert preview_sides and grid.previews > 0
    # Previews are smaller pictures: a quarter of the pixels to encode, move and decode.
    assert max(preview_sides) <= half
    # After the rest: the full pictures of the final value, and captions drawn from it.
    assert explorer.spec.node("rotate").args["angle"].high == 9.0
    tiles = grid.tiles.tiles
    assert not any(t["preview"] for t in tiles)
    fresh = node_tiles(explorer.result, Ref("rotate"), grid.size.value)
    assert [t["pictures"][0] for t in tiles] == [t.picture for t in fresh]
    assert [t["draws"] for t in tiles] == [t.draws for t in fresh]
    for tile in tiles:
        angle = float(tile["draws"].split("rotate.angle=")[1])
        assert -20.1 <= angle <= 9.1


def test_without_an_event_loop_every_result_is_drawn_in_full(explorer: Explorer) -> None:
    explorer.select("rotate")
    slider = explorer.node_panel.controls["angle"].editor.params["range"]
    for high in (19.0, 17.0, 15.0):
        slider.value = (-20.0, high)
    assert explorer.grid.previews == 0
    assert not any(t["preview"] for t in explorer.grid.tiles.tiles)


@pytest.mark.parametrize(
    ("format_name", "mime"), [("JPEG", "image/jpeg"), ("WEBP", "image/webp"), ("PNG", "image/png")]
)
def test_the_page_is_told_each_pictures_codec(format_name: str, mime: str) -> None:
    """The grid's encoder may change codec; the page decodes each picture as its bytes say."""
    out = io.BytesIO()
    Image.new("RGB", (8, 8), (200, 40, 40)).save(out, format_name)
    picture = out.getvalue()
    assert picture_type(picture) == mime
    grid = TileGrid()
    sent = capture(grid)
    grid.tiles = [tile_state(0, [picture])]
    assert [m["types"] for m, _ in sent] == [[mime]]
