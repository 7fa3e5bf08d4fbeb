"""The image side of the panel through its traits: tiles, the large view, A/B, variety and what
the caption says after a failed edit. Real DALI on the CPU; messages as the page sends them."""

from __future__ import annotations

import dataclasses
import html
import io
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from augexplorer_widgets import Explorer
from PIL import Image

from augexplorer.presets import preset
from augexplorer.spec import Random, Ref


def page_update(widget: Any, **state: Any) -> None:
    """Exactly what the front end sends when the user changes a widget's trait."""
    widget._handle_msg(
        {
            "content": {"data": {"method": "update", "state": state, "buffer_paths": []}},
            "buffers": [],
        }
    )


def page_message(widget: Any, content: dict[str, Any]) -> None:
    """A custom message from the page (``model.send`` in the widget's module)."""
    widget._handle_msg(
        {"content": {"data": {"method": "custom", "content": content}}, "buffers": []}
    )


def picture_size(jpeg: bytes) -> tuple[int, int]:
    with Image.open(io.BytesIO(jpeg)) as image:
        assert image.format == "JPEG"
        return image.size


@pytest.fixture
def explorer(catalog, tmp_path: Path) -> Explorer:  # type: ignore[no-untyped-def]
    return Explorer("basic", batch_size=4, autosave=tmp_path / "autosave.json", catalog=catalog)


def test_one_tile_per_sample_with_its_caption_as_text(explorer: Explorer) -> None:
    result = explorer.result
    assert result is not None
    tiles = explorer.grid.tiles.tiles
    assert [t["index"] for t in tiles] == [0, 1, 2, 3]
    assert [t["label"] for t in tiles] == result.captions()
    assert [t["draws"] for t in tiles] == result.draw_captions()
    assert [t["file"] for t in tiles] == result.files()
    # The picture is the sample alone (224 px crops, under the 240 px tile): no caption in it.
    for tile, array in zip(tiles, result.arrays(result.final), strict=True):
        assert picture_size(tile["pictures"][0]) == (array.shape[1], array.shape[0])


def test_the_caption_counts_batches_from_one(explorer: Explorer) -> None:
    assert "· batch 1 ·" in explorer.grid.caption.value
    explorer.toolbar.next_batch.click()
    assert "· batch 2 ·" in explorer.grid.caption.value


def test_tile_size_control_sets_the_picture_size(explorer: Explorer) -> None:
    explorer.select("decode")  # the decoded photos, each larger than 160 px
    result = explorer.result
    assert result is not None
    natural = [(a.shape[1], a.shape[0]) for a in result.arrays(Ref("decode"))]
    assert all(max(size) > 160 for size in natural)
    page_update(explorer.grid.size.slider, value=160)
    assert explorer.grid.tiles.size == 160 and explorer.grid.size.box.value == "160"
    sizes = [picture_size(p) for p in explorer.grid.pictures if p is not None]
    assert len(sizes) == 4 and all(max(size) == 160 for size in sizes)
    page_update(explorer.grid.size.box, value="400")  # typed
    sizes = [picture_size(p) for p in explorer.grid.pictures if p is not None]
    for (width, height), size in zip(natural, sizes, strict=True):
        fitted = (width, height) if max(width, height) <= 400 else size
        assert size == fitted and max(size) <= 400  # never enlarged past its pixels


def test_fit_n_a_row_encodes_at_the_side_the_page_fits(explorer: Explorer) -> None:
    grid = explorer.grid
    explorer.select("decode")  # photos larger than any side below
    page_update(grid.per_row, index=3)  # "3 a row"
    assert grid.per_row.value == 3 and grid.tiles.per_row == 3 and grid.tiles.fitted == 0
    page_update(grid.tiles, fitted=212)  # the page: three tiles a row leave 212 px pictures
    assert grid.size.value == 212 and grid.tiles.size == 212
    assert grid.size.box.value == "212"
    sizes = [picture_size(p) for p in grid.pictures if p is not None]
    assert len(sizes) == 4 and all(max(size) == 212 for size in sizes)
    page_update(grid.tiles, fitted=40)  # a narrow output: the size control's least
    assert grid.size.value == 120 and grid.per_row.value == 3
    page_update(grid.size.slider, value=260)  # a size by hand: the tiles no longer fit a count
    assert grid.per_row.value == 0 and grid.tiles.per_row == 0
    page_update(grid.tiles, fitted=500)  # a late fit from the page is not a size asked for
    assert grid.size.value == 260
    page_update(grid.per_row, index=2)  # fitting again: the page's next fit is news
    assert grid.tiles.fitted == 0 and grid.tiles.per_row == 2


