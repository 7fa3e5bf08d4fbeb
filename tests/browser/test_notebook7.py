"""The panel in Notebook 7 (the `notebook` package's single-document UI), served by the same
Jupyter server as the JupyterLab tests: open the quickstart, run it, move a slider."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path
from typing import Any

import pytest

from .harness import ROOT, Server, grid_src, kernel_eval, open_in_notebook7, page_fixture, run_all
from .layout import WIDTHS, check_layout

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        importlib.util.find_spec("notebook") is None,
        reason="Notebook 7 is not installed (pip install 'notebook>=7')",
    ),
]

# A folder of its own: the lab tests' kernel runs the same notebook name at the root.
FOLDER = "notebook7"


def open_quickstart(page: Any, lab: Server) -> None:
    (lab.root / FOLDER).mkdir(exist_ok=True)
    shutil.copy(ROOT / "notebooks" / "01_quickstart.ipynb", lab.root / FOLDER)
    open_in_notebook7(page, lab, f"{FOLDER}/01_quickstart.ipynb")
    run_all(page)
    page.locator(".ax-explorer canvas.ax-grid[data-key]").first.wait_for(timeout=90_000)


page = page_fixture(open_quickstart, viewport=(1400, 1100))


def test_notebook7_renders_the_panel_and_a_slider_changes_the_grid(
    page: Any, artifacts: Path
) -> None:
    assert page.locator(".jp-NotebookPanel").count() == 1  # Notebook 7's page, not lab's
    assert page.locator("#jp-main-statusbar").count() == 0
    for node in ("source", "decode", "resize", "rotate", "crop", "flip"):
        assert page.locator(f".ax-graph [data-node='{node}']").count() == 1
    before = grid_src(page)
    page.locator(".ax-graph [data-node='rotate']").click()
    handle = page.locator(".ax-arg-fill_value .noUi-handle").first
    handle.wait_for(timeout=30_000)
    page.wait_for_function(
        "(before) => document.querySelector('.ax-explorer canvas.ax-grid').dataset.key !== before",
        arg=before,
        timeout=30_000,
    )
    before = grid_src(page)
    code = "explorer.flush(); print(explorer.result.plan.spec.node('rotate').args['fill_value'])"
    # Each press taken before the next, as a person sees the value move: a burst of presses is
    # the drag test's (test_grid_drag_browser); here a press made while the kernel redraws the
    # panel was once lost under load (CI), which this test is not about.
    for pressed in range(1, 6):
        handle.focus()
        handle.press("ArrowRight")
        for _ in range(40):
            ran = float(kernel_eval(page, code))
            if ran == float(pressed):
                break
            page.wait_for_timeout(250)
        assert ran == float(pressed), f"press {pressed}: the kernel ran {ran}"
    page.wait_for_function(
        "(before) => document.querySelector('.ax-explorer canvas.ax-grid').dataset.key !== before",
        arg=before,
        timeout=30_000,
    )
    page.locator(".ax-explorer").first.screenshot(path=str(artifacts / "notebook7-panel.png"))


@pytest.mark.parametrize("width", WIDTHS)
def test_notebook7_layout_at_common_widths(page: Any, artifacts: Path, width: int) -> None:
    """Notebook 7 at 1280, 1600 and 1920 px: the panel fits the page (screenshots saved)."""
    try:
        check_layout(page, width, artifacts, "notebook7")
    finally:
        page.set_viewport_size({"width": 1400, "height": 1100})
