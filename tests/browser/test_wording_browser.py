"""What the panel's words say on screen, checked in JupyterLab at each window width: a Variety
tile is called a draw of the one sample (it read "#3", the name of another sample of the
batch), the timing chart bounds its time from above and its rate from below, and the training
run's box names the schedule editor instead of pointing "below" (it sits above, or beside), and
an autosaved graph offered back says how it differs from the one shown (both were "basic")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .harness import panel_page
from .layout import WIDTHS, resize, screenshot

pytestmark = pytest.mark.browser

FOLDER = "wording"  # a notebook of its own: other modules' kernels run other notebooks
# An edited graph autosaved where the panel looks: the panel opens offering it back.
PANEL = (
    "from augexplorer import Explorer, preset\n"
    "from augexplorer_widgets.autosave import Autosave\n"
    "from pathlib import Path\n"
    "Autosave(Path('wording-autosave.json')).save(preset('basic').remove('flip'))\n"
    "explorer = Explorer('basic', batch_size=8, autosave='wording-autosave.json')\nexplorer"
)

page = panel_page(FOLDER, "wording", PANEL, ".ax-explorer .ax-tile canvas[data-key]")


@pytest.mark.parametrize("width", WIDTHS)
def test_words_say_what_the_panel_does(page: Any, artifacts: Path, width: int) -> None:
    resize(page, width)
    banner = page.locator(".ax-banner-text")
    assert banner.inner_text().endswith("It differs from the graph shown: removed flip.")
    # its buttons keep their whole labels beside the longer text (they read "Resto…" at 1280)
    for button in (".ax-banner .ax-restore", ".ax-banner .ax-discard"):
        cut = page.locator(button).evaluate("b => b.scrollWidth - b.clientWidth")
        assert cut <= 1, (width, button, cut)
    page.locator(".ax-grid-mode button", has_text="Variety").click()
    page.locator(".ax-grid-caption", has_text="one image, 8 draws: sample #0").wait_for(
        timeout=60_000
    )
    indices = page.locator(".ax-tile .ax-tile-index")
    page.locator(".ax-tile .ax-tile-index", has_text="draw 8").wait_for(timeout=30_000)
    assert indices.all_inner_texts() == [f"draw {k}" for k in range(1, 9)]
    page.locator(".ax-tile[data-index='2']").click()
    title = page.locator(".ax-large-title")
    title.wait_for(timeout=30_000)
    assert title.inner_text() == "draw 3 · 3 / 8"
    assert "of the one image" in (title.get_attribute("title") or "")
    assert page.locator(".ax-large-prev").get_attribute("title") == "previous draw (←)"
    assert page.locator(".ax-large-next").get_attribute("title") == "next draw (→)"
    page.locator(".ax-large").focus()
    page.keyboard.press("Escape")
    page.locator(".ax-large").wait_for(state="hidden", timeout=10_000)

    page.locator(".ax-tabs .lm-TabBar-tab", has_text="Timing").click()
    chart = page.locator(".ax-timing-chart .ax-chart-title")
    chart.wait_for(timeout=30_000)
    assert chart.inner_text().startswith("batch of 8: at most ")
    assert "ms, at least " in chart.inner_text() and "upper bound" not in chart.inner_text()
    run = page.locator(".ax-schedules")
    assert "“Follow the run” box, under its arguments" in run.inner_text()
    assert "below" not in run.inner_text()
    screenshot(page, width, artifacts / f"wording-variety-{width}.png")

    page.locator(".ax-grid-mode button", has_text="Batch").click()
    page.locator(".ax-grid-caption", has_text="one image").wait_for(state="detached")
    assert page.locator(".ax-tile .ax-tile-index").first.inner_text() == "#0"
