"""The panel in Voila (the notebook as a web app, no code cells): it renders, does not offer a
graph JupyterLab autosaved, and fits the page at 1280, 1600 and 1920 px."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from .harness import Server, page_fixture
from .layout import WIDTHS, check_layout

pytestmark = pytest.mark.browser


def open_voila(page: Any, voila: Server) -> None:
    page.goto(voila.url, timeout=120_000)
    page.locator(".ax-explorer .ax-tile canvas[data-key]").first.wait_for(timeout=120_000)


page = page_fixture(open_voila, viewport=(1700, 1100), server="voila")


def test_voila_renders_the_panel(page: Any, artifacts: Path) -> None:
    assert page.locator(".ax-graph [data-node='rotate']").count() == 1
    assert page.locator(".ax-tile").count() == 8  # the quickstart's batch
    page.locator(".ax-explorer").first.screenshot(path=str(artifacts / "voila-panel.png"))


def test_voila_keeps_its_own_autosave(page: Any, voila: Server) -> None:
    """JupyterLab's autosave of the same notebook and the folder's shared one hold an edited
    graph (the fixture put them there): Voila offers neither, and its edits go to a file of its
    own, leaving theirs as they were."""
    folder = voila.root / ".augexplorer"
    planted = {
        path: path.read_text()
        for path in folder.glob("autosave*.json")
        if not path.name.startswith("autosave-voila-")
    }
    assert len(planted) >= 2, sorted(planted)
    assert page.locator(".ax-banner").first.is_hidden()

    def own() -> dict[Path, str]:
        return {path: path.read_text() for path in folder.glob("autosave-voila-*.json")}

    before = own()
    page.locator(".ax-reroll").first.click()  # an edit (new seeds): saved at once
    deadline = time.monotonic() + 30
    while (not own() or own() == before) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert own() and own() != before, sorted(p.name for p in folder.iterdir())
    assert {path: path.read_text() for path in planted} == planted


@pytest.mark.parametrize("width", WIDTHS)
def test_voila_layout_at_common_widths(page: Any, artifacts: Path, width: int) -> None:
    check_layout(page, width, artifacts, "voila")
