"""The editing side of the panel as a person sees it: the graph fits its column, the picker
greys what cannot go at the selection, distribution editors are labelled, the source has its
switch; screenshots at 1280, 1600 and 1920 px under test-artifacts/ (the dark theme: see
test_theme_browser.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .harness import kernel_eval, quickstart_page
from .layout import WIDTHS, beyond_its_cell, clipped_cards, resize, screenshot

pytestmark = pytest.mark.browser


page = quickstart_page(".ax-explorer .ax-graph [data-node='rotate']")


def _sideways(page: Any, css: str) -> int:
    """How far the widest element under `css` overflows its box sideways (0: it fits)."""
    return int(
        page.evaluate(
            "(css) => Math.max(0, ...[...document.querySelectorAll(css)].map("
            "e => e.scrollWidth - e.clientWidth))",
            css,
        )
    )


def select(page: Any, node: str) -> None:
    """Select `node` in the graph (a click on the selected node would unselect it)."""
    selected = page.locator(f".ax-graph .ax-g-selected[data-node='{node}']")
    if selected.count() == 0:
        page.locator(f".ax-graph [data-node='{node}']").click()
    selected.wait_for(timeout=30_000)


@pytest.mark.parametrize("width", WIDTHS)
def test_graph_and_picker_fit_their_column(page: Any, artifacts: Path, width: int) -> None:
    screenshot(page, width, artifacts / f"editing-{width}.png")
    resize(page, width)  # the graph redraws for its new width
    assert _sideways(page, ".ax-graph-root") == 0
    assert _sideways(page, ".ax-op-list") == 0
    svg = page.locator(".ax-graph-svg").first.bounding_box()
    column = page.locator(".ax-graph-root").first.bounding_box()
    assert svg["width"] <= column["width"] + 1
    assert clipped_cards(page) == [], clipped_cards(page)
    assert beyond_its_cell(page) <= 1, beyond_its_cell(page)
    page.set_viewport_size({"width": 1600, "height": 1000})


def test_picker_greys_what_does_not_fit_and_adds_in_one_click(page: Any, artifacts: Path) -> None:
    page.set_viewport_size({"width": 1600, "height": 1000})
    page.locator(".ax-graph [data-node='source']").click()
    page.wait_for_function(
        "() => (document.querySelector('.ax-op-where') || {}).textContent?.includes('source')"
    )
    search = page.locator(".ax-op-search input")
    search.fill("hsv")
    item = page.locator(".ax-op-item[data-op='hsv']")
    assert "after decode" in item.inner_text()
    item.click()
    page.locator(".ax-graph [data-node='hsv']").wait_for(timeout=30_000)
    for name in ("hue", "saturation", "value"):
        page.locator(f".ax-arg-{name}").first.wait_for()
    search.fill("decoders.image")
    off = page.locator(".ax-op-item.ax-op-off[data-op='decoders.image']")
    off.wait_for()
    assert "takes encoded" in off.inner_text()
    search.fill("")
    page.locator(".ax-explorer").first.screenshot(path=str(artifacts / "editing-added-hsv.png"))


def test_picker_offers_auto_augment_policies_with_their_cost(page: Any, artifacts: Path) -> None:
    # crop, not rotate: the next test clicks rotate, and a click on the selected node unselects it
    select(page, "crop")
    page.locator(".ax-op-where", has_text="after crop").wait_for(timeout=30_000)
    search = page.locator(".ax-op-search input")
    search.fill("augment")
    group = page.locator(".ax-op-group-title", has_text="auto augment")
    group.wait_for(timeout=30_000)
    # DALI's three and torchvision's AutoAugment: all fit after crop (HWC uint8)
    assert "4/4" in group.inner_text()
    row = page.locator(".ax-op-item[data-op='auto_aug.rand_augment']")
    assert "rebuilds a DALI pipeline" in row.locator(".ax-op-cost").inner_text()
    page.locator(".ax-op-picker").first.screenshot(path=str(artifacts / "editing-auto-aug.png"))
    search.fill("")


def test_picker_groups_by_what_operators_do_and_hides_audio_video_readers(page: Any) -> None:
    select(page, "crop")
    page.locator(".ax-op-where", has_text="after crop").wait_for(timeout=30_000)
    search = page.locator(".ax-op-search input")
    search.fill("")
    titles = [  # as written: the page shows them in capitals
        t.split(" · ")[0]
        for t in page.locator(".ax-op-group-title").evaluate_all(
            "els => els.map(e => e.textContent)"
        )
    ]
    groups = json.loads(
        kernel_eval(
            page,
            "import json; from augexplorer_widgets.op_picker import GROUPS; "
            "print(json.dumps(GROUPS))",
        )
    )
    hidden = groups[-1]
    assert titles and titles == [g for g in groups if g in titles], titles  # in GROUPS order
    assert hidden not in titles and page.locator(".ax-op-item[data-op='mfcc']").count() == 0
    show = page.locator(".ax-op-show-hidden input")
    show.check()
    try:
        page.locator(".ax-op-group-title", has_text=hidden).wait_for(timeout=30_000)
        assert page.locator(".ax-op-item[data-op='mfcc']").count() == 1
    finally:
        show.uncheck()
    page.locator(".ax-op-group-title", has_text=hidden).wait_for(state="detached")


def test_argument_labels_carry_dalis_doc_on_hover(page: Any) -> None:
    select(page, "rotate")
    label = page.locator(".ax-arg-fill_value .ax-arg-label").first
    label.wait_for(timeout=30_000)
    doc = kernel_eval(
        page,
        "from augexplorer.catalog import load_catalog; "
        "print(' '.join(load_catalog()['rotate'].arg('fill_value').doc.split())[:60])",
    )
    hover = label.evaluate("e => e.querySelector('span[title]')?.title")
    assert doc.strip() and doc.strip() in (hover or ""), (doc, hover)
    # and a control with a description: its tooltip on the description itself
    lock = page.locator(".ax-seed-lock label span[title]").first
    assert "random draws" in (lock.get_attribute("title") or "")


def test_picker_search_reads_words_and_enter_adds_the_first_that_fits(page: Any) -> None:
    select(page, "crop")
    search = page.locator(".ax-op-search input")
    search.fill("random crop")  # the words of random_resized_crop, in another order
    first = page.locator(".ax-op-item:not(.ax-op-off)").first
    first.wait_for(timeout=30_000)
    assert first.get_attribute("data-op") == "random_resized_crop"
    search.press("Enter")
    page.locator(".ax-graph [data-node^='random_resized_crop']").wait_for(timeout=30_000)
    search.fill("")
    kernel_eval(page, "explorer.undo(); explorer.flush()")
    page.locator(".ax-graph [data-node^='random_resized_crop']").wait_for(
        state="detached", timeout=30_000
    )


def test_distribution_editors_show_their_labels(page: Any, artifacts: Path) -> None:
    # Drawn, the range slider puts -20 on its steps as -19.999999999999986 and sends it back:
    # selecting the node must leave the graph and its history as they were.
    history = (
        "explorer.flush(); print(len(explorer.state.history), explorer.state.can_redo, "
        "repr(explorer.spec.node('rotate').args['angle']))"
    )
    before = kernel_eval(page, history)
    page.locator(".ax-graph [data-node='rotate']").click()
    page.locator(".ax-arg-angle .ax-param-low").first.wait_for(timeout=30_000)
    page.wait_for_timeout(500)
    assert kernel_eval(page, history) == before
    assert page.locator(".ax-arg-angle .ax-param-high").first.is_visible()
    page.locator(".ax-arg-angle select").first.select_option("normal")
    page.locator(".ax-arg-angle .ax-param-mean").first.wait_for(timeout=30_000)
    mean = page.locator(".ax-arg-angle .ax-param-mean input").first
    box = mean.bounding_box()
    panel = page.locator(".ax-node-panel").first.bounding_box()
    assert box["x"] + box["width"] <= panel["x"] + panel["width"] + 1  # not cut off
    assert page.locator(".ax-arg-angle .ax-param-label").first.inner_text() == "mean"
    page.locator(".ax-node-panel").first.screenshot(path=str(artifacts / "editing-normal.png"))


def _ran_fill_value(page: Any, expected: float) -> float:
    """The rotate node's fill_value in the kernel's graph once it settled on `expected` (key
    presses coalesce, so intermediate values may never reach the kernel)."""
    code = "explorer.flush(); print(explorer.spec.node('rotate').args.get('fill_value', 0))"
    value = float("nan")
    for _ in range(40):
        value = float(kernel_eval(page, code))
        if value == expected:
            break
        page.wait_for_timeout(250)
    return value


def test_slider_arrow_moves_one_step_and_shift_arrow_ten(page: Any, artifacts: Path) -> None:
    select(page, "rotate")
    handle = page.locator(".ax-arg-fill_value .noUi-handle").first
    handle.wait_for(timeout=30_000)
    box = page.locator(".ax-arg-fill_value .ax-number-box input").first
    step = float(
        kernel_eval(page, "print(explorer.node_panel.controls['fill_value'].editor.slider.step)")
    )
    start = float(box.input_value())
    shown = "(v) => Number(document.querySelector('.ax-arg-fill_value .ax-number-box input').value) === v"
    handle.focus()
    handle.press("ArrowRight")
    page.wait_for_function(shown, arg=start + step, timeout=30_000)
    assert _ran_fill_value(page, start + step) == start + step
    handle.press("Shift+ArrowRight")
    page.wait_for_function(shown, arg=start + 11 * step, timeout=30_000)
    assert _ran_fill_value(page, start + 11 * step) == start + 11 * step
    page.locator(".ax-arg-fill_value").screenshot(path=str(artifacts / "editing-shift-arrow.png"))
    handle.press("Shift+ArrowLeft")
    page.wait_for_function(shown, arg=start + step, timeout=30_000)
    assert _ran_fill_value(page, start + step) == start + step
    handle.press("ArrowLeft")
    page.wait_for_function(shown, arg=start, timeout=30_000)
    assert _ran_fill_value(page, start) == start


def test_range_slider_keeps_every_arrow_press(page: Any) -> None:
    """Arrow presses on a range's end, faster than the kernel runs: none is lost (the page sends
    -19.999999999999986 for -20; the kernel once sent back the clean value, which landed after
    later presses and pulled the handle back)."""
    select(page, "rotate")
    kernel_eval(
        page,
        "from augexplorer.spec import Random;"
        " explorer.set_arg('rotate', 'angle', Random.uniform(-20.0, 20.0)); print(1)",
    )
    low = page.locator(".ax-arg-angle .ax-param-low input").first
    page.wait_for_function(
        "() => document.querySelector('.ax-arg-angle .ax-param-low input')?.value === '-20'",
        timeout=30_000,
    )
    handle = page.locator(".ax-arg-angle .noUi-handle-lower").first
    handle.focus()
    presses = 15
    for _ in range(presses):
        handle.press("ArrowRight")
    page.wait_for_function(
        "() => document.querySelector('.ax-arg-angle .ax-param-low input').value === '-5'",
        timeout=30_000,
    )
    code = "explorer.flush(); print(explorer.spec.node('rotate').args['angle'].low)"
    ran = float("nan")
    for _ in range(40):
        ran = float(kernel_eval(page, code))
        if ran == -5.0:
            break
        page.wait_for_timeout(250)
    assert ran == -5.0 and low.input_value() == "-5"
