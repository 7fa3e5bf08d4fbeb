"""The panel in Voila (the notebook as a web app, no code cells): it renders, does not offer a
graph JupyterLab autosaved, and fits the page at 1280, 1600 and 1920 px."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .harness import Server
from .layout import WIDTHS, check_layout

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def page(browser: Any, voila: Server) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1700, "height": 1100})
    page = context.new_page()
    page.goto(voila.url, timeout=120_000)
    page.locator(".ax-explorer .ax-tile img[src]").first.wait_for(timeout=120_000)
    yield page
    context.close()


def test_voila_renders_the_panel(page: Any, artifacts: Path) -> None:
    assert page.locator(".ax-graph [data-node='rotate']").count() == 1
    assert page.locator(".ax-tile").count() == 8  # the quickstart's batch
    # Whether or not JupyterLab autosaved an edited graph of the same notebook, Voila does not
    # offer it.
    assert page.locator(".ax-banner").first.is_hidden()
    page.locator(".ax-explorer").first.screenshot(path=str(artifacts / "voila-panel.png"))


@pytest.mark.parametrize("width", WIDTHS)
def test_voila_layout_at_common_widths(page: Any, artifacts: Path, width: int) -> None:
    check_layout(page, width, artifacts, "voila")
