"""An argument another node draws, in the browser: the segmentation preset's rotate reads its
angle from the node 'angle', which the mask's rotate reads too. The row shows the node's name
as a link (a click selects 'angle', whose range is edited there) and no random toggle or reset
of its own; at 1280, 1600 and 1920 px."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .harness import kernel_eval, panel_page
from .layout import WIDTHS, resize, screenshot, sideways

pytestmark = pytest.mark.browser

FOLDER = "wired_args"  # a notebook of its own: other modules' kernels run other notebooks
PANEL = (
    "from augexplorer import Explorer\nexplorer = Explorer('segmentation', batch_size=4, "
    "autosave=None)\nexplorer.select('rotate')\nexplorer"
)


page = panel_page(FOLDER, "wired_args", PANEL, ".ax-arg-angle .ax-ref-link", workspace="wired-args")


@pytest.mark.parametrize("width", WIDTHS)
def test_the_wired_row_fits_at_every_width(page: Any, artifacts: Path, width: int) -> None:
    screenshot(page, width, artifacts / f"wired-args-{width}.png")
    resize(page, width)
    assert all(v <= 1 for v in sideways(page).values()), sideways(page)
    link = page.locator(".ax-arg-angle .ax-ref-link")
    assert link.inner_text().strip() == "← angle"
    assert page.locator(".ax-arg-angle .ax-random-toggle").is_disabled()
    page.locator(".ax-node-panel").first.screenshot(path=str(artifacts / f"wired-row-{width}.png"))
    page.set_viewport_size({"width": 1600, "height": 1000})


def test_the_link_selects_the_draw(page: Any) -> None:
    page.locator(".ax-arg-angle .ax-ref-link").click()
    page.locator(".ax-arg-range").first.wait_for(timeout=30_000)
    assert kernel_eval(page, "explorer.flush(); print(explorer.state.selected)").strip() == "angle"
