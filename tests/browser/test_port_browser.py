"""A ported torchvision pipeline in a real browser: the import summary in the toolbar, each
ported node's grade in the graph and the node panel, at three widths (screenshots in
test-artifacts)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .harness import Server, kernel_eval, open_panel, write_panel_notebook
from .layout import WIDTHS, clipped_cards, screenshot, sideways

pytestmark = pytest.mark.browser

PIPELINE = (
    "import torchvision.transforms as T\\n"
    "train_transform = T.Compose([\\n"
    "    T.RandomResizedCrop(160),\\n"
    "    T.RandomHorizontalFlip(),\\n"
    "    T.RandomApply([T.ColorJitter(0.4, 0.4, 0.4, 0.1)], p=0.8),\\n"
    "    T.Lambda(lambda x: x),\\n"
    "])\\n"
)


@pytest.fixture(scope="module")
def page(browser: Any, lab: Server) -> Any:
    code = (
        "from pathlib import Path\n"
        "from augexplorer import Explorer\n"
        f"Path('train.py').write_text('{PIPELINE}')\n"
        "explorer = Explorer(port='train.py', batch_size=8, autosave=False)\n"
        "display(explorer)"
    )
    path = write_panel_notebook(lab.root, "ported", "ported", code)
    context = browser.new_context(viewport={"width": 1600, "height": 1100})
    page = context.new_page()
    open_panel(page, lab, "ported", path, ".ax-explorer canvas.ax-grid[data-key]")
    yield page
    context.close()


def test_grades_show_in_the_graph_the_node_panel_and_the_summary(
    page: Any, artifacts: Path
) -> None:
    summary = page.locator(".ax-port-summary").first
    assert "transforms ported" in summary.inner_text()
    graph = page.locator(".ax-graph-view, .ax-graph").first
    assert (
        "distribution · torchvision" in graph.inner_text()
        or page.get_by_text("distribution · torchvision").count()
    )
    kernel_eval(page, "explorer.select('random_resized_crop'); print('ok')")
    page.wait_for_selector(".ax-node-origin", timeout=30_000)
    assert "distribution</b>" in page.locator(".ax-node-origin").first.inner_html()
    for width in WIDTHS:
        screenshot(page, width, artifacts / f"ported-{width}.png")
        page.set_viewport_size({"width": width, "height": 1000})
        page.wait_for_timeout(500)
        assert page.locator(".ax-graph [data-node='random_resized_crop']").count() == 1
        overflow = sideways(page)
        assert all(v <= 1 for v in overflow.values()), (width, overflow)
        assert clipped_cards(page) == [], (width, clipped_cards(page))


def test_an_edited_ported_node_says_its_grade_is_of_the_port(page: Any, artifacts: Path) -> None:
    kernel_eval(
        page,
        "explorer.select('random_resized_crop')\n"
        "explorer.set_arg('random_resized_crop', 'size', [128.0, 128.0]); explorer.flush()",
    )
    edited = page.locator(".ax-node-origin-edited")
    edited.wait_for(timeout=30_000)
    assert "edited since the port (size)" in edited.inner_text()
    for width in WIDTHS:
        screenshot(page, width, artifacts / f"ported-edited-{width}.png")
    page.set_viewport_size({"width": 1600, "height": 1100})