def test_large_view_shows_the_sample_its_input_and_the_original(explorer: Explorer) -> None:
    explorer.select("rotate")
    page_update(explorer.grid.tiles, opened=2)
    large = explorer.grid.tiles.large
    result = explorer.result
    assert result is not None
    assert large["index"] == 2 and large["node"] == "rotate"
    assert large["file"] == result.files()[2] and large["label"] == result.captions()[2]
    # the values that made this picture: the flip after the rotation drew nothing here
    assert large["draws"] == {"rotate": result.draws_of(2)["rotate"]}
    assert large["draws"]["rotate"]["angle"] == result.draws("rotate")["rotate"]["angle"][2]
    roles = {p["role"]: p for p in large["panes"]}
    assert [p["role"] for p in large["panes"]] == ["after", "before", "original"]
    assert (roles["after"]["node"], roles["before"]["node"], roles["original"]["node"]) == (
        "rotate",
        "resize",
        "decode",
    )
    for pane in large["panes"]:  # full resolution, exactly the node's pixels
        array = result.arrays(Ref(pane["node"]))[2]
        assert pane["shape"] == list(array.shape) and pane["dtype"] == "uint8"
        assert (pane["height"], pane["width"]) == array.shape[:2]
        shown = np.frombuffer(pane["pixels"], np.uint8).reshape(array.shape)
        assert np.array_equal(shown, array)
        assert pane["values"] is None  # uint8 RGB: the pixels are the values
    page_update(explorer.grid.tiles, opened=3)  # an arrow key in the page
    assert explorer.grid.tiles.large["index"] == 3
    page_update(explorer.grid.tiles, opened=-1)  # Esc
    assert explorer.grid.tiles.large == {}


def test_large_view_follows_edits_and_closes_when_the_sample_is_gone(explorer: Explorer) -> None:
    page_update(explorer.grid.tiles, opened=3)
    before = explorer.grid.tiles.large["panes"][0]["pixels"]
    explorer.set_arg("resize", "resize_shorter", 300.0)
    assert explorer.grid.tiles.large["index"] == 3
    assert explorer.grid.tiles.large["panes"][0]["pixels"] != before
    explorer.controller.set_batch_size(2)
    explorer.undo()
    explorer.redo()
    assert explorer.grid.tiles.opened == -1 and explorer.grid.tiles.large == {}


def test_float_outputs_send_their_values_for_the_pointer_readout(catalog) -> None:  # type: ignore[no-untyped-def]
    explorer = Explorer("imagenet_train", batch_size=2, autosave=None, catalog=catalog)
    page_update(explorer.grid.tiles, opened=1)
    after = explorer.grid.tiles.large["panes"][0]
    result = explorer.result
    assert result is not None
    array = result.arrays(result.final)[1]  # CHW float32, normalized
    assert after["layout"] == "CHW" and after["dtype"] == "float32"
    values = np.frombuffer(after["values"], np.float32).reshape(after["height"], after["width"], 3)
    assert after["values_dtype"] == "float32" and after["channels"] == 3
    assert np.array_equal(values, np.transpose(array, (1, 2, 0)))
    # What is drawn is the image the normalization came from, not the floats clipped.
    pixels = np.frombuffer(after["pixels"], np.uint8)
    assert pixels.std() > 20


def test_source_output_is_described_not_drawn(explorer: Explorer) -> None:
    explorer.select("source")
    tile = explorer.grid.tiles.tiles[0]
    assert tile["pictures"] == [None] and "bytes of an encoded file" in tile["text"]
    page_update(explorer.grid.tiles, opened=0)
    panes = explorer.grid.tiles.large["panes"]
    assert [p["role"] for p in panes] == ["after"] and panes[0]["pixels"] is None


def test_a_failed_edit_says_whose_output_is_shown(explorer: Explorer) -> None:
    explorer.select("resize")
    shown = explorer.grid.pictures
    explorer.set_arg("resize", "resize_shorter", -4.0)
    caption = explorer.grid.caption.value
    assert "last good output of <b>resize</b>" in caption and "current settings fail" in caption
    assert explorer.grid.pictures == shown and explorer.grid.tiles.stale
    explorer.select("flip")
    caption = explorer.grid.caption.value
    assert "last good output of <b>flip</b>" in caption and "fails at <b>resize</b>" in caption
    explorer.undo()
    assert explorer.grid.caption.value.count("last good") == 0 and not explorer.grid.tiles.stale


