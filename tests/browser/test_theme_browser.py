"""The panel under JupyterLab's real "JupyterLab Dark" theme (switched through the theme
command, as the Settings menu does): every part follows the theme's colours and the key texts
stay legible (WCAG contrast of at least 4.5:1 against what is behind them)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .harness import panel_page, set_theme
from .layout import CONTRAST, WIDTHS, check_layout, screenshot, sideways

pytestmark = pytest.mark.browser

FOLDER = "theme"  # a notebook and a workspace of its own

# A theme variable resolved to the colour the browser computes for it (rgb(...)).
THEME_COLOR = """
(name) => { const probe = document.createElement('div');
  probe.style.color = `var(${name})`; document.body.appendChild(probe);
  const c = getComputedStyle(probe).color; probe.remove(); return c; }
"""

KEY_TEXTS = {
    "toolbar title": ".ax-explorer .ax-title",
    "toolbar status": ".ax-explorer .ax-status",
    "section title": ".ax-explorer .ax-section-title",
    "graph card name": ".ax-graph [data-node='crop'] .ax-g-id",
    "graph card operator": ".ax-graph [data-node='crop'] .ax-g-op",
    "graph card time": ".ax-graph [data-node='crop'] .ax-g-time",
    "graph random argument": ".ax-graph [data-node='rotate'] .ax-g-random",
    "tile label": ".ax-tile-label",
    "tile draws": ".ax-tile-draws",
    "grid caption": ".ax-grid-caption",
    "node title": ".ax-node-title",
    "argument label": ".ax-arg-fill_value .ax-arg-label",
    "argument number box": ".ax-arg-fill_value .ax-number-box input",
    "picker search box": ".ax-op-search input",
    "picker operator": ".ax-op-item:not(.ax-op-off) .ax-op-name",
    "picker summary": ".ax-op-item:not(.ax-op-off) .ax-op-summary",
    "timing name": ".ax-bar-name",
    "timing value": ".ax-bar-ms",
}


PANEL = "from augexplorer import Explorer\nexplorer = Explorer('basic', batch_size=4, autosave=None)\nexplorer"


def dark_with_the_rotate_node_open(page: Any) -> None:
    page.locator(".ax-graph [data-node='rotate']").click()
    page.locator(".ax-arg-fill_value .ax-number-box input").wait_for(timeout=30_000)
    page.locator(".ax-bar-row").first.wait_for(timeout=30_000)
    set_theme(page, "JupyterLab Dark", light=False)


page = panel_page(
    FOLDER,
    "theme",
    PANEL,
    ".ax-explorer .ax-tile canvas[data-key]",
    viewport=(1600, 1400),
    then=dark_with_the_rotate_node_open,
    close=lambda opened: set_theme(opened, "JupyterLab Light", light=True),
)


def test_dark_theme_key_texts_are_legible(page: Any, artifacts: Path) -> None:
    screenshot(page, 1600, artifacts / "theme-dark-panel.png")
    low = _low_contrast(page, KEY_TEXTS)
    assert not low, "\n".join(low)


def _low_contrast(page: Any, texts: dict[str, str]) -> list[str]:
    results = {name: page.evaluate(CONTRAST, css) for name, css in texts.items()}
    missing = [name for name, r in results.items() if r is None]
    assert not missing, f"not on the page: {missing}"
    return [
        f"{name}: {r['ratio']:.2f} ({r['fg']} on {r['bg']})"
        for name, r in results.items()
        if r["ratio"] < 4.5
    ]


def test_dark_theme_colours_come_from_the_theme(page: Any) -> None:
    """Cards, tiles, the toolbar and the inputs take the dark theme's own colours."""
    computed = page.evaluate(
        "() => ({"
        " card: getComputedStyle(document.querySelector(\"[data-node='crop'] .ax-g-box\")).fill,"
        " tile: getComputedStyle(document.querySelector('.ax-tile')).backgroundColor,"
        " toolbar: getComputedStyle(document.querySelector('.ax-toolbar')).backgroundColor,"
        " column: getComputedStyle(document.querySelector('.ax-column')).backgroundColor,"
        " input: getComputedStyle(document.querySelector("
        "'.ax-arg-fill_value .ax-number-box input')).backgroundColor })"
    )
    theme = {
        name: page.evaluate(THEME_COLOR, var)
        for name, var in {
            "layout1": "--jp-layout-color1",
            "layout0": "--jp-layout-color0",
            "input": "--jp-widgets-input-background-color",
        }.items()
    }
    assert computed["card"] == theme["layout1"], (computed, theme)
    assert computed["tile"] == theme["layout1"], (computed, theme)
    assert computed["toolbar"] == theme["layout1"], (computed, theme)
    assert computed["column"] == theme["layout0"], (computed, theme)
    assert computed["input"] == theme["input"], (computed, theme)


def test_dark_theme_large_view_is_legible(page: Any, artifacts: Path) -> None:
    page.locator(".ax-tile[data-index='0']").click()
    page.locator(".ax-pane-after canvas").wait_for(timeout=30_000)
    try:
        page.locator(".ax-large").screenshot(path=str(artifacts / "theme-dark-large.png"))
        low = _low_contrast(
            page,
            {
                "large title": ".ax-large-title",
                "pane title": ".ax-pane-title",
                "pane meta": ".ax-pane-meta",
                "fact name": ".ax-large-facts th",
                "fact value": ".ax-large-facts td",
                "readout": ".ax-readout",
            },
        )
        assert not low, "\n".join(low)
    finally:
        page.keyboard.press("Escape")
        page.locator(".ax-large").wait_for(state="hidden", timeout=10_000)


def test_dark_theme_shows_the_statistics_plot_drawn_for_it(page: Any, artifacts: Path) -> None:
    """The plot is drawn for both themes; the page shows the dark one, and the light one again
    when the theme is switched back, without a new run."""
    stats = page.locator(".ax-explorer .ax-stats")
    page.locator(".ax-explorer .lm-TabBar-tab", has_text="Statistics").click()
    batches = stats.locator(".ax-stats-batches input")  # beside it: N images (hidden)
    batches.fill("2")
    batches.press("Enter")
    stats.locator("button", has_text="Run statistics").click()
    dark, light = stats.locator("img.ax-plot-dark"), stats.locator("img.ax-plot-light")
    dark.wait_for(state="visible", timeout=60_000)
    page.wait_for_function(
        "() => document.querySelector('.ax-stats img.ax-plot-dark').naturalWidth > 0"
    )
    assert light.is_hidden()
    over = sideways(page)  # the plot at the column's full width does not scroll it sideways
    assert all(v <= 1 for v in over.values()), over
    stats.screenshot(path=str(artifacts / "theme-dark-statistics.png"))
    set_theme(page, "JupyterLab Light", light=True)
    try:
        assert light.is_visible() and dark.is_hidden()
    finally:
        set_theme(page, "JupyterLab Dark", light=False)
    page.locator(".ax-explorer .lm-TabBar-tab", has_text="Timing").click()


@pytest.mark.parametrize("width", WIDTHS)
def test_dark_theme_layout_at_common_widths(page: Any, artifacts: Path, width: int) -> None:
    """The dark panel fits at each width as the light one does (screenshots for review)."""
    try:
        check_layout(page, width, artifacts, "theme-dark")
        assert page.evaluate("() => document.body.dataset.jpThemeLight") == "false"
    finally:
        page.set_viewport_size({"width": 1600, "height": 1400})
