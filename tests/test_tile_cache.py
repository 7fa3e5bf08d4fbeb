"""Grids drawn from kept per-sample pictures: a sample whose pixels did not change keeps its
encoded tile (and its grid cell), one whose pixels changed gets a new one; no tile is larger than
the size it is shown at; after a run of edits the tiles and captions are those of the last value."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from augexplorer import Session
from augexplorer.render import encode, render_node
from augexplorer.render.pixel_history import Histories, PixelHistory
from augexplorer.render.tiles import changed_tiles, node_tiles, thumbnail
from augexplorer.spec import Random, Ref

RNG = np.random.default_rng(3)


def picture_size(jpeg: bytes) -> tuple[int, int]:
    with Image.open(io.BytesIO(jpeg)) as image:
        return image.size


@pytest.fixture(scope="module")
def session() -> Session:
    return Session("reference", batch_size=4, device_id=None)


def test_history_keeps_a_version_for_equal_pixels_and_gives_changed_ones_a_new_one() -> None:
    history = PixelHistory()
    first = [RNG.integers(0, 256, (20, 30, 3), dtype=np.uint8) for _ in range(3)]
    _, before = history.update(object(), lambda: [a.copy() for a in first])
    changed = [a.copy() for a in first]
    changed[1][0, 0, 0] ^= 1  # one value of one sample
    _, after = history.update(object(), lambda: changed)
    assert after[0] == before[0] and after[2] == before[2]
    assert after[1] != before[1]
    output = object()
    history.update(output, lambda: changed)
    # the very same output object: not even copied again
    _, again = history.update(output, lambda: pytest.fail("copied an unchanged output"))
    assert again == after


def test_a_tile_is_reused_while_its_pixels_stay_and_replaced_when_they_change(
    session: Session,
) -> None:
    result = session.set_arg("brightness", "brightness", 1.0)
    first = node_tiles(result, Ref("flip"), 200)
    # an edit after `flip`: flip's output is the engine's cached one, its tiles the same objects
    later = session.set_arg("brightness", "brightness", 1.3)
    kept = node_tiles(later, Ref("flip"), 200)
    assert [t.key for t in kept] == [t.key for t in first]
    assert all(a.picture is b.picture for a, b in zip(kept, first, strict=True))
    assert changed_tiles(first, kept) == []
    # the edited node's pixels changed: every tile is new, and says so
    shown = node_tiles(result, Ref("brightness"), 200)
    brighter = node_tiles(later, Ref("brightness"), 200)
    assert all(a.key != b.key for a, b in zip(shown, brighter, strict=True))
    assert changed_tiles(shown, brighter) == [t.index for t in brighter]
    assert all(a.picture != b.picture for a, b in zip(shown, brighter, strict=True))


def test_only_the_samples_whose_pixels_changed_are_new(session: Session) -> None:
    """A copy of a result with one sample's pixels changed: one tile changes, the rest stay."""
    result = session.set_arg("brightness", "brightness", 1.0)
    ref = Ref("brightness")
    before = node_tiles(result, ref, 160)
    arrays = [a.copy() for a in result.arrays(ref)]
    arrays[2] = 255 - arrays[2]

    class OneChanged:
        def __getattr__(self, name: str) -> object:
            return getattr(result, name)

        def output(self, asked: Ref) -> object:
            return object()  # not the engine's output object: compared by pixels

        def arrays(self, asked: Ref) -> list[np.ndarray]:
            return arrays

    after = node_tiles(OneChanged(), ref, 160)  # type: ignore[arg-type]
    assert changed_tiles(before, after) == [before[2].index]
    assert after[2].picture != before[2].picture


