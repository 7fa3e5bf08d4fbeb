"""A ported torchvision pipeline in a real browser: the import summary in the toolbar, each
ported node's grade in the graph and the node panel, at three widths (screenshots in
test-artifacts)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .harness import kernel_eval, panel_page
from .layout import WIDTHS, clipped_cards, resize, screenshot, sideways

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


page = panel_page(
    "ported",
    "ported",
    "from pathlib import Path\n"
    "from augexplorer import Explorer\n"
    f"Path('train.py').write_text('{PIPELINE}')\n"
    "explorer = Explorer(port='train.py', batch_size=8, autosave=False)\n"
    "display(explorer)",
    ".ax-explorer canvas.ax-grid[data-key]",
    viewport=(1600, 1100),
)


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
        resize(page, width)
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


FOLD = ".ax-graph .ax-g-port"


def within(inner: dict[str, float] | None, frame: Any) -> bool:
    outer = frame.bounding_box()
    assert inner is not None and outer is not None
    return (
        outer["x"] <= inner["x"] + 0.5
        and outer["y"] <= inner["y"] + 0.5
        and inner["x"] + inner["width"] <= outer["x"] + outer["width"] + 0.5
        and inner["y"] + inner["height"] <= outer["y"] + outer["height"] + 0.5
    )


TOGGLE = f"{FOLD} .ax-g-port-toggle"
HELPER = ".ax-graph [data-node='contrast_gray']"  # one of ColorJitter's 27 nodes


def test_a_transform_of_many_nodes_shows_folded_to_the_node_read_on(
    page: Any, artifacts: Path
) -> None:
    """RandomApply([ColorJitter]) is 27 nodes of DALI: the graph shows the call as written,
    its last node, and a toggle for the rest (at three widths, folded and unfolded)."""
    page.set_viewport_size({"width": 1600, "height": 1100})
    fold = page.locator(FOLD).first
    fold.wait_for(timeout=30_000)
    # the wrapped transform first: what a narrow column still shows
    assert (fold.locator(".ax-g-port-head").text_content() or "").startswith("ColorJitter(0.4")
    title = fold.locator("title").first.text_content() or ""
    assert title.startswith("ColorJitter(0.4, 0.4, 0.4, 0.1) / RandomApply(") and "line 5" in title
    main = page.locator(".ax-graph [data-node='hue_shifted'] .ax-g-box")
    assert main.count() == 1 and page.locator(HELPER).count() == 0
    assert within(main.bounding_box(), page.locator(f"{FOLD} .ax-g-port-frame").first)
    toggle = page.locator(TOGGLE).first
    assert toggle.get_attribute("aria-expanded") == "false"
    assert (toggle.locator(".ax-g-port-toggle-label").text_content() or "").startswith(
        "▸ show 26 more nodes · line 5"
    )
    # the transform's whole cost where a node's box has its own
    cost = toggle.locator(".ax-g-port-time").text_content() or ""
    assert cost.endswith(" ms") and float(cost.split()[0]) > 0
    for width in WIDTHS:
        resize(page, width)  # the graph redraws for its new width
        page.locator(FOLD).first.scroll_into_view_if_needed()
        page.locator(".ax-graph").first.screenshot(path=str(artifacts / f"port-folded-{width}.png"))
        assert all(v <= 1 for v in sideways(page).values()), (width, sideways(page))
    toggle.click()
    page.locator(HELPER).wait_for(timeout=10_000)
    assert page.locator(TOGGLE).first.get_attribute("aria-expanded") == "true"
    # every node of the transform drawn inside its frame
    frame = page.locator(f"{FOLD} .ax-g-port-frame").first
    assert within(page.locator(f"{HELPER} .ax-g-box").first.bounding_box(), frame)
    for width in WIDTHS:
        resize(page, width)
        assert page.locator(HELPER).count() == 1  # unfolded across redraws
        page.locator(FOLD).first.scroll_into_view_if_needed()
        page.locator(".ax-graph").first.screenshot(
            path=str(artifacts / f"port-unfolded-{width}.png")
        )
        assert all(v <= 1 for v in sideways(page).values()), (width, sideways(page))
    page.locator(TOGGLE).first.click()
    page.wait_for_function(f'document.querySelectorAll("{HELPER}").length === 0')
    # by keyboard too: the toggle takes focus and Enter
    page.locator(TOGGLE).first.focus()
    page.keyboard.press("Enter")
    page.locator(HELPER).wait_for(timeout=10_000)
    page.locator(TOGGLE).first.click()
    page.wait_for_function(f'document.querySelectorAll("{HELPER}").length === 0')


def test_selecting_a_folded_node_unfolds_its_transform(page: Any) -> None:
    page.set_viewport_size({"width": 1600, "height": 1100})
    assert page.locator(HELPER).count() == 0
    kernel_eval(page, "explorer.select('contrast_gray'); print('ok')")
    page.locator(".ax-graph .ax-g-selected[data-node='contrast_gray']").wait_for(timeout=30_000)
    # it stays unfolded when another of its nodes is chosen
    page.locator(".ax-graph [data-node='hue_shifted']").click()
    page.locator(".ax-graph .ax-g-selected[data-node='hue_shifted']").wait_for(timeout=30_000)
    assert page.locator(HELPER).count() == 1
    # folded again while one of its hidden nodes is selected: the fold holds
    kernel_eval(page, "explorer.select('contrast_gray'); print('ok')")
    page.locator(".ax-graph .ax-g-selected[data-node='contrast_gray']").wait_for(timeout=30_000)
    page.locator(TOGGLE).first.click()
    page.wait_for_function(f'document.querySelectorAll("{HELPER}").length === 0')
    page.wait_for_timeout(500)  # a redraw, if one came, would have unfolded it
    assert page.locator(HELPER).count() == 0
    kernel_eval(page, "explorer.select(None); print('ok')")


def test_an_error_on_a_folded_node_unfolds_its_transform(page: Any) -> None:
    page.set_viewport_size({"width": 1600, "height": 1100})
    if page.locator(HELPER).count():
        page.locator(TOGGLE).first.click()
    page.wait_for_function(f'document.querySelectorAll("{HELPER}").length === 0')
    kernel_eval(page, "explorer.set_arg('contrast_gray', 'output_type', 'NOPE'); explorer.flush()")
    page.locator(".ax-graph .ax-g-error[data-node='contrast_gray']").wait_for(timeout=30_000)
    kernel_eval(page, "explorer.undo(); explorer.flush(); print('ok')")
    page.wait_for_function("!document.querySelector('.ax-graph .ax-g-error')")


def test_the_timing_chart_has_one_row_for_the_transform(page: Any, artifacts: Path) -> None:
    fold = page.locator(".ax-timing-chart .ax-bar-fold").first
    fold.wait_for(timeout=30_000)
    summary = fold.locator("summary")
    assert "(27 nodes)" in (summary.text_content() or "")
    member = page.locator(".ax-timing-chart [data-node='contrast_gray']")
    assert not member.is_visible()
    summary.click()
    member.wait_for(state="visible", timeout=10_000)
    for width in WIDTHS:
        resize(page, width)
        fold.scroll_into_view_if_needed()
        page.locator(".ax-timing-chart").first.screenshot(
            path=str(artifacts / f"port-timing-{width}.png")
        )
        assert all(v <= 1 for v in sideways(page).values()), (width, sideways(page))
    # a new run's chart is new HTML: the row opened stays open, and one closed stays closed
    redraw_the_chart(page)
    assert member.is_visible()
    summary.click()
    member.wait_for(state="hidden", timeout=10_000)
    redraw_the_chart(page)
    assert not member.is_visible()


def redraw_the_chart(page: Any) -> None:
    """A new run (the toolbar's Reroll) and its chart put on the page in place of the one there."""
    page.evaluate("document.querySelector('.ax-timing-chart .ax-chart').dataset.old = '1'")
    page.locator(".ax-explorer .ax-reroll").first.click()
    page.wait_for_function(
        "(() => { const c = document.querySelector('.ax-timing-chart .ax-chart');"
        " return c && !c.dataset.old; })()",
        timeout=30_000,
    )
    page.wait_for_timeout(100)  # a frame for a row opened by the page, if it was to be
