"""The panel in a real browser: JupyterLab (and Voila) in headless Chromium."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from augexplorer_widgets.export_view import find_exporter

from augexplorer.data import samples_dir

from .harness import Server, grid_src, kernel_eval, quickstart_page
from .layout import beyond_its_cell, resize, screenshot, sideways

pytestmark = pytest.mark.browser


page = quickstart_page(".ax-explorer canvas.ax-grid[data-key]", viewport=(1700, 1100))


def sample_classes() -> set[str]:
    return {p.name for p in samples_dir().iterdir() if p.is_dir()}


def _wait_grid_change(page: Any, before: str) -> str:
    page.wait_for_function(
        "(before) => { const c = document.querySelector('.ax-explorer canvas.ax-grid');"
        " return c && c.dataset.key && c.dataset.key !== before; }",
        arg=before,
        timeout=30_000,
    )
    return grid_src(page)


def test_panel_renders_graph_grid_and_timing(page: Any, artifacts: Path) -> None:
    panel = page.locator(".ax-explorer").first
    for node in ("source", "decode", "resize", "rotate", "crop", "flip"):
        assert page.locator(f".ax-graph [data-node='{node}']").count() == 1
    page.locator(".ax-timing-chart .ax-bar-row[data-node='flip']").wait_for(timeout=30_000)
    assert page.locator(".ax-timing-chart .ax-bar-row").count() == 6
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
        "() => Number(document.querySelector('.ax-arg-fill_value .ax-number-box input').value)"
        " === 20"
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
    page.locator(".ax-op-item[data-op='gaussian_blur']").click()  # one click adds
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
    box = page.locator(".ax-arg-resize_shorter .ax-number-box input").first
    box.fill("-4")  # beyond the argument's range: refused before the graph, as 'abc' would be
    box.press("Enter")
    page.locator(
        ".ax-arg-resize_shorter .ax-arg-message", has_text="Not applied: -4 is out of range"
    ).wait_for(timeout=30_000)
    assert page.locator(".ax-graph .ax-g-error").count() == 0
    assert float(box.input_value()) == -4.0  # what the user typed stays, next to why
    box.fill("20")  # valid for resize, but the 224 px crop after it no longer fits
    box.press("Enter")
    page.locator(".ax-graph .ax-g-error[data-node='crop']").wait_for(timeout=30_000)
    page.wait_for_function(
        "() => document.querySelector('.ax-error-list').textContent.includes('crop')"
    )
    assert grid_src(page) == before  # the last good grid stays
    page.wait_for_timeout(300)  # any late update from the kernel would have landed by now
    assert float(box.input_value()) == 20.0  # what the user typed stays
    page.locator(".ax-explorer").first.screenshot(path=str(artifacts / "browser-05-error.png"))
    box.fill("300")  # fixed in place
    box.press("Enter")
    page.locator(".ax-graph .ax-g-error").first.wait_for(state="detached", timeout=30_000)
    _wait_grid_change(page, before)
    assert (
        kernel_eval(page, "print(explorer.spec.node('resize').args['resize_shorter'])").strip()
        == "300.0"
    )
    page.locator(".ax-undo").click()
    page.locator(".ax-undo").click()


def test_typed_values_that_are_not_applied_say_why(page: Any, artifacts: Path) -> None:
    page.locator(".ax-graph [data-node='rotate']").click()
    box = page.locator(".ax-arg-fill_value .ax-number-box input").first
    box.fill("abc")
    box.press("Enter")
    page.locator(".ax-arg-fill_value .ax-arg-message", has_text="is not a number").wait_for(
        timeout=30_000
    )
    assert box.input_value() == "abc"  # the browser kept the text and the kernel said why
    batch = page.locator(".ax-batch input").first
    batch.fill("0")
    batch.press("Enter")
    page.locator(".ax-batch-message", has_text="at least 1").wait_for(timeout=30_000)
    assert batch.input_value() == "0"
    # said on a line of its own: the toolbar's buttons stay where they were, nothing scrolls
    message = page.locator(".ax-batch-message").first.bounding_box()
    run = page.locator(".ax-run").first.bounding_box()
    assert message["y"] > run["y"] + run["height"] - 1
    assert all(v <= 1 for v in sideways(page).values()), sideways(page)
    page.locator(".ax-toolbar").first.screenshot(path=str(artifacts / "browser-09-batch-0.png"))
    page.locator(".ax-arg-fill_value").screenshot(path=str(artifacts / "browser-10-abc.png"))
    assert kernel_eval(page, "print(explorer.spec.batch_size)").strip() == "8"
    batch.fill("8")
    batch.press("Enter")
    page.locator(".ax-batch-message").first.wait_for(state="hidden", timeout=30_000)
    box.fill("20")
    box.press("Enter")
    page.locator(".ax-arg-fill_value .ax-arg-message", has_text="is not a number").wait_for(
        state="detached", timeout=30_000
    )


def test_the_autosave_belongs_to_this_notebook(page: Any) -> None:
    path = kernel_eval(page, "print(explorer.controller.autosave.path)").strip()
    assert path.startswith(".augexplorer/autosave-01_quickstart-") and path.endswith(".json")


def test_rename_refuses_bad_names_then_renames(page: Any, artifacts: Path) -> None:
    page.locator(".ax-graph [data-node='crop']").click()
    page.locator(".ax-rename").click()
    name = page.locator(".ax-rename-input input")
    name.fill("2nd crop")
    name.press("Enter")
    page.locator(".ax-rename-message", has_text="not a valid node name").wait_for(timeout=30_000)
    assert name.input_value() == "2nd crop"  # kept, so it can be corrected
    page.locator(".ax-node-panel").screenshot(path=str(artifacts / "browser-07-rename-refused.png"))
    name.fill("center_crop")
    name.press("Enter")
    # the renamed node stays selected (the graph may draw the new name a moment before the
    # selection that follows it)
    page.locator(".ax-graph .ax-g-selected[data-node='center_crop']").wait_for(timeout=30_000)
    assert page.locator(".ax-graph .ax-g-selected").count() == 1
    # the node panel is redrawn a moment after the graph
    page.locator(".ax-node-title", has_text="center_crop").wait_for(timeout=30_000)
    page.locator(".ax-undo").click()
    page.locator(".ax-graph [data-node='crop']").wait_for(timeout=30_000)


def test_variety_captions_name_the_class(page: Any, artifacts: Path) -> None:
    page.locator(".ax-grid-mode button", has_text="Variety").click()
    page.locator(".ax-grid-caption", has_text="one image").wait_for(timeout=60_000)
    classes = kernel_eval(
        page, "print(explorer.variety.caption, explorer.result.captions()[0])"
    ).split()
    assert classes[0] == classes[1] and classes[0] in sample_classes()
    page.locator(".ax-grid-view").screenshot(path=str(artifacts / "browser-08-variety.png"))
    page.locator(".ax-grid-mode button", has_text="Batch").click()
    page.locator(".ax-grid-caption", has_text="one image").wait_for(state="detached")


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
        # the code of the graph shows before any file is written: wait for the file's
        page.locator(".ax-export-code-status", has_text="as written to").wait_for(timeout=60_000)
        assert (lab.root / "exported_pipeline.py").is_file()
    page.locator(".ax-export").screenshot(path=str(artifacts / "browser-06-export.png"))


def test_a_preset_over_the_edited_graph_can_be_undone(page: Any, artifacts: Path) -> None:
    page.locator(".ax-preset select").select_option("randaugment")
    notice = page.locator(".ax-notice", has_text="Replaced your edited graph")
    notice.wait_for(timeout=60_000)
    notice.screenshot(path=str(artifacts / "browser-11-preset-notice.png"))
    page.locator(".ax-notice-undo").click()
    page.locator(".ax-graph [data-node='rotate']").wait_for(timeout=60_000)
    notice.wait_for(state="hidden")
    # The toolbar follows the undo: the preset shown is the graph's again, with its edits.
    page.wait_for_function(
        "() => document.querySelector('.ax-preset select').value === 'basic, edited'",
        timeout=30_000,
    )
    # ... so that picking the preset itself starts over from it
    page.locator(".ax-preset select").select_option("basic")
    again = page.locator(".ax-notice", has_text="with the preset “basic”")
    again.wait_for(timeout=60_000)
    page.wait_for_function(
        "() => document.querySelector('.ax-preset select').value === 'basic'", timeout=30_000
    )
    page.locator(".ax-notice-undo").click()  # the edits back, for the tests after this one
    again.wait_for(state="hidden")
    page.wait_for_function(
        "() => document.querySelector('.ax-preset select').value === 'basic, edited'",
        timeout=30_000,
    )


@pytest.mark.parametrize("width", [1280, 1600, 1920])
def test_layout_at_common_widths(page: Any, artifacts: Path, width: int) -> None:
    """The panel at three window widths, as a person would look at it: saved for review, and
    the panel itself never wider than the notebook gives it."""
    screenshot(page, width, artifacts / f"browser-width-{width}.png")
    resize(page, width, 1100)  # lab lays out again after a resize
    overflow = sideways(page)  # the panel, and every part of it that could scroll
    assert all(v <= 1 for v in overflow.values()), (width, overflow)
    assert beyond_its_cell(page) <= 1, (width, beyond_its_cell(page))
    # No button's label cut to "…" (ipywidgets' buttons ellipsize), the export tab's included.
    page.locator(".ax-tabs .lm-TabBar-tab", has_text="Export").click()
    page.locator(".ax-export-button").wait_for(timeout=10_000)
    cut = page.evaluate(
        "() => [...document.querySelectorAll('.ax-explorer button')]"
        ".filter(b => b.offsetParent !== null && b.scrollWidth > b.clientWidth)"
        ".map(b => b.textContent.trim() || b.title)"
    )
    assert cut == [], f"button labels cut at {width} px: {cut}"
    page.locator(".ax-tabs .lm-TabBar-tab", has_text="Timing").click()
    page.set_viewport_size({"width": 1700, "height": 1100})
