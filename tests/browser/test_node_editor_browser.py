"""The selected node's editor as a person uses it: every argument's name reads whole (a long
one such as `random_aspect_ratio` wraps, never cut; its full name on hover), and the editor's
controls and the images are on screen together; at 1280, 1600 and 1920 px."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .harness import Server, open_panel, write_panel_notebook
from .layout import WIDTHS, sideways

pytestmark = pytest.mark.browser

FOLDER = "node_editor"  # a notebook of its own: other modules' kernels run other notebooks
PANEL = (
    "from augexplorer import Explorer\nexplorer = Explorer('basic', batch_size=8, "
    "autosave=None)\nexplorer.add('random_resized_crop')\nexplorer.flush()\n"
    "crop = next(n.id for n in explorer.spec.nodes if n.op == 'random_resized_crop')\n"
    "explorer.select(crop)\nexplorer"
)
LONG_NAME = "random_aspect_ratio"


@pytest.fixture(scope="module")
def page(browser: Any, lab: Server) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1600, "height": 1000})
    page = context.new_page()
    path = write_panel_notebook(lab.root, FOLDER, "node_editor", PANEL)
    open_panel(page, lab, "node-editor", path, f".ax-arg-{LONG_NAME} .ax-arg-label")
    page.locator(".ax-explorer .ax-tile").first.wait_for(timeout=90_000)
    yield page
    context.close()


def at_width(page: Any, width: int) -> None:
    page.set_viewport_size({"width": width, "height": 1000})
    page.wait_for_timeout(600)  # lab lays out again after a resize; the graph redraws


# Each argument label of the node editor: its name as shown (line breaks taken out), its hover
# text, how far its text reaches past its own box, and whether it runs under the control
# beside it.
LABELS = """
() => [...document.querySelectorAll('.ax-node-panel .ax-arg-row > .ax-arg-label')].map((label) => {
  const text = label.querySelector('.widget-html-content') || label;
  const span = label.querySelector('span[title]');
  const box = label.getBoundingClientRect();
  const next = label.nextElementSibling?.getBoundingClientRect();
  const words = span.getBoundingClientRect();
  return {
    name: span.textContent,
    title: span.title,
    past: Math.max(text.scrollWidth - text.clientWidth, Math.ceil(words.right - box.right)),
    under: next && next.top < box.bottom && next.left < box.right - 1 && next.right > box.left
      ? Math.ceil(box.right - next.left) : 0,
    lines: Math.round(words.height / parseFloat(getComputedStyle(span).lineHeight)),
  };
})
"""


@pytest.mark.parametrize("width", WIDTHS)
def test_every_argument_name_reads_whole(page: Any, artifacts: Path, width: int) -> None:
    at_width(page, width)
    labels = page.evaluate(LABELS)
    names = [label["name"] for label in labels]
    assert LONG_NAME in names and "random_area" in names, names
    for label in labels:
        assert label["past"] <= 1, label  # nothing cut at the label's edge
        assert label["under"] <= 1, label  # nor hidden under the boxes beside it
        assert label["title"].startswith(f"{label['name']}: "), label  # full name on hover
    long = next(label for label in labels if label["name"] == LONG_NAME)
    assert long["lines"] <= 2, long  # wrapped after a "_", not a letter a line
    page.locator(f".ax-arg-{LONG_NAME}").first.screenshot(
        path=str(artifacts / f"node-editor-label-{width}.png")
    )
    assert all(v <= 1 for v in sideways(page).values()), sideways(page)
