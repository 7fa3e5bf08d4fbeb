"""Undo after a kernel restart, in JupyterLab: the panel edited, the kernel restarted, the cell run
again, the autosaved graph restored from the banner, then Ctrl+Z goes back through the edits made
before the restart, one step at a time, and the history list names each."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .harness import kernel_eval, panel_page, run_all

pytestmark = pytest.mark.browser

FOLDER = "undo_restart"  # a notebook of its own: other modules' kernels run other notebooks
PANEL = (
    "from augexplorer import Explorer\n"
    "explorer = Explorer('basic', batch_size=4, autosave='undo-restart.json')\nexplorer"
)
EDITS = (
    ("rotate", "fill_value", 5.0, "rotate.fill_value = 5"),
    ("resize", "resize_shorter", 300.0, "resize.resize_shorter = 300"),
)
# The step the history list shows as current (its no-break spaces read as spaces).
SHOWN_STEP = (
    "() => document.querySelector('.ax-history select').selectedOptions[0]"
    ".textContent.replace(/\\s+/g, ' ')"
)
RESTART = """
async () => {
  const panel = window.jupyterapp.shell.currentWidget;
  await panel.sessionContext.session.kernel.restart();
}
"""


def no_autosave_yet(root: Path) -> None:
    (root / FOLDER).mkdir(parents=True, exist_ok=True)
    (root / FOLDER / "undo-restart.json").unlink(missing_ok=True)


page = panel_page(
    FOLDER,
    "undo_restart",
    PANEL,
    ".ax-explorer .ax-tile",
    workspace="undo-restart",
    prepare=no_autosave_yet,
)


def test_ctrl_z_after_a_kernel_restart_goes_back_through_the_edits(
    page: Any, artifacts: Path
) -> None:
    for node, arg, value, _ in EDITS:
        kernel_eval(page, f"explorer.set_arg({node!r}, {arg!r}, {value!r}); explorer.flush()")
    page.evaluate(RESTART)
    page.locator("#jp-main-statusbar >> text=Idle").first.wait_for(timeout=60_000)
    run_all(page)
    page.locator(".ax-explorer .ax-restore").first.wait_for(timeout=90_000)
    page.locator(".ax-explorer .ax-restore").first.click()
    page.wait_for_function(f"() => ({SHOWN_STEP})().includes({EDITS[-1][3]!r})", timeout=30_000)
    page.locator(".ax-explorer").first.screenshot(path=str(artifacts / "undo-after-restart.png"))
    for _, _, _, label in reversed(EDITS[:-1]):
        page.locator(".ax-tile").first.focus()
        page.keyboard.press("Control+z")
        page.wait_for_function(f"() => ({SHOWN_STEP})().includes({label!r})", timeout=30_000)
    page.locator(".ax-tile").first.focus()
    page.keyboard.press("Control+z")
    page.wait_for_function(f"() => ({SHOWN_STEP})().includes('start: basic')", timeout=30_000)
    fill = kernel_eval(page, "print(explorer.spec.node('rotate').args['fill_value'])")
    assert fill.strip() == "0.0", "back at the graph the panel started with before the restart"