def test_a_new_node_that_fails_is_not_named_above_other_images(explorer: Explorer) -> None:
    explorer.add("gaussian_blur", after="crop")
    explorer.set_arg("gaussian_blur", "sigma", -1.0)
    assert explorer.state.failure is not None and explorer.state.selected == "gaussian_blur"
    caption = explorer.grid.caption.value
    if "gaussian_blur" in (explorer.result.steps if explorer.result else {}):
        assert "last good output of <b>gaussian_blur</b>" in caption
    else:
        assert "<b>gaussian_blur</b> has not run" in caption
        assert "last good output of the graph (node <b>flip</b>)" in caption
    assert not caption.startswith("<span class='ax-muted'>node")


def test_ab_compares_the_selected_node_over_the_whole_batch(explorer: Explorer) -> None:
    explorer.select("rotate")
    explorer.set_arg("rotate", "fill_value", 200.0)
    page_update(explorer.grid.mode, index=2)  # A/B
    tiles = explorer.grid.tiles.tiles
    assert len(tiles) == 4 and all(t["tags"] == ["A before", "B now"] for t in tiles)
    assert "A/B of node <b>rotate</b>" in explorer.grid.caption.value
    assert all(t["pictures"][0] != t["pictures"][1] for t in tiles)  # the fill changed
    assert "did not change" not in explorer.grid.caption.value
    explorer.select("resize")  # upstream of the edit: A and B are the same images
    assert "A/B of node <b>resize</b>" in explorer.grid.caption.value
    assert all(t["pictures"][0] == t["pictures"][1] for t in explorer.grid.tiles.tiles)
    assert "the last edit did not change this output" in explorer.grid.caption.value


def test_ab_says_both_draws_when_an_edit_draws_other_values(explorer: Explorer) -> None:
    explorer.select("rotate")
    explorer.set_arg("rotate", "fill_value", 200.0)
    page_update(explorer.grid.mode, index=2)  # A/B
    assert "same draws" in explorer.grid.caption.value
    assert not any(t["draws"].startswith("A: ") for t in explorer.grid.tiles.tiles)
    explorer.set_arg("rotate", "angle", Random.uniform(40.0, 50.0))
    assert "new draws (each tile says both)" in explorer.grid.caption.value
    for tile in explorer.grid.tiles.tiles:
        before, now = tile["draws"].split(" · B: ")
        assert before.startswith("A: ") and before != f"A: {now}"
        angle = float(now.split("angle=")[1].split()[0])
        assert 40.0 <= angle <= 50.0


def test_tiles_and_ab_say_only_the_draws_the_shown_node_depends_on(explorer: Explorer) -> None:
    explorer.select("rotate")
    result = explorer.result
    assert result is not None
    angles = result.draws("rotate")["rotate"]["angle"]
    for tile in explorer.grid.tiles.tiles:
        name, value = tile["draws"].split("=")  # the rotation's angle, and nothing of the flip
        assert name == "rotate.angle"
        assert float(value) == pytest.approx(angles[tile["index"]], rel=1e-2)
    # an edit after the selected node draws other flips, none of which reach the rotation
    explorer.set_arg("flip", "horizontal", Random.choice([0, 1], p=[0.25, 0.75]))
    page_update(explorer.grid.mode, index=2)  # A/B
    assert "same draws" in explorer.grid.caption.value
    assert not any(t["draws"].startswith("A: ") for t in explorer.grid.tiles.tiles)
    explorer.select("flip")  # where the new flips do show
    assert "new draws (each tile says both)" in explorer.grid.caption.value


def test_ab_says_new_draws_when_a_random_node_upstream_was_removed(explorer: Explorer) -> None:
    explorer.select("crop")
    explorer.node_panel.actions.remove("rotate")  # A was rotated by drawn angles; B is not
    explorer.flush()
    page_update(explorer.grid.mode, index=2)  # A/B
    assert "new draws (each tile says both)" in explorer.grid.caption.value
    for tile in explorer.grid.tiles.tiles:
        before, now = tile["draws"].split(" · B: ")
        assert before.startswith("A: rotate.angle=") and now == "none"


