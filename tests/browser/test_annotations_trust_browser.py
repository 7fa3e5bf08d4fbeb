"""What a person reads about annotations in JupyterLab is what the graph does: name chips of
nearby objects never cover each other (on the tiles at three widths, and in the large view at
fit and zoomed), the Statistics tab counts boxes only through the nodes that carry them (the
segmentation preset's crop does not), and the note of a kind left behind speaks of that kind."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .harness import kernel_eval, panel_page
from .layout import WIDTHS, resize, screenshot, sideways

pytestmark = pytest.mark.browser

FOLDER = "annotations_trust"
BATCH = 16  # the bundled photos in order: the astronaut (7) and the deep field's galaxies (12)
DEEP_FIELD = 12

CODE = (
    "from augexplorer import Explorer, Source, chain\n"
    "coco = Source('source', 'coco', shuffle=False, keypoints=True,\n"
    "              reader_args={'ltrb': True, 'ratio': True, 'polygon_masks': True})\n"
    "explorer = Explorer(chain(coco, ('decode', 'decoders.image', {'output_type': 'RGB'}),\n"
    f"                         batch_size={BATCH}, name='photos'), autosave=None)\n"
    "explorer"
)

page = panel_page(
    FOLDER, "annotations_trust", CODE, ".ax-explorer .ax-tile .ax-overlay .ax-ov-name"
)

# Per picture under `root` matching WHERE: its boxes, its chips, the pairs of chips that cover
# each other (by more than half a pixel each way), chips that reach out of their picture, and
# how many chips were moved off their box's corner.
CHIPS = """
(root) => [...root.querySelectorAll(WHERE)].map(frame => {
  const picture = frame.querySelector("img, canvas").getBoundingClientRect();
  const chips = [...frame.querySelectorAll(".ax-ov-name")];
  const rects = chips.map(chip => chip.getBoundingClientRect());
  const covering = [];
  rects.forEach((a, i) => rects.slice(i + 1).forEach((b, k) => {
    const dx = Math.min(a.right, b.right) - Math.max(a.left, b.left);
    const dy = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
    if (dx > 0.5 && dy > 0.5) covering.push([chips[i].textContent, chips[i + 1 + k].textContent]);
  }));
  const out = (r) => r.top < picture.top - 0.5 || r.bottom > picture.bottom + 0.5
    || r.left < picture.left - 0.5 || r.right > picture.right + 0.5;
  const outside = rects.filter(out).map(r => [r.left - picture.left, r.top - picture.top,
    r.right - picture.left, r.bottom - picture.top, picture.width, picture.height]);
  return { boxes: frame.querySelectorAll("rect.ax-ov-box").length, chips: chips.length,
           covering, outside, moved: chips.filter(c => c.style.translate).length };
})
"""


def chips(page: Any, where: str) -> list[dict[str, Any]]:
    page.wait_for_timeout(300)  # the chips are laid out again on the frame after a resize
    return list(page.locator(".ax-explorer").first.evaluate(CHIPS.replace("WHERE", repr(where))))


def assert_chips_apart(pictures: list[dict[str, Any]], where: str) -> None:
    assert pictures, where
    for i, picture in enumerate(pictures):
        assert picture["chips"] == picture["boxes"], (where, i, picture)
        assert not picture["covering"], (where, i, picture)


@pytest.mark.parametrize("width", WIDTHS)
def test_name_chips_on_the_tiles_never_cover_each_other(
    page: Any, artifacts: Path, width: int
) -> None:
    resize(page, width)
    overflow = sideways(page)
    assert all(v <= 1 for v in overflow.values()), (width, overflow)
    tiles = chips(page, ".ax-tile .ax-ov-frame")
    assert len(tiles) == BATCH
    assert_chips_apart(tiles, f"tiles at {width}")
    # the deep field's three galaxies sit close together: at a tile's size their chips would
    # cover each other where they stand, so some were moved (the check above is no formality)
    assert tiles[DEEP_FIELD]["chips"] == 3 and tiles[DEEP_FIELD]["moved"] >= 1, tiles[DEEP_FIELD]
    assert all(not tile["outside"] for tile in tiles), [
        (i, t["outside"]) for i, t in enumerate(tiles) if t["outside"]
    ]
    screenshot(page, width, artifacts / f"annotations-trust-chips-{width}.png")
    page.locator(f".ax-tile[data-index='{DEEP_FIELD}']").screenshot(
        path=str(artifacts / f"annotations-trust-deep-field-{width}.png")
    )
    page.set_viewport_size({"width": 1600, "height": 1000})


def test_name_chips_are_laid_out_again_when_switched_back_on(page: Any) -> None:
    names = page.locator("button.ax-overlay-toggle-names")
    names.click()
    page.wait_for_function(
        "() => document.querySelector('.ax-tiles-root').classList.contains('ax-ov-hide-names')",
        timeout=30_000,
    )
    resize(page, 1280)  # the tiles change size while their names are hidden
    names.click()
    page.locator(".ax-tile .ax-ov-name").first.wait_for(state="visible", timeout=30_000)
    assert_chips_apart(chips(page, ".ax-tile .ax-ov-frame"), "names switched back on")
    page.set_viewport_size({"width": 1600, "height": 1000})


def test_name_chips_in_the_large_view_never_cover_each_other(page: Any, artifacts: Path) -> None:
    page.locator(f".ax-tile[data-index='{DEEP_FIELD}']").click()
    page.locator(".ax-pane-after .ax-ov-name").first.wait_for(timeout=30_000)
    try:
        for zoom in ("fit", "2", "4"):
            page.locator(f".ax-large button.ax-zoom-{zoom}").click()
            (after,) = chips(page, ".ax-pane-after .ax-ov-frame")
            assert_chips_apart([after], f"large view at {zoom}")
            page.locator(".ax-large").screenshot(
                path=str(artifacts / f"annotations-trust-large-{zoom}.png")
            )
    finally:
        page.keyboard.press("Escape")
        page.locator(".ax-large").wait_for(state="hidden", timeout=10_000)


def test_statistics_count_no_boxes_through_the_segmentation_crop(
    page: Any, artifacts: Path
) -> None:
    """The segmentation preset on the bundled COCO photos: its crop leaves the boxes behind
    (the overlay says so), and the Statistics tab counts them through the resize only."""
    page.locator(".ax-preset select").select_option("segmentation")
    note = page.locator(".ax-overlay-note", has_text="keypoints are not cropped by 'crop'")
    note.wait_for(timeout=60_000)
    said = note.inner_text()
    assert "coord_transform moves the keypoints by" in said
    assert "the boxes follow" not in said.split("keypoints are not cropped")[1].split("·")[0]
    assert kernel_eval(page, "print(explorer.spec.name)").strip() == "segmentation"
    # what the crop left behind is not drawn at the graph's output (only its masks are)
    assert page.locator("button.ax-overlay-toggle-boxes").is_disabled()
    page.locator(".ax-tile image.ax-ov-masks").first.wait_for(timeout=60_000)
    shown = page.evaluate(
        "() => [...document.querySelectorAll('.ax-tile rect.ax-ov-box, .ax-tile .ax-ov-name')]"
        ".filter(el => el.getBoundingClientRect().width > 0).length"
    )
    assert shown == 0
    page.locator(".ax-tabs .lm-TabBar-tab", has_text="Statistics").click()
    batches = page.locator(".ax-stats .ax-stats-batches input")
    batches.fill("2")
    batches.press("Enter")
    page.locator(".ax-stats button", has_text="Run statistics").click()
    page.locator(".ax-stats-status", has_text="samples in").wait_for(timeout=120_000)
    summary = page.locator(".ax-stats-summary").inner_text()
    assert "boxes through resize (resize)" in summary, summary
    for node in ("crop", "mask_resize", "mask_crop", "flip", "rotate", "mask_rotate"):
        assert f"boxes through {node} " not in summary, summary
    for width in WIDTHS:
        screenshot(page, width, artifacts / f"annotations-trust-stats-{width}.png")
    page.set_viewport_size({"width": 1600, "height": 1000})
