"""Keys pressed in the panel stay in the panel: with a tile, the large view, a toolbar button
or a checkbox focused, JupyterLab's command-mode keys (`a`, `b` insert a cell, `d d` deletes
one, `m` makes it markdown) do nothing to the notebook. A trial found `d d` in the large view
deleting the panel's own cell."""

from __future__ import annotations

from typing import Any

import pytest

from .harness import panel_page

pytestmark = pytest.mark.browser

FOLDER = "keys"
PANEL = "from augexplorer import Explorer\nExplorer('basic', batch_size=4, autosave=None)"
FOCUSED = {
    "tile": ".ax-explorer .ax-tile",
    "large view": ".ax-explorer .ax-large",
    "Run button": ".ax-explorer .ax-run",
    "checkbox": ".ax-explorer input[type=checkbox]",
}


page = panel_page(FOLDER, "keys", PANEL, ".ax-explorer .ax-tile canvas[data-key]")


def cells(page: Any) -> list[str]:
    """Each cell of the open notebook, by its kind."""
    return page.evaluate(
        "() => [...document.querySelectorAll('.jp-Notebook .jp-Cell')].map((c) =>"
        " c.classList.contains('jp-CodeCell') ? 'code' : 'other')"
    )


@pytest.mark.parametrize("what", list(FOCUSED))
def test_command_mode_keys_leave_the_notebook_alone(page: Any, what: str) -> None:
    before = cells(page)
    if what == "large view":
        page.locator(".ax-explorer .ax-tile").first.click()
        page.locator(".ax-explorer .ax-large").wait_for(state="visible", timeout=30_000)
    target = page.locator(FOCUSED[what]).first
    target.focus()
    assert page.evaluate("() => document.activeElement.closest('.ax-explorer') !== null")
    for key in ("a", "b", "m", "d", "d"):
        page.keyboard.press(key)
    page.wait_for_timeout(300)
    assert cells(page) == before, what
    assert page.locator(".ax-explorer").count() == 1  # the panel's cell is still there
    if what == "large view":
        page.keyboard.press("Escape")  # the view's own key still works
        page.locator(".ax-explorer .ax-large").wait_for(state="hidden", timeout=10_000)


@pytest.mark.parametrize("what", ["graph card", "argument's name"])
def test_a_click_on_what_takes_no_focus_keeps_the_keys_in_the_panel(page: Any, what: str) -> None:
    """A click on a graph's card (or a label) focused the notebook's cell, the nearest thing
    that takes focus: `b` then added a cell under the panel, and Ctrl+Z, which undoes the
    graph's last edit anywhere in the panel, undid nothing of it."""
    page.locator(".ax-graph [data-node='rotate']").click()
    page.locator(".ax-arg-fill_value").first.wait_for(timeout=30_000)
    box = page.locator(".ax-arg-fill_value input[type=text]")
    box.fill("33")
    box.press("Enter")
    page.wait_for_function(
        "() => document.querySelector('.ax-history select').title.includes('fill_value = 33')",
        timeout=30_000,
    )
    before = cells(page)
    if what == "graph card":
        page.locator(".ax-graph [data-node='crop']").click()
        page.locator(".ax-arg-crop_pos_x").first.wait_for(timeout=30_000)
    else:
        page.locator(".ax-node-panel .ax-arg-label").first.click()
    assert page.evaluate("() => document.activeElement.closest('.ax-explorer') !== null")
    for key in ("b", "m"):
        page.keyboard.press(key)
    page.wait_for_timeout(300)
    assert cells(page) == before, what
    page.keyboard.press("Control+z")  # the graph's edit undone: the step before is on screen
    page.wait_for_function(
        "() => !document.querySelector('.ax-history select').title.includes('fill_value = 33')",
        timeout=30_000,
    )
