"""Masks cut and sized by operators of their own (the segmentation preset's mask_resize and
mask_crop) match the images only with the images' window and sizes: where they differ, the
overlays and the exported module say which node, on which argument, and how to make it agree."""

from __future__ import annotations

import pytest

from augexplorer import preset
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


def test_the_named_fix_makes_them_agree() -> None:
    off = preset("segmentation").set_arg("mask_resize", "resize_shorter", 300.0)
    mended = off.set_arg("mask_resize", "resize_shorter", 256.0)
    assert _masks_state(mended) == (None, False, ())
