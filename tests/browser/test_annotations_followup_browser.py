"""A mask node of the segmentation preset shows its masks, not annotations said to belong to
it: no overlay switches, no note that its resize left the masks behind, no button to carry them
through it. Its image node beside it still draws its masks and says what its crop left."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .harness import kernel_eval, panel_page
from .layout import WIDTHS, resize, screenshot, sideways

pytestmark = pytest.mark.browser

FOLDER = "annotations_followup"
CODE = (
    "from augexplorer import Explorer, Source, chain\n"
    "coco = Source('source', 'coco', shuffle=False, keypoints=True,\n"
    "              reader_args={'ltrb': True, 'ratio': True, 'polygon_masks': True})\n"
    "explorer = Explorer(chain(coco, ('decode', 'decoders.image', {'output_type': 'RGB'}),\n"
    "                         batch_size=8, name='photos'), autosave=None)\n"
    "explorer"
)

page = panel_page(FOLDER, "annotations_followup", CODE, ".ax-explorer .ax-tile .ax-overlay")

OVERLAID = (
    "() => [...document.querySelectorAll('.ax-tile .ax-ov-frame > *:not(img):not(canvas)')]"
    ".filter(el => el.getBoundingClientRect().width > 0).length"
)


def select(page: Any, node: str) -> None:
    """Select `node` in the graph (a click on the selected node would unselect it)."""
    selected = page.locator(f".ax-graph .ax-g-selected[data-node='{node}']")
    if selected.count() == 0:
        page.locator(f".ax-graph [data-node='{node}']").click()
    selected.wait_for(timeout=30_000)


def test_a_mask_node_shows_no_annotations_and_its_image_node_does(
    page: Any, artifacts: Path
) -> None:
    page.locator(".ax-preset select").select_option("segmentation")
    page.locator(".ax-overlay-note", has_text="keypoints are not cropped by 'crop'").wait_for(
        timeout=60_000
    )
    assert kernel_eval(page, "print(explorer.spec.name)").strip() == "segmentation"
    for node in ("mask_resize", "mask_crop"):
        select(page, node)
        page.wait_for_function(f"() => {OVERLAID} === 0", timeout=60_000)
        notes = page.locator(".ax-overlay-note")
        said = " ".join(notes.all_inner_texts())
        assert "mask_resize" not in said and "mask_crop" not in said, said
        # the switches are restyled after the overlays go: wait for them, not a moment
        page.wait_for_function(
            "() => ![...document.querySelectorAll('button.ax-overlay-toggle-boxes, "
            ".ax-overlay button')].some(b => b.offsetParent !== null && "
            "(b.classList.contains('ax-overlay-toggle-boxes') || b.textContent.includes('Carry')))",
            timeout=30_000,
        )
    for width in WIDTHS:
        resize(page, width)
        assert all(v <= 1 for v in sideways(page).values()), width
        screenshot(page, width, artifacts / f"annotations-followup-mask-crop-{width}.png")
    # the crop beside it: its masks drawn, its boxes and keypoints said to be left behind
    select(page, "crop")
    page.locator(".ax-tile image.ax-ov-masks").first.wait_for(timeout=60_000)
    page.locator(".ax-overlay-note", has_text="keypoints are not cropped by 'crop'").wait_for(
        timeout=60_000
    )
    screenshot(page, 1600, artifacts / "annotations-followup-crop-1600.png")
    page.set_viewport_size({"width": 1600, "height": 1000})


TWIN_SAYS = (
    "the masks' own crop, 'mask_crop', has another crop_pos_x: read 'crop_x', as 'crop' does"
)


def test_a_mask_crop_with_another_window_is_named_on_the_page(page: Any, artifacts: Path) -> None:
    """The masks' own crop moved off the images' window: the rotation after it says which node,
    which argument and the fix, in words that fit the panel at every width; undone, it says
    nothing of the masks."""
    if kernel_eval(page, "print(explorer.spec.name)").strip() != "segmentation":
        page.locator(".ax-preset select").select_option("segmentation")
        page.locator(".ax-overlay-note").first.wait_for(timeout=60_000)
    kernel_eval(page, "explorer.set_arg('mask_crop', 'crop_pos_x', 0.3)")
    select(page, "rotate")
    note = page.locator(".ax-overlay-note", has_text=TWIN_SAYS)
    note.wait_for(timeout=60_000)
    for width in WIDTHS:
        resize(page, width)
        assert all(v <= 1 for v in sideways(page).values()), width
        box = note.bounding_box()
        tiles = page.locator(".ax-tiles-root").first.bounding_box()
        assert box is not None and tiles is not None
        assert box["x"] + box["width"] <= tiles["x"] + tiles["width"] + 1, width  # not cut off
        screenshot(page, width, artifacts / f"annotations-followup-mask-twin-{width}.png")
    kernel_eval(page, "explorer.undo()")  # the preset's own window again
    page.wait_for_function(
        "(said) => ![...document.querySelectorAll('.ax-overlay-note')]"
        ".some(n => n.textContent.includes(said))",
        arg="the masks' own crop",
        timeout=60_000,
    )
    page.set_viewport_size({"width": 1600, "height": 1000})
