"""The history menu as a newcomer reads it, in JupyterLab at 1280, 1600 and 1920 px: a long
step (a weighted choice of angles) was cut at the box's right edge, losing the weights' end and
the "◀ now" mark, with nothing on hover. It now reads whole in the box, shortened in the middle
("rotate.angle ~ choic … 0.2, 0.1  ◀ now"), its whole label on hover, and the menu stays inside
the panel; a short step reads as it is."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .harness import kernel_eval, panel_page
from .layout import WIDTHS, resize, sideways

pytestmark = pytest.mark.browser

FOLDER = "newcomer_history"  # a notebook of its own: other modules' kernels run other notebooks
PANEL = (
    "from augexplorer import Explorer\n"
    "explorer = Explorer('basic', batch_size=4, autosave=None)\nexplorer"
)
WEIGHTED = (
    "from augexplorer.spec import Random\n"
    "explorer.set_arg('rotate', 'angle', Random.choice("
    "[-30.0, -15.0, 0.0, 15.0, 30.0], [0.1, 0.2, 0.4, 0.2, 0.1]))\n"
    "explorer.flush()"
)
LONG = "2. rotate.angle ~ choice(-30, -15, 0, 15, 30) weighted 0.1, 0.2, 0.4, 0.2, 0.1  ◀ now"
SHORT = "3. rotate.fill_value = 40  ◀ now"
MENU = ".ax-history select"
# The menu's box: the step it shows (its no-break spaces read as spaces), how wide that text
# is against the room the box has, its hover text, and where it ends against the toolbar's edge.
SHOWN = """(css) => { const el = document.querySelector(css);
  const bar = el.closest('.ax-toolbar').getBoundingClientRect();
  return { text: el.selectedOptions[0].textContent.replace(/\\s+/g, ' '),
    over: el.scrollWidth - el.clientWidth, title: el.title,
    beyond: el.getBoundingClientRect().right - bar.right }; }"""

page = panel_page(FOLDER, "newcomer_history", PANEL, ".ax-explorer .ax-tile canvas[data-key]")


def shows_step(page: Any, start: str) -> dict[str, Any]:
    """The menu once the kernel has made the step starting `start` the one on screen."""
    page.wait_for_function(
        "([css, start]) => { const el = document.querySelector(css);"
        " const text = el.selectedOptions[0].textContent.replace(/\\s+/g, ' ');"
        " return [el.title, text].every((t) => t.startsWith(start) && t.endsWith('now')); }",
        arg=[MENU, start],
        timeout=30_000,
    )
    return dict(page.evaluate(SHOWN, MENU))


def test_a_long_step_reads_whole_in_the_menu_at_every_width(page: Any, artifacts: Path) -> None:
    kernel_eval(page, "explorer.set_arg('rotate', 'fill_value', 12.0); explorer.flush()")
    kernel_eval(page, WEIGHTED)
    for width in WIDTHS:
        resize(page, width)
        shown = shows_step(page, "2. ")
        # whole in its box: the start (what was edited), the end (the weights, the mark)
        assert shown["over"] <= 0, (width, shown)
        assert shown["text"].startswith("2. rotate.angle ~ choic"), shown
        assert " … " in shown["text"] and shown["text"].endswith("0.2, 0.1 ◀ now"), shown
        assert shown["title"] == LONG, shown  # the whole of it on hover
        assert shown["beyond"] <= 1, (width, shown)
        assert all(v <= 1 for v in sideways(page).values()), (width, sideways(page))
        page.locator(".ax-explorer").first.scroll_into_view_if_needed()
        page.locator(".ax-toolbar").first.screenshot(
            path=str(artifacts / f"newcomer-history-{width}.png")
        )
    # a short step is shown as it is, typed in the panel as a person types it
    page.locator(".ax-graph [data-node='rotate']").click()
    box = page.locator(".ax-arg-fill_value input[type=text]")
    box.fill("40")
    box.press("Enter")
    shown = shows_step(page, "3. ")
    assert shown["text"] == SHORT.replace("  ", " ") and shown["title"] == SHORT, shown
    # the long one is listed as the box shows it, and picking it goes back to it
    page.locator(MENU).select_option(index=2)
    shown = shows_step(page, "2. ")
    assert shown["title"] == LONG, shown
    resize(page, 1600)
