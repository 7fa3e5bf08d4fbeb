"""The segmentation preset's mask nodes in the browser: no warning that a mask's crop reads
"data that is not images", and the masks drawn as class colours (not near-black grey levels)
in the tiles and the large view, each said to be class ids."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .harness import panel_page
from .layout import WIDTHS, resize, screenshot, sideways
from .test_annotations_followup_browser import CODE, select

pytestmark = pytest.mark.browser

page = panel_page(
    "segmentation_view", "segmentation_view", CODE, ".ax-explorer .ax-tile canvas[data-key]"
)

# How many pixels of a tile's picture are coloured (channels far apart): a class colour, where
# grey levels of class ids have none.
COLOURED = """(index) => {
  const canvas = document.querySelector(`.ax-tile[data-index='${index}'] canvas`);
  const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
  let coloured = 0;
  for (let i = 0; i < data.length; i += 4) {
    const top = Math.max(data[i], data[i + 1], data[i + 2]);
    const bottom = Math.min(data[i], data[i + 1], data[i + 2]);
    if (top - bottom > 60) coloured += 1;
  }
  return coloured;
}"""


def test_a_mask_crop_has_no_warning_and_its_tiles_are_class_colours(
    page: Any, artifacts: Path
) -> None:
    page.locator(".ax-preset select").select_option("segmentation")
    page.locator(".ax-graph [data-node='mask_crop']").wait_for(timeout=60_000)
    select(page, "mask_crop")
    caption = page.locator(".ax-grid-caption", has_text="class ids drawn as colours")
    caption.wait_for(timeout=60_000)
    said = " ".join(page.locator(".ax-arg-message").all_inner_texts())
    assert "not images" not in said and "takes" not in said, said
    # the bundled photos' third and fourth hold objects: their tiles show class colours
    page.wait_for_function(f"() => ({COLOURED})(3) > 100", timeout=30_000)
    for width in WIDTHS:
        resize(page, width)
        assert all(v <= 1 for v in sideways(page).values()), width
        screenshot(page, width, artifacts / f"segmentation-view-mask-crop-{width}.png")
    page.set_viewport_size({"width": 1600, "height": 1000})
    page.locator(".ax-tile[data-index='3']").click()
    page.locator(".ax-pane-after canvas").wait_for(timeout=30_000)
    meta = page.locator(".ax-pane-after .ax-pane-meta").inner_text()
    assert "class ids drawn as colours" in meta, meta
    for width in WIDTHS:
        screenshot(page, width, artifacts / f"segmentation-view-large-{width}.png")
