"""The panel in a real browser: JupyterLab (and Voila) in headless Chromium."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from augexplorer_widgets.export_view import find_exporter

from .harness import Server, grid_src, kernel_eval, open_notebook, run_all

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def page(browser: Any, lab: Server) -> Any:
    context = browser.new_context(viewport={"width": 1700, "height": 1100})
    page = context.new_page()
    open_notebook(page, lab, "01_quickstart.ipynb")
    run_all(page)
    page.locator(".ax-explorer img.ax-grid[src]").first.wait_for(timeout=90_000)
    yield page
    context.close()


def _wait_grid_change(page: Any, before: str) -> str:
    page.wait_for_function(
        "(before) => { const img = document.querySelector('.ax-explorer img.ax-grid');"
        " return img && img.src && img.src !== before; }",
        arg=before,
        timeout=30_000,
    )
    return grid_src(page)


def test_panel_renders_graph_grid_and_timing(page: Any, artifacts: Path) -> None:
    panel = page.locator(".ax-explorer").first
    for node in ("source", "decode", "resize", "rotate", "crop", "flip"):
        assert page.locator(f".ax-graph [data-node='{node}']").count() == 1
    assert page.locator(".ax-explorer img.ax-timing-chart[src]").count() == 1
    assert "steps" in page.locator(".ax-status").first.inner_text()
    panel.screenshot(path=str(artifacts / "browser-01-panel.png"))


def test_select_node_shows_its_output_and_controls(page: Any, artifacts: Path) -> None:
    before = grid_src(page)
    page.locator(".ax-graph [data-node='rotate']").click()
    page.locator(".ax-arg-fill_value").wait_for()
    _wait_grid_change(page, before)
    assert "rotate" in page.locator(".ax-grid-caption").inner_text()
    assert page.locator(".ax-graph .ax-g-selected[data-node='rotate']").count() == 1
    page.locator(".ax-explorer").first.screenshot(path=str(artifacts / "browser-02-selected.png"))


def test_slider_moves_change_the_grid_and_coalesce(page: Any, artifacts: Path) -> None:
    if page.locator(".ax-arg-fill_value").count() == 0:
        page.locator(".ax-graph [data-node='rotate']").click()
    runs_before = int(kernel_eval(page, "print(explorer._coalescer.runs)"))
    before = grid_src(page)
    handle = page.locator(".ax-arg-fill_value .noUi-handle").first
    handle.focus()
    presses = 20
    for _ in range(presses):
        handle.press("ArrowRight")
    _wait_grid_change(page, before)
    # The last press is what the kernel ends up running, whatever happened in between.
    page.wait_for_function(
        "() => document.querySelector('.ax-arg-fill_value .widget-readout').textContent.trim() === '20.00'"
    )
    # The front end sends the newest value once the kernel is idle again: poll until it lands.
    code = (
        "explorer.flush(); print(explorer.spec.node('rotate').args['fill_value'],"
        " explorer._coalescer.runs, explorer.result.plan.spec.node('rotate').args['fill_value'])"
    )
    for _ in range(40):
        value, runs_after, ran_value = kernel_eval(page, code).split()
        if float(ran_value) == 20.0:
            break
        page.wait_for_timeout(250)
    assert float(value) == 20.0 and float(ran_value) == 20.0
    assert int(runs_after) - runs_before < presses  # coalesced: fewer runs than key presses
    page.locator(".ax-explorer").first.screenshot(path=str(artifacts / "browser-03-slider.png"))


def test_add_operator_then_undo(page: Any, artifacts: Path) -> None:
    search = page.locator(".ax-op-search input")
    search.fill("gaussian_blur")
    page.wait_for_function(
        "() => [...document.querySelectorAll('.ax-op-list option')].length >= 1 &&"
        " document.querySelector('.ax-op-list option').textContent.startsWith('gaussian_blur')"
    )
    page.locator(".ax-op-add").click()
    page.locator(".ax-graph [data-node='gaussian_blur']").wait_for(timeout=30_000)
    page.locator(".ax-arg-sigma").wait_for()
    assert page.locator(".ax-graph .ax-g-error").count() == 0
    page.locator(".ax-explorer").first.screenshot(path=str(artifacts / "browser-04-added.png"))
    page.locator(".ax-undo").click()
    page.locator(".ax-graph [data-node='gaussian_blur']").wait_for(state="detached", timeout=30_000)


def test_error_shows_on_node_and_keeps_grid(page: Any, artifacts: Path) -> None:
    before = grid_src(page)
    page.locator(".ax-graph [data-node='resize']").click()
    page.locator(".ax-arg-resize_shorter").wait_for()
    before = _wait_grid_change(page, before)
    box = page.locator(".ax-arg-resize_shorter .widget-readout").first
    said = kernel_eval(page, "explorer.set_arg('resize', 'resize_shorter', -4.0); print('ok')")
    assert said.strip() == "ok", said
    page.locator(".ax-graph .ax-g-error[data-node='resize']").wait_for(timeout=30_000)
    page.wait_for_function(
        "() => document.querySelector('.ax-error-list').textContent.includes('resize_shorter')"
    )
    assert "resize_shorter" in page.locator(".ax-arg-resize_shorter .ax-arg-message").inner_text()
    assert grid_src(page) == before  # the last good grid stays
    assert box.count() == 1
    page.locator(".ax-explorer").first.screenshot(path=str(artifacts / "browser-05-error.png"))
    page.locator(".ax-undo").click()
    page.locator(".ax-graph .ax-g-error").first.wait_for(state="detached", timeout=30_000)


def test_export_tab(page: Any, artifacts: Path, lab: Server) -> None:
    page.locator(".ax-tabs .lm-TabBar-tab", has_text="Export").click()
    page.locator(".ax-export-path input").fill("exported_pipeline.py")
    if find_exporter() is None:
        assert "augexplorer.export" in page.locator(".ax-export").inner_text()
        assert page.locator(".ax-export-button").is_disabled()
    else:
        page.locator(".ax-export-button").click()
        page.locator(".ax-export-code pre").wait_for(timeout=60_000)
        assert "pipeline_def" in page.locator(".ax-export-code pre").inner_text()
        assert (lab.root / "exported_pipeline.py").is_file()
    page.locator(".ax-export").screenshot(path=str(artifacts / "browser-06-export.png"))


def test_voila_renders_the_panel(browser: Any, voila: Server, artifacts: Path) -> None:
    context = browser.new_context(viewport={"width": 1700, "height": 1100})
    page = context.new_page()
    page.goto(voila.url, timeout=120_000)
    page.locator(".ax-explorer img.ax-grid[src]").first.wait_for(timeout=120_000)
    assert page.locator(".ax-graph [data-node='rotate']").count() == 1
    page.locator(".ax-explorer").first.screenshot(path=str(artifacts / "voila-panel.png"))
    context.close()