@pytest.mark.parametrize("size", [48, 120, 200])
def test_no_tile_is_larger_than_its_display_size(session: Session, size: int) -> None:
    result = session.run()
    for preview in (False, True):
        for ref in (Ref("decode"), Ref("brightness")):
            tiles = node_tiles(result, ref, size, preview=preview)
            shown = [picture_size(t.picture) for t in tiles if t.picture is not None]
            assert shown and all(max(s) <= size for s in shown)
            # a picture smaller than the tile is never enlarged
            for tile, (width, height) in zip(tiles, shown, strict=True):
                assert width <= tile.width and height <= tile.height
    photo = RNG.integers(0, 256, (1080, 1920, 3), dtype=np.uint8)
    for preview in (False, True):
        jpeg = thumbnail(photo, "HWC", None, size, preview=preview)
        assert jpeg is not None and max(picture_size(jpeg)) == size


def test_a_preview_is_a_preview_and_the_full_tile_follows(session: Session) -> None:
    result = session.set_arg("brightness", "brightness", 0.9)
    preview = node_tiles(result, Ref("decode"), 120, preview=True)
    full = node_tiles(result, Ref("decode"), 120)
    assert all(t.preview for t in preview) and not any(t.preview for t in full)
    assert changed_tiles(preview, full) == [t.index for t in full]
    assert all(
        len(p.picture or b"") < len(f.picture or b"") for p, f in zip(preview, full, strict=True)
    )


def test_after_many_values_the_tiles_and_captions_are_the_last_values() -> None:
    """A drag: one value after another, previews and full tiles mixed; the last tiles are the
    pictures of the last value with that value's captions, as a fresh session draws them."""
    spec = Session("reference", batch_size=4, device_id=None).spec
    spec = spec.set_arg("brightness", "contrast", Random.uniform(0.5, 1.5, seed=11))
    session = Session(spec, device_id=None)
    ref = Ref("brightness")
    tiles = []
    for step, value in enumerate(np.linspace(0.6, 1.4, 9)):
        result = session.set_arg("brightness", "brightness", float(value))
        tiles = node_tiles(result, ref, 160, preview=step % 2 == 0)
        grid = render_node(result, ref, cell=96)
    final = session.set_arg("brightness", "brightness", 1.25)
    drag_end = node_tiles(final, ref, 160, preview=True)
    rested = node_tiles(final, ref, 160)
    fresh = Session(spec.set_arg("brightness", "brightness", 1.25), device_id=None).run()
    expected = node_tiles(fresh, ref, 160)
    assert changed_tiles(drag_end, rested) == [t.index for t in rested]
    assert [t.picture for t in rested] == [t.picture for t in expected]
    assert [t.draws for t in rested] == [t.draws for t in expected]
    assert all("contrast" in t.draws for t in rested)
    assert [t.label for t in rested] == [t.label for t in expected]
    assert tiles  # the drag drew something
    # the static grid: the kept cells and captions are those a grid drawn anew shows
    grid = render_node(final, ref, cell=96)
    assert np.array_equal(
        np.asarray(grid), np.asarray(render_node(fresh, ref, cell=96, reuse=False))
    )


def test_the_encoded_grid_is_jpeg_of_the_composed_cells(session: Session) -> None:
    result = session.run()
    kept = render_node(result, cell=96)
    again = render_node(result, cell=96)  # every cell from the kept ones
    anew = render_node(result, cell=96, reuse=False)
    assert np.array_equal(np.asarray(kept), np.asarray(anew))
    assert np.array_equal(np.asarray(again), np.asarray(anew))
    with Image.open(io.BytesIO(encode(kept))) as decoded:
        assert decoded.format == "JPEG" and decoded.size == kept.size


def test_the_grids_drawn_longest_ago_are_forgotten_past_the_byte_budget() -> None:
    histories = Histories(limit=8, max_bytes=2500)
    for name in ("a", "b", "c"):
        histories.of(name).update(object(), lambda: [np.zeros(1000, np.uint8)])
    histories.of("d")  # a, b, c hold 3000 bytes, over 2500: the oldest goes before d is drawn
    assert histories.names() == ["b", "c", "d"]
