"""The segmentation preset's masks chain, as the panel says and draws it.

Its nodes (mask_resize, mask_crop, ...) read the source's masks, not its images: the panel once
warned at each that it "takes HWC/CHW images; here there are data that is not images", and drew
the class ids 0..N as grey levels (near black). Masks are class ids, moved like images: no
warning where they are moved with nearest-neighbour interpolation, a note where they are not,
and class colours in the tiles and the large view. The notes of what no longer matches read
as words ("the boxes and keypoints"), not as track names."""

from __future__ import annotations

import dataclasses
import io

import numpy as np
import pytest
from PIL import Image
from test_overlay_carry import panel_coco

from augexplorer import Session
from augexplorer.catalog import Catalog
from augexplorer.catalog.flow import flow, input_problems, place
from augexplorer.engine import RunResult
from augexplorer.export.annotations_note import left_behind
from augexplorer.presets import preset_on
from augexplorer.render.class_colours import BACKGROUND, CLASS_IDS_SAID, is_mask_output
from augexplorer.render.palette import class_rgb
from augexplorer.render.sample_view import sample_view
from augexplorer.render.tiles import node_drawn_as, node_tiles
from augexplorer.spec import GraphSpec, Ref
from augexplorer.validate import validate

MASK_NODES = ("mask_cast", "mask_resize", "mask_crop", "mask_flip", "mask_rotate")


def segmentation() -> GraphSpec:
    return preset_on("segmentation", panel_coco())


@pytest.fixture(scope="module")
def result() -> RunResult:
    return Session(segmentation(), batch_size=4, device_id=None).run()


def test_the_masks_chain_as_the_preset_builds_it_has_no_warning(catalog: Catalog) -> None:
    spec = segmentation()
    assert input_problems(spec, catalog) == {}
    data = flow(spec, catalog)
    for node in MASK_NODES:
        assert data[node].mask and data[node].kind == "image", node
    assert not data["crop"].mask


def test_masks_resampled_linearly_are_named_with_the_fix(catalog: Catalog) -> None:
    linear = segmentation().set_arg("mask_resize", "interp_type", "INTERP_LINEAR")
    said = input_problems(linear, catalog)
    assert set(said) == {"mask_resize"}
    assert "INTERP_LINEAR" in said["mask_resize"] and "INTERP_NN" in said["mask_resize"]
    # DALI's default interpolation is linear too: a rotate given none is named
    default = segmentation().unset_arg("mask_rotate", "interp_type")
    assert set(input_problems(default, catalog)) == {"mask_rotate"}
    # the image chain's own linear resize is no mask's
    assert "resize" not in said
    # it runs: a note in the panel, never a refusal of the graph
    validate(linear, catalog)  # raises GraphInvalid on a refusal


def test_the_picker_places_on_masks_only_steps_that_keep_class_ids(catalog: Catalog) -> None:
    spec = segmentation()
    assert place(spec, catalog, "flip", "mask_crop").ok
    refused = place(spec, catalog, "brightness", "mask_crop")
    assert not refused.ok and "does not keep class ids" in str(refused.reason)
    assert place(spec, catalog, "brightness", "crop").ok  # the photos take it


def test_mask_nodes_are_told_from_image_nodes() -> None:
    spec = segmentation()
    for node in MASK_NODES:
        assert is_mask_output(spec, Ref(node)), node
    assert is_mask_output(spec, Ref("source", 3))
    for node in ("decode", "resize", "crop", "rotate"):
        assert not is_mask_output(spec, Ref(node)), node
    assert not is_mask_output(spec, Ref("source", 1))  # boxes


def _colours(picture: bytes) -> set[tuple[int, int, int]]:
    rgb = np.asarray(Image.open(io.BytesIO(picture)).convert("RGB"))
    return {(int(r), int(g), int(b)) for r, g, b in np.unique(rgb.reshape(-1, 3), axis=0)}


def test_mask_tiles_are_class_colours_the_same_on_every_tile(result: RunResult) -> None:
    masks = result.arrays(Ref("mask_crop"))
    ids = set().union(*(set(np.unique(m).tolist()) for m in masks))
    assert {0, 1, 2} <= ids  # the bundled photos hold two classes: both drawn below
    tiles = node_tiles(result, Ref("mask_crop"), 240)
    seen: set[tuple[int, int, int]] = set()
    for tile, mask in zip(tiles, masks, strict=True):
        assert tile.picture is not None
        colours = _colours(tile.picture)
        # each id its own colour and nothing between them (a shrink by nearest pixel, PNG)
        assert colours == {BACKGROUND if i == 0 else class_rgb(i) for i in np.unique(mask)}
        seen |= colours
    assert {BACKGROUND, class_rgb(1), class_rgb(2)} <= seen
    assert len({BACKGROUND, class_rgb(1), class_rgb(2)}) == 3
    assert node_drawn_as(result, Ref("mask_crop")) == CLASS_IDS_SAID
    assert node_drawn_as(result, Ref("crop")) == ""  # the photos are photos


def test_the_large_view_draws_the_same_colours_and_reads_the_ids(result: RunResult) -> None:
    masks = result.arrays(Ref("mask_crop"))
    index = next(i for i, m in enumerate(masks) if 2 in np.unique(m))
    view = sample_view(result, "mask_crop", index)
    after = view.panes[0]
    assert after.role == "after" and after.drawn_as == CLASS_IDS_SAID
    assert after.pixels is not None and after.values is not None
    pixels = np.frombuffer(after.pixels, np.uint8).reshape(after.height, after.width, 3)
    ids = np.frombuffer(after.values, np.dtype(after.values_dtype)).reshape(
        after.height, after.width
    )
    assert np.array_equal(ids, masks[index][..., 0])  # the pointer reads the id, not a colour
    assert (pixels[ids == 2] == class_rgb(2)).all()
    assert (pixels[ids == 0] == BACKGROUND).all()


def test_a_float_mask_is_drawn_as_its_values() -> None:
    spec = segmentation().set_arg("mask_cast", "dtype", "FLOAT")
    spec = spec.set_arg("mask_resize", "interp_type", "INTERP_LINEAR")
    run = Session(spec, batch_size=2, device_id=None).run()
    assert node_drawn_as(run, Ref("mask_crop")) != CLASS_IDS_SAID
    tile = node_tiles(run, Ref("mask_crop"), 240)[0]
    assert tile.picture is not None and tile.picture.startswith(b"\xff\xd8")  # a JPEG photo
    assert sample_view(run, "mask_crop", 0).panes[0].drawn_as != CLASS_IDS_SAID


def test_what_no_longer_matches_is_said_in_words(result: RunResult) -> None:
    said = result.annotation_warnings("rotate")
    assert "the boxes and keypoints no longer match the images after crop (crop)" in said
    assert all(not s.startswith("boxes,") for s in said)
    spec = segmentation()
    with_boxes = dataclasses.replace(spec, outputs={**spec.outputs, "boxes": Ref("source", 1)})
    assert "the boxes no longer match the images after 'crop' (crop)" in left_behind(with_boxes)