def test_draws_behind_a_node_in_a_block_leave_out_later_nodes_of_the_block() -> None:
    from graph_blocks import blocks_graph

    from augexplorer import Session

    spec = blocks_graph()
    brighten = spec.node("brighten")
    spec = spec.replace_node(
        dataclasses.replace(brighten, args={"brightness": Random.uniform(1.2, 1.6)})
    )
    result = Session(spec, device_id=None).run()
    assert "brighten" in result.draws()  # drawn, in the same block as the rotation
    behind_rotate = result.reaching_nodes("rotate")
    assert {"rotate", "angle", "coin", "flip"} <= behind_rotate
    assert "brighten" not in behind_rotate and "brighten" not in result.draws(reaching="rotate")
    assert "brighten" in result.reaching_nodes("vflip")


def test_ab_follows_a_renamed_node(explorer: Explorer) -> None:
    result = explorer.result
    assert result is not None
    angles = result.draws("rotate")["rotate"]["angle"]
    explorer.select("crop")  # downstream: its tiles name the rotation's draws
    explorer.rename("rotate", "tilt")
    page_update(explorer.grid.mode, index=2)  # A/B
    caption = explorer.grid.caption.value
    # the same node under a new name: the same draws, the same pictures
    assert "same draws" in caption and "did not change this output" in caption
    for tile in explorer.grid.tiles.tiles:
        assert tile["draws"] == f"tilt.angle={angles[tile['index']]:.4g}"
        assert tile["pictures"][0] == tile["pictures"][1]
    explorer.select("tilt")  # the renamed node itself has an A
    assert "A/B of node <b>tilt</b>" in explorer.grid.caption.value
    assert all(len(t["pictures"]) == 2 for t in explorer.grid.tiles.tiles)
    explorer.undo()  # the rename undone: the node is "rotate" again, compared with "tilt"
    explorer.select("rotate")
    assert "same draws" in explorer.grid.caption.value
    assert all(t["draws"].startswith("rotate.angle=") for t in explorer.grid.tiles.tiles)


def test_only_a_node_the_same_but_for_its_name_is_taken_for_renamed() -> None:
    from augexplorer_widgets.snapshot import renamed

    from augexplorer.validate import validate

    basic = validate(preset("basic")).spec
    assert renamed(basic, validate(preset("basic").rename("rotate", "tilt")).spec) == {
        "rotate": "tilt"
    }
    # another node at the same place (a graph swapped, several steps undone) is not the same
    other = preset("basic").rename("rotate", "tilt").set_arg("tilt", "fill_value", 9.0)
    assert renamed(basic, validate(other).spec) == {}


def test_ab_says_when_the_node_did_not_exist_before(explorer: Explorer) -> None:
    explorer.add("gaussian_blur", after="crop")
    page_update(explorer.grid.mode, index=2)  # A/B
    assert "did not exist before the last edit" in explorer.grid.note.value
    assert all(len(t["pictures"]) == 1 for t in explorer.grid.tiles.tiles)


def test_vary_this_image_from_the_large_view(explorer: Explorer) -> None:
    result = explorer.result
    assert result is not None
    page_update(explorer.grid.tiles, opened=2)
    assert explorer.grid.tiles.large["can_vary"]
    page_message(explorer.grid.tiles, {"event": "vary", "sample": 2, "draws": 5})
    assert explorer.grid.mode.value == "Variety" and explorer.grid.tiles.opened == -1
    tiles = explorer.grid.tiles.tiles
    assert len(tiles) == 5 and {t["label"] for t in tiles} == {result.captions()[2]}
    assert {Path(t["file"]).name for t in tiles} == {Path(result.files()[2]).name}
    assert len({t["draws"] for t in tiles}) > 1  # every copy drew its own angle
    assert "one image, 5 draws: sample #2" in explorer.grid.caption.value
    assert explorer.grid.draws.value == "5" and explorer.grid.tiles.vary_draws == 5
    page_update(explorer.grid.draws, value="3")
    assert len(explorer.grid.tiles.tiles) == 3 and explorer.grid.tiles.vary_draws == 3
    # The page sends the draws as typed, text included: one that is not applied says why.
    page_update(explorer.grid.tiles, opened=1)
    page_message(explorer.grid.tiles, {"event": "vary", "sample": 1, "draws": "abc"})
    assert explorer.grid.tiles.vary_refused == (
        "⚠ Not applied: 'abc' is not a whole number; the number of draws must be between 2 "
        "and 64. The number of draws stays 3."
    )
    assert explorer.grid.tiles.opened == 1, "the large view stays open"
    assert len(explorer.grid.tiles.tiles) == 3 and explorer.grid.variety.copies == 3
    page_message(explorer.grid.tiles, {"event": "vary", "sample": 1, "draws": "4"})
    assert explorer.grid.tiles.vary_refused == "" and len(explorer.grid.tiles.tiles) == 4
    # A message without the view's own index is not the page's: ignored, not raised.
    page_message(explorer.grid.tiles, {"event": "vary", "sample": "x", "draws": "6"})
    assert len(explorer.grid.tiles.tiles) == 4


