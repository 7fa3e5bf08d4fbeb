"""A crop_mirror_normalize whose crop is the whole resized image (DALI's SSD pipelines) moves
boxes only by its mirror: the overlays say "mirrored", and the boxes can be carried through it."""

from __future__ import annotations

import numpy as np

from augexplorer import Random, Ref, Session, preset
from augexplorer.annotations.carry import why_not_carried
from augexplorer.annotations.drawable import carry_all, overlay_states
from augexplorer.catalog import Catalog
from augexplorer.spec import GraphSpec


def _mirrored_in_the_normalization(crop: list[float]) -> GraphSpec:
    # the SSD preset's flip node keeps its own coin; the normalization mirrors on another draw
    return (
        preset("ssd_detection")
        .set_arg("normalize", "crop", crop)
        .set_arg("normalize", "mirror", Random.coin_flip(0.5))
    )


def test_a_whole_crop_is_said_as_the_mirror_it_is_and_offers_the_carry() -> None:
    spec = _mirrored_in_the_normalization([300.0, 300.0])
    states = overlay_states(spec, "normalize")
    assert states is not None
    boxes = states["boxes"]
    assert boxes.reason == "boxes are not mirrored by 'normalize': add them"
    assert boxes.fix == "Carry boxes through 'normalize'" and boxes.carry_kinds == ("boxes",)
    assert why_not_carried(spec, "normalize", ["boxes"]) is None
    # a crop smaller than the image does crop: said as before, with the way to crop boxes
    part = _mirrored_in_the_normalization([200.0, 200.0])
    assert "random_bbox_crop" in (why_not_carried(part, "normalize", ["boxes"]) or "")
    part_boxes = (overlay_states(part, "normalize") or {})["boxes"]
    assert "not cropped by 'normalize'" in (part_boxes.reason or "")


def test_the_carried_boxes_follow_the_normalizations_mirror(catalog: Catalog) -> None:
    carried = carry_all(_mirrored_in_the_normalization([300.0, 300.0]))
    states = overlay_states(carried, "normalize")
    assert states is not None and not states["boxes"].left_behind
    mirror = carried.node("normalize").args["mirror"]
    assert isinstance(mirror, Ref)
    result = Session(carried, catalog=catalog, device_id=None).run()
    coins = [int(c) for c in result.arrays(mirror)]
    assert 0 < sum(coins) < len(coins), "the seed should mirror some samples and not others"
    before, after = result.annotations("twist"), result.annotations("normalize")
    assert before is not None and after is not None
    width = 300.0  # the resize's, which the whole crop keeps
    for coin, was, now in zip(coins, before, after, strict=True):
        want = was.boxes.astype(np.float64)  # in pixels, left-top-right-bottom
        if coin:  # x -> width - x, left and right swapped
            want = np.stack([width - want[:, 2], want[:, 1], width - want[:, 0], want[:, 3]], 1)
        np.testing.assert_allclose(now.boxes, want, atol=1e-3)  # float32 relative coordinates
