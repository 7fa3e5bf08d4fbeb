"""Compare with the original in a real browser: a live albumentations Compose and its port,
tile beside tile with each transform's figures, at three widths (screenshots in
test-artifacts)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .harness import panel_page
from .layout import WIDTHS, resize, screenshot, sideways

pytestmark = pytest.mark.browser


page = panel_page(
    "compare",
    "compare",
    "import albumentations as A\n"
    "from augexplorer import Explorer\n"
    "train_transform = A.Compose([A.RandomResizedCrop(size=(160, 160), p=1), "
    "A.HorizontalFlip(), A.Rotate(limit=20, p=1), A.Resize(128, 128)])\n"
    "explorer = Explorer(port=train_transform, batch_size=4, autosave=False)\n"
    "display(explorer)",
    ".ax-explorer canvas.ax-grid[data-key]",
    viewport=(1600, 1100),
)


def test_compare_shows_both_sides_and_their_figures(page: Any, artifacts: Path) -> None:
    page.get_by_role("tab", name="Compare", exact=True).click()
    page.locator(".ax-compare-button").click()
    page.wait_for_selector(".ax-compare-tiles img", timeout=240_000)
    assert page.locator(".ax-compare-tiles img").count() == 12  # 4 images x 3 columns
    figures = page.locator(".ax-compare-figures").inner_text()
    assert "HorizontalFlip" in figures and "identical" in figures
    assert "area:" in figures and "angle:" in figures
    for width in WIDTHS:
        resize(page, width)
        screenshot(page, width, artifacts / f"compare-{width}.png")
        overflow = sideways(page)
        assert all(v <= 1 for v in overflow.values()), (width, overflow)