def test_the_variety_view_makes_its_folder_only_when_it_runs(
    catalog: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # every panel has a variety view and few open it: a kernel stopped without its exit
    # handlers (killed) leaves only the folders of views that ran
    temp = tmp_path / "temp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    fresh = Explorer("basic", batch_size=4, autosave=None, catalog=catalog)
    assert not list(temp.glob("augexplorer-variety-*"))
    page_update(fresh.grid.tiles, opened=1)
    page_message(fresh.grid.tiles, {"event": "vary", "sample": 1, "draws": 3})
    assert len(fresh.grid.tiles.tiles) == 3
    (folder,) = temp.glob("augexplorer-variety-*")
    assert (folder / "variety.txt").is_file()
    fresh.grid.variety.close()
    assert not folder.exists()


# ---- typed values that are not applied say why (issue 12) ---------------------------------------

REFUSED = [
    ("100", "{what} must be between {low} and {high}, not 100"),
    ("1", "{what} must be between {low} and {high}, not 1"),
    ("abc", "'abc' is not a whole number; {what} must be between {low} and {high}"),
]


@pytest.mark.parametrize(("typed", "reason"), REFUSED, ids=[t for t, _ in REFUSED])
def test_draws_typed_in_the_large_view_that_are_not_applied_say_why(
    explorer: Explorer, typed: str, reason: str
) -> None:
    grid = explorer.grid
    page_update(grid.tiles, opened=2)
    page_message(grid.tiles, {"event": "vary", "sample": 2, "draws": typed})
    why = reason.format(what="the number of draws", low=2, high=64)
    assert grid.tiles.vary_refused == f"⚠ Not applied: {why}. The number of draws stays 8."
    # nothing changed: the large view stays open over the batch, the draws as they were
    assert grid.tiles.opened == 2 and grid.mode.value == "Batch"
    assert grid.variety.copies == 8 and grid.tiles.vary_draws == 8 and grid.draws.value == "8"
    page_update(grid.tiles, opened=3)  # another sample: what was said of the last one goes
    assert grid.tiles.vary_refused == ""


@pytest.mark.parametrize(("typed", "reason"), REFUSED, ids=[t for t, _ in REFUSED])
def test_draws_typed_in_the_variety_tab_that_are_not_applied_say_why(
    explorer: Explorer, typed: str, reason: str
) -> None:
    grid = explorer.grid
    page_update(grid.mode, index=1)  # Variety
    assert len(grid.tiles.tiles) == 8
    page_update(grid.draws, value=typed)
    why = reason.format(what="the number of draws", low=2, high=64)
    assert html.unescape(grid.refused.value) == (
        f"<span class='ax-errors'>⚠ Not applied: {why}. The number of draws stays 8.</span>"
    )
    assert grid.refused.layout.display != "none"
    assert grid.draws.value == typed, "what was typed stays"
    assert "ax-input-refused" in grid.draws._dom_classes
    assert grid.variety.copies == 8 and len(grid.tiles.tiles) == 8 and grid.tiles.vary_draws == 8
    page_update(grid.draws, value="6")  # in range: applied, and the complaint goes
    assert grid.variety.copies == 6 and len(grid.tiles.tiles) == 6
    assert grid.refused.value == "" and grid.refused.layout.display == "none"
    assert "ax-input-refused" not in grid.draws._dom_classes


@pytest.mark.parametrize(("typed", "reason"), REFUSED, ids=[t for t, _ in REFUSED])
def test_a_tile_size_typed_that_is_not_applied_says_why(
    explorer: Explorer, typed: str, reason: str
) -> None:
    grid = explorer.grid
    drawn = grid.pictures
    page_update(grid.size.box, value=typed)
    why = reason.format(what="the tile size", low=120, high=1200)
    assert html.unescape(grid.refused.value) == (
        f"<span class='ax-errors'>⚠ Not applied: {why}. The tile size stays 240.</span>"
    )
    assert grid.refused.layout.display != "none"
    assert grid.size.box.value == typed, "what was typed stays"
    assert "ax-input-refused" in grid.size.box._dom_classes
    assert grid.size.value == 240 and grid.tiles.size == 240 and grid.pictures == drawn
    page_update(grid.size.box, value="300")  # in range, off the slider's steps: applied
    assert grid.size.value == 300 and grid.tiles.size == 300
    assert grid.refused.value == "" and "ax-input-refused" not in grid.size.box._dom_classes


def test_both_refusals_show_until_each_box_is_put_right(explorer: Explorer) -> None:
    grid = explorer.grid
    page_update(grid.mode, index=1)  # Variety
    page_update(grid.size.box, value="5000")
    page_update(grid.draws, value="0")
    said = html.unescape(grid.refused.value)
    assert "The tile size stays 240" in said and "The number of draws stays 8" in said
    page_update(grid.size.slider, value=200)  # the slider applies a size: its complaint goes
    said = html.unescape(grid.refused.value)
    assert "tile size" not in said and "The number of draws stays 8" in said
    assert grid.size.box.value == "200"
    page_update(grid.draws, value="8")  # the draws in force typed again: nothing stands
    assert grid.refused.value == "" and grid.refused.layout.display == "none"


def test_results_answer_the_large_views_questions(explorer: Explorer) -> None:
    result = explorer.result
    assert result is not None
    assert result.input_of("rotate") == Ref("resize") and result.input_of("source") is None
    assert result.original_of("flip") == Ref("decode")
    assert result.original_of("decode") == Ref("decode")
    assert result.original_of("source") is None
    draws = result.draws_of(1)
    assert set(draws) == {"rotate", "flip"}
    assert draws["flip"]["horizontal"] == result.draws()["flip"]["horizontal"][1]


def test_normalized_floats_say_they_are_drawn_through_the_normalization_undone(
    catalog, tmp_path: Path
) -> None:
    # A normalized float output looks like an ordinary photo on its tile: the grid's caption and
    # the large view's pane say the values were mapped back through the normalization to draw it.
    explorer = Explorer(
        "imagenet_val", batch_size=2, autosave=tmp_path / "autosave.json", catalog=catalog
    )
    said = "float32 values drawn as pixels: normalize's normalization undone"
    assert said in html.unescape(explorer.grid.caption.value)
    page_update(explorer.grid.tiles, opened=0)
    after = next(p for p in explorer.grid.tiles.large["panes"] if p["role"] == "after")
    assert after["dtype"] == "float32" and after["drawn_as"].startswith(said)
    # the uint8 pixels before it are drawn as they are, and say nothing
    explorer.select("resize")
    assert "values drawn as pixels" not in explorer.grid.caption.value
    page_update(explorer.grid.tiles, opened=0)
    assert all(p["drawn_as"] == "" for p in explorer.grid.tiles.large["panes"])


def test_the_epochs_last_batch_marks_its_padding(catalog, tmp_path: Path) -> None:
    # 19 bundled samples, batch 8: the third batch holds the epoch's last 3 and 5 repeats
    explorer = Explorer("basic", batch_size=8, autosave=tmp_path / "a.json", catalog=catalog)
    assert "padding" not in explorer.grid.caption.value
    explorer.toolbar.next_batch.click()
    explorer.toolbar.next_batch.click()
    labels = [t["label"] for t in explorer.grid.tiles.tiles]
    assert [label.endswith(" · padding") for label in labels] == [False] * 3 + [True] * 5
    assert "5 tiles marked padding repeat its last file" in explorer.grid.caption.value
    explorer.toolbar.next_batch.click()  # the next epoch
    assert "padding" not in explorer.grid.caption.value


def test_a_reader_that_does_not_pad_marks_what_training_drops(catalog, tmp_path: Path) -> None:
    # 19 bundled samples, batch 8, pad_last_batch=False (imported DALI code's default): the
    # third batch holds the epoch's last 3 and 5 more that the loader on one rank drops
    spec = preset("basic")
    source = dataclasses.replace(spec.sources()[0], reader_args={"pad_last_batch": False})
    explorer = Explorer(
        spec.with_source(source), batch_size=8, autosave=tmp_path / "a.json", catalog=catalog
    )
    explorer.toolbar.next_batch.click()
    explorer.toolbar.next_batch.click()
    labels = [t["label"] for t in explorer.grid.tiles.tiles]
    assert [label.endswith(" · dropped") for label in labels] == [False] * 3 + [True] * 5
    assert "5 tiles marked dropped" in explorer.grid.caption.value
    assert "padding" not in explorer.grid.caption.value
