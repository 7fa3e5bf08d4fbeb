"""Masks cut and sized by operators of their own (the segmentation preset's mask_resize and
mask_crop) match the images only with the images' window and sizes: where they differ, the
overlays and the exported module say which node, on which argument, and how to make it agree."""

from __future__ import annotations

import pytest

from augexplorer import Random, preset
from augexplorer.annotations.drawable import overlay_states
from augexplorer.export.annotations_note import left_behind_message
from augexplorer.spec import GraphSpec

TWINS_DIFFER = {
    "another window": (
        ("mask_crop", "crop_pos_x", 0.3),
        "masks are not cropped by 'crop': the masks' own crop, 'mask_crop', has another "
        "crop_pos_x: read 'crop_x', as 'crop' does",
    ),
    "another size": (
        ("mask_crop", "crop", [200.0, 200.0]),
        "masks are not cropped by 'crop': the masks' own crop, 'mask_crop', has another crop: "
        "set it to [224.0, 224.0], as 'crop' has it",
    ),
    "another resize": (
        ("mask_resize", "resize_shorter", 300.0),
        "masks are not resized by 'resize': the masks' own resize, 'mask_resize', has another "
        "resize_shorter: set it to 256.0, as 'resize' has it",
    ),
}


def _masks_state(spec: GraphSpec) -> tuple[str | None, bool, tuple[str, ...]]:
    states = overlay_states(spec, "rotate")
    assert states is not None
    masks = states["masks"]
    return masks.reason, masks.left_behind, masks.carry_kinds


def test_the_preset_s_twins_agree() -> None:
    assert _masks_state(preset("segmentation")) == (None, False, ())
    assert left_behind_message(preset("segmentation")) is None


@pytest.mark.parametrize("case", TWINS_DIFFER, ids=list(TWINS_DIFFER))
def test_a_twin_that_differs_is_named_with_its_fix(case: str) -> None:
    (node, argument, value), said = TWINS_DIFFER[case]
    spec = preset("segmentation").set_arg(node, argument, value)
    reason, left_behind, carry = _masks_state(spec)
    assert reason == said and left_behind
    assert carry == ()  # no carry: one would add a second crop or resize after the twin
    message = left_behind_message(spec)  # the exported module's header and warning
    assert message is not None and said.split(": ", 1)[1] in message
    # what follows from it (the flip and rotation after the crop) is not listed, nor a carry
    assert "after 'flip'" not in message and "carry_all" not in message


def test_the_named_fix_makes_them_agree() -> None:
    off = preset("segmentation").set_arg("mask_resize", "resize_shorter", 300.0)
    mended = off.set_arg("mask_resize", "resize_shorter", 256.0)
    assert _masks_state(mended) == (None, False, ())


def _spelled_apart(spec: GraphSpec, node: str, h: float, w: float) -> GraphSpec:
    """`node`'s crop=[h, w] written as crop_h and crop_w."""
    apart = spec.node(node).without_arg("crop")
    return spec.replace_node(apart).set_arg(node, "crop_h", h).set_arg(node, "crop_w", w)


def test_one_window_spelled_two_ways_agrees() -> None:
    # crop=[224, 224] on the images, crop_h and crop_w on the masks: the same window
    spec = _spelled_apart(preset("segmentation"), "mask_crop", 224.0, 224.0)
    assert _masks_state(spec) == (None, False, ())


def test_a_difference_is_said_in_the_spelling_of_the_masks_node() -> None:
    apart = _spelled_apart(preset("segmentation"), "mask_crop", 200.0, 224.0)
    assert _masks_state(apart)[0] == (
        "masks are not cropped by 'crop': the masks' own crop, 'mask_crop', has another crop_h: "
        "set it to 224.0, as 'crop' has it"
    )
    # the images spelled apart, the masks' crop=[...] too small: said as crop=[h, w]
    images_apart = _spelled_apart(preset("segmentation"), "crop", 224.0, 224.0)
    small = images_apart.set_arg("mask_crop", "crop", [200.0, 200.0])
    assert _masks_state(small)[0] == (
        "masks are not cropped by 'crop': the masks' own crop, 'mask_crop', has another crop: "
        "set it to [224.0, 224.0], as 'crop' has it"
    )


def test_a_size_spelled_as_resize_x_and_resize_y_agrees_with_size() -> None:
    spec = preset("segmentation")
    spec = spec.replace_node(spec.node("resize").without_arg("resize_shorter"))
    spec = spec.set_arg("resize", "resize_x", 256.0).set_arg("resize", "resize_y", 240.0)
    spec = spec.replace_node(spec.node("mask_resize").without_arg("resize_shorter"))
    agreeing = spec.set_arg("mask_resize", "size", [240.0, 256.0])  # [height, width]
    assert _masks_state(agreeing)[0] is None
    swapped = spec.set_arg("mask_resize", "size", [256.0, 240.0])
    assert "the masks' own resize, 'mask_resize', has another size" in (
        _masks_state(swapped)[0] or ""
    )


def test_a_window_drawn_by_each_crop_for_itself_names_the_fix() -> None:
    spec = preset("segmentation").set_arg("crop", "crop_pos_x", Random.uniform(0.0, 1.0))
    assert _masks_state(spec)[0] == (
        "masks are not cropped by 'crop': the masks' own crop, 'mask_crop', has another "
        "crop_pos_x: make the crop_pos_x of 'crop' a random node both read"
    )
