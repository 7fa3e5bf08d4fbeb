"""Compare with the original in a real browser: a live albumentations Compose and its port,
tile beside tile with each transform's figures, at three widths (screenshots in
test-artifacts)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .harness import Server, open_panel, write_panel_notebook
from .layout import WIDTHS, screenshot, sideways

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def page(browser: Any, lab: Server) -> Any:
    code = (
        "import albumentations as A\n"
        "from augexplorer import Explorer\n"
        "train_transform = A.Compose([A.RandomResizedCrop(size=(160, 160), p=1), "
        "A.HorizontalFlip(), A.Rotate(limit=20, p=1), A.Resize(128, 128)])\n"
        "explorer = Explorer(port=train_transform, batch_size=4, autosave=False)\n"
        "display(explorer)"
    )
    path = write_panel_notebook(lab.root, "compare", "compare", code)
    context = browser.new_context(viewport={"width": 1600, "height": 1100})
    page = context.new_page()
    open_panel(page, lab, "compare", path, ".ax-explorer canvas.ax-grid[data-key]")
    yield page
    context.close()


def test_compare_shows_both_sides_and_their_figures(page: Any, artifacts: Path) -> None:
    page.get_by_role("tab", name="Compare", exact=True).click()
    page.locator(".ax-compare-button").click()
    page.wait_for_selector(".ax-compare-tiles img", timeout=240_000)
    assert page.locator(".ax-compare-tiles img").count() == 12  # 4 images x 3 columns
    figures = page.locator(".ax-compare-figures").inner_text()
    assert "HorizontalFlip" in figures and "identical" in figures
    assert "area:" in figures and "angle:" in figures
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 1000})
        page.wait_for_timeout(400)
        screenshot(page, width, artifacts / f"compare-{width}.png")
        overflow = sideways(page)
        assert all(v <= 1 for v in overflow.values()), (width, overflow)
