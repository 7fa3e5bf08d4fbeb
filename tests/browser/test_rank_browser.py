"""The rank boxes of the toolbar in a real browser: typing a rank and a job size previews that
torchrun process's batch; the bar fits at three widths (screenshots in test-artifacts)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .harness import grid_src, kernel_eval, panel_page
from .layout import WIDTHS, check_layout

pytestmark = pytest.mark.browser


page = panel_page(
    "ranks",
    "ranks",
    "from augexplorer import Explorer\n"
    "explorer = Explorer('basic', batch_size=8, autosave=False)\n"
    "display(explorer)",
    ".ax-explorer canvas.ax-grid[data-key]",
    viewport=(1600, 1100),
)


def _type(page: Any, css: str, text: str) -> None:
    box = page.locator(f"{css} input").first
    box.fill(text)
    box.press("Enter")


def test_typing_a_rank_previews_that_process(page: Any, artifacts: Path) -> None:
    before = grid_src(page)
    _type(page, ".ax-world", "2")
    _type(page, ".ax-rank", "1")
    page.wait_for_function(
        "(before) => { const c = document.querySelector('.ax-explorer canvas.ax-grid');"
        " return c && c.dataset.key !== before; }",
        arg=before,
        timeout=30_000,
    )
    said = kernel_eval(page, "s = explorer.controller.session; print(s.rank, s.world_size)")
    assert said.split() == ["1", "2"]
    assert page.locator(".ax-rank.ax-rank-other").count() == 1
    for width in WIDTHS:
        check_layout(page, width, artifacts, "rank-preview")
        page.locator(".ax-toolbar").first.screenshot(
            path=str(artifacts / f"rank-toolbar-{width}.png")
        )
