"""Values an operator draws inside itself: random_resized_crop's window (recovered with DALI's
own generator and claimed only where it gives the node's very pixels), random_bbox_crop's window
(its outputs), shown in captions and in the large view (drawn on the "before" picture); where DALI
exposes nothing, the large view says the operator draws internally, never "nothing random"."""

from __future__ import annotations

import dataclasses
import re

import numpy as np
import pytest
from augexplorer_widgets import Explorer
from augexplorer_widgets.tile_grid import large_state
from nvidia.dali import fn
from nvidia.dali.pipeline import Pipeline
from test_widgets_panel import browser_update

from augexplorer.engine import Session
from augexplorer.engine import internal_draws as internal
from augexplorer.presets import preset
from augexplorer.render.sample_view import sample_view
from augexplorer.spec import Node, Probability

SIZE = [120.0, 160.0]  # height, width: not square, so a swapped axis shows


def with_random_crop(**args: object) -> Session:
    spec = preset("basic").insert_after(
        "decode", Node("rrc", "random_resized_crop", args={"size": SIZE, **args})
    )
    return Session(spec, batch_size=6, device_id=None)


def resized_window(image: np.ndarray, window: tuple[float, float, float, float]) -> np.ndarray:
    """`image` cut at `window` (x, y, w, h) and resized to SIZE by DALI's resize, as
    random_resized_crop resamples: what the node's output must be if the window is its own."""
    x, y, w, h = window
    pipe = Pipeline(batch_size=1, num_threads=1, device_id=None)
    with pipe:
        fed = fn.external_source(name="image", layout="HWC")
        pipe.set_outputs(
            fn.resize(fed, size=SIZE, roi_start=[y, x], roi_end=[y + h, x + w], roi_relative=False)
        )
    pipe.build()
    pipe.feed_input("image", [image])
    (out,) = pipe.run()
    return np.asarray(out[0])


def shown_windows(session: Session) -> list[tuple[float, float, float, float]]:
    """The windows the large view draws on each sample's "before" picture."""
    result = session.result
    assert result is not None
    shown = []
    for index in range(result.plan.spec.batch_size):
        view = sample_view(result, "rrc", index)
        before = next(p for p in view.panes if p.role == "before")
        assert before.node == "decode" and before.window is not None
        shown.append(before.window)
    return shown


def test_random_resized_crop_windows_are_the_ones_it_cut() -> None:
    session = with_random_crop()
    result = session.run()
    images = result.arrays("decode")
    crops = result.arrays("rrc")
    windows = shown_windows(session)
    for image, crop, window in zip(images, crops, windows, strict=True):
        assert np.array_equal(resized_window(image, window), crop), window
        x, y, w, h = window
        # one pixel off is another picture: the check above would catch a wrong window
        assert not np.array_equal(resized_window(image, (x + 1, y, w, h)), crop)
        share = w * h / (image.shape[0] * image.shape[1])
        assert 0.08 - 1e-3 <= share <= 1.0 and 3 / 4 - 0.05 <= w / h <= 4 / 3 + 0.05
    # the captions name them, per tile
    captions = result.draw_captions(reaching="rrc")
    for caption, (x, y, w, h) in zip(captions, windows, strict=True):
        assert f"rrc.window={w:.0f} wide, {h:.0f} high at x {x:.0f}, y {y:.0f}" in caption


def test_a_window_is_claimed_only_where_it_gives_the_nodes_pixels(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With another seed the generator draws other windows: none of them is shown, and the
    node is said to draw internally."""
    session = with_random_crop()
    result = session.run()
    real = internal.WindowGenerator.__init__

    def other_seed(self, step, batch_size):  # type: ignore[no-untyped-def]
        real(self, dataclasses.replace(step, seed=(step.seed or 0) + 1), batch_size)

    monkeypatch.setattr(internal.WindowGenerator, "__init__", other_seed)
    internal._recovered.clear()
    assert result.windows("rrc") is None
    assert "rrc" not in result.draws()
    view = sample_view(result, "rrc", 0)
    assert all(p.window is None for p in view.panes)
    assert view.draws_note == "rrc draws internally: DALI does not return what was drawn"
    internal._recovered.clear()


def test_resampling_arguments_and_an_apply_probability_are_followed() -> None:
    spec = preset("basic").insert_after(
        "decode",
        Node(
            "rrc",
            "random_resized_crop",
            args={"size": SIZE, "interp_type": "INTERP_NN", "random_area": [0.3, 0.6]},
            probability=Probability(0.5),
        ),
    )
    session = Session(spec, batch_size=8, device_id=None)
    result = session.run()
    applied = [i for i, flag in enumerate(result.draws()["rrc"]["apply"]) if flag]
    assert 0 < len(applied) < 8, "some samples ran it, some did not (seeded)"
    windows = result.windows("rrc")
    assert windows is not None
    assert [i for i, w in enumerate(windows.windows) if w is not None] == applied
    images, crops = result.arrays("decode"), result.arrays("rrc")
    for sample in applied:
        w = windows.windows[sample]
        assert w is not None
        share = w.width * w.height / (images[sample].shape[0] * images[sample].shape[1])
        assert 0.3 - 0.01 <= share <= 0.6 + 0.01
        assert crops[sample].shape[:2] == (120, 160)
    captions = result.draw_captions(reaching="rrc")
    assert all(("rrc.window=" in captions[i]) == (i in applied) for i in range(8))


def test_a_later_batch_says_the_window_is_drawn_internally() -> None:
    session = with_random_crop()
    session.run()
    later = session.next_batch()
    assert later.batch_index == 1 and later.windows("rrc") is None
    note = sample_view(later, "flip", 0).draws_note
    assert note == "rrc draws internally: DALI does not return what was drawn"


def test_a_random_crop_decoder_shows_its_window_on_the_whole_image() -> None:
    """imagenet_train decodes only a random window of each file: the window is recovered, and
    the large view's "before" is the whole image, decoded again, with the window on it."""
    session = Session("imagenet_train", batch_size=4, device_id=None)
    result = session.run()
    windows = result.windows("decode")
    assert windows is not None and windows.known == 4
    crops = result.arrays("decode")
    for index, (window, crop) in enumerate(zip(windows.windows, crops, strict=True)):
        assert window is not None
        view = sample_view(result, "decode", index)
        before = next(p for p in view.panes if p.role == "before")
        assert before.node == "decode" and before.window
        assert before.caption == "the whole image, decoded again"
        whole = windows.wholes[index]
        assert whole is not None and (before.width, before.height) == whole.shape[1::-1]
        x, y, w, h = (int(v) for v in before.window)
        # the window cut from the whole image is the node's output, pixel for pixel
        assert np.array_equal(whole[y : y + h, x : x + w], crop)
        assert not np.array_equal(whole[y + 1 : y + 1 + h, x : x + w], crop)
    assert "decode.window=" in result.draw_captions()[0]
    # past the decoder, the large view's "original" is the whole file too, its window drawn on
    # it, not the decoder's crop (which a person would take for the file)
    after_decode = [s.origin for s in result.plan.steps if s.origin not in ("source", "decode")]
    for index, whole in enumerate(windows.wholes):
        view = sample_view(result, after_decode[index % 2], index)  # the decoder's crop, "before"
        roles = {p.role: p for p in view.panes}
        assert list(roles) == ["after", "before", "original"]
        original = roles["original"]
        assert original.node == "decode" and original.caption == "the whole image, decoded again"
        assert whole is not None and (original.width, original.height) == whole.shape[1::-1]
        window = windows.windows[index]
        assert window is not None and original.window == (
            window.x,
            window.y,
            window.width,
            window.height,
        )


def test_random_bbox_crop_windows_are_its_outputs() -> None:
    session = Session("ssd_detection", batch_size=4, device_id=None)
    result = session.run()
    windows = result.windows("box_crop")
    assert windows is not None and windows.how == "output"
    anchors, shapes = result.arrays("box_crop:0"), result.arrays("box_crop:1")
    for window, anchor, shape in zip(windows.windows, anchors, shapes, strict=True):
        assert window is not None and window.relative
        assert (window.x, window.y, window.width, window.height) == pytest.approx([*anchor, *shape])
    # drawn on the picture the slice cuts, in its pixels; the slice's output is that region
    view = sample_view(result, "crop", 1)
    before = next(p for p in view.panes if p.role == "before")
    after = next(p for p in view.panes if p.role == "after")
    assert before.window is not None
    _, _, w, h = before.window
    assert (after.width, after.height) == (pytest.approx(w, abs=1), pytest.approx(h, abs=1))
    assert "box_crop.window=" in result.draw_captions(reaching="crop")[1]
    # a coin several nodes read shows what it drew
    assert re.search(r"\bcoin=[01]", result.draw_captions()[0])


def test_operators_that_draw_internally_are_named() -> None:
    spec = preset("basic").insert_after("crop", Node("noise", "noise.gaussian", args={}))
    result = Session(spec, batch_size=2, device_id=None).run()
    view = sample_view(result, "noise", 0)
    assert view.draws_note == "noise draws internally: DALI does not return what was drawn"
    assert "rotate" in view.draws  # and what is known is still shown


# ---- the panel's large view ---------------------------------------------------------------------


def test_large_view_of_an_added_random_crop_no_longer_says_nothing_random(
    catalog, tmp_path
) -> None:  # type: ignore[no-untyped-def]
    """The reported case: random_resized_crop added after the decoder and selected, beside a
    rotate with a random angle and a coin-flipped flip."""
    explorer = Explorer("basic", batch_size=4, autosave=tmp_path / "a.json", catalog=catalog)
    explorer.add("random_resized_crop", after="decode")
    explorer.flush()
    assert explorer.state.selected == "random_resized_crop"
    tiles = explorer.grid.tiles
    assert all("random_resized_crop.window=" in t["draws"] for t in tiles.tiles)
    browser_update(tiles, opened=0)
    large = tiles.large
    assert large["draws"]["random_resized_crop"]["window"]
    assert large["draws_note"] == ""
    before = next(p for p in large["panes"] if p["role"] == "before")
    assert before["window"] is not None and len(before["window"]) == 4
    # the decoder's large view: nothing random up to it, but the graph draws after it
    explorer.select("decode")
    explorer.flush()
    browser_update(tiles, opened=-1)
    browser_update(tiles, opened=0)
    note = tiles.large["draws_note"]
    assert note == "nothing random up to decode; drawn after it: random_resized_crop, rotate, flip"


def test_nothing_random_is_said_only_of_a_graph_without_randomness() -> None:
    result = Session("imagenet_val", batch_size=2, device_id=None).run()
    view = sample_view(result, None, 0)
    assert view.draws == {} and view.draws_note == "nothing random in this graph"
    assert large_state(view, can_vary=False)["draws_note"] == "nothing random in this graph"


def test_recovery_is_once_per_output(monkeypatch: pytest.MonkeyPatch) -> None:
    session = with_random_crop()
    result = session.run()
    internal._recovered.clear()
    calls: list[int] = []
    real = internal.WindowGenerator.draw

    def counted(self, images):  # type: ignore[no-untyped-def]
        calls.append(1)
        return real(self, images)

    monkeypatch.setattr(internal.WindowGenerator, "draw", counted)
    result.draws()
    result.draw_captions(reaching="flip")
    # an edit downstream keeps the crop's cached output: nothing recovered again
    edited = session.set_arg("rotate", "fill_value", 5.0)
    edited.draws()
    assert len(calls) == 1


# ---- statistics ---------------------------------------------------------------------------------


def test_statistics_count_the_windows_each_batch_checked_on_pixels() -> None:
    from augexplorer.stats import collect_stats

    spec = preset("basic").insert_after(
        "decode", Node("rrc", "random_resized_crop", args={"size": SIZE, "random_area": [0.2, 0.5]})
    )
    stats = collect_stats(spec, batches=3, batch_size=4, device_id=None)
    (windows,) = stats.windows
    assert windows.node == "rrc" and windows.how == "recovered"
    assert (windows.windows, windows.unknown) == (12, 0), "every batch's windows, each checked"
    assert 0.2 - 0.01 <= windows.area.min[0] <= windows.area.max[0] <= 0.5 + 0.01
    assert 0.75 - 0.05 <= windows.aspect.min[0] <= windows.aspect.max[0] <= 4 / 3 + 0.05
    assert "crop windows of rrc (DALI's generator, each checked on pixels: 12 of 12)" in (
        stats.summary()
    )
    assert stats.to_json()["windows"][0]["windows"] == 12


def test_statistics_count_no_window_they_cannot_check(monkeypatch: pytest.MonkeyPatch) -> None:
    from augexplorer.stats import collect_stats

    real = internal.WindowGenerator.__init__

    def other_seed(self, step, batch_size):  # type: ignore[no-untyped-def]
        real(self, dataclasses.replace(step, seed=(step.seed or 0) + 1), batch_size)

    monkeypatch.setattr(internal.WindowGenerator, "__init__", other_seed)
    spec = preset("basic").insert_after(
        "decode", Node("rrc", "random_resized_crop", args={"size": SIZE})
    )
    (windows,) = collect_stats(spec, batches=2, batch_size=4, device_id=None).windows
    assert (windows.windows, windows.unknown) == (0, 8)
    assert windows.describe().endswith("none known")


def test_statistics_count_random_bbox_crop_windows_from_its_outputs() -> None:
    from augexplorer.stats import collect_stats

    stats = collect_stats("ssd_detection", batches=2, batch_size=4, device_id=None)
    (windows,) = stats.windows
    assert windows.node == "box_crop" and windows.how == "output" and windows.windows == 8
    assert windows.area.min[0] >= 0.3**2 - 1e-6 and windows.area.max[0] <= 1.0 + 1e-6


def test_statistics_count_a_random_crop_decoders_windows() -> None:
    from augexplorer.stats import collect_stats

    stats = collect_stats("imagenet_train", batches=2, batch_size=4, device_id=None)
    (windows,) = stats.windows
    assert (windows.node, windows.how, windows.windows, windows.unknown) == (
        "decode",
        "recovered",
        8,
        0,
    )
    assert windows.area.min[0] >= 0.08 - 0.01 and windows.area.max[0] <= 1.0


def test_a_window_caption_names_its_axes() -> None:
    # The large view's shape line is height first (198, 194, 3 in HWC); a size is usually
    # written width first: the caption says which number is which.
    window = internal.Window(x=7, y=56, width=194, height=198)
    assert window.caption() == "194 wide, 198 high at x 7, y 56"
    relative = internal.Window(x=0.1, y=0.25, width=0.5, height=0.75, relative=True)
    assert relative.caption() == "0.50 wide, 0.75 high (of the image) at x 0.10, y 0.25"
