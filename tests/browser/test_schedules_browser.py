"""The training-run box in a real browser: a value scheduled over the run, the epoch slider let
go at the last epoch, the grid redrawn, the plot's marker moved; it fits at three widths
(screenshots in test-artifacts)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .harness import grid_src, kernel_eval, panel_page
from .layout import WIDTHS, check_layout

pytestmark = pytest.mark.browser


page = panel_page(
    "schedules",
    "schedules",
    "from augexplorer import Explorer\n"
    "from augexplorer.spec import Schedule\n"
    "explorer = Explorer('basic', batch_size=8, autosave=False)\n"
    "explorer.set_schedule('rotate.angle.high', Schedule.linear(5, 45))\n"
    "explorer.set_schedule('rotate.angle.low', Schedule.linear(-5, -45))\n"
    "explorer.set_schedule('flip.apply', Schedule.warmup(0.1, 0.9, epochs=30))\n"
    "explorer.select('rotate')\n"
    "display(explorer)",
    ".ax-explorer canvas.ax-grid[data-key]",
    viewport=(1600, 1100),
)


def test_moving_the_epoch_redraws_the_grid_and_the_plot(page: Any, artifacts: Path) -> None:
    plot = page.locator(".ax-schedule-svg").first
    plot.wait_for(timeout=30_000)
    assert plot.get_attribute("aria-label").endswith("epoch 0 marked")
    assert page.locator(".ax-schedule-svg polyline").count() == 3
    before = grid_src(page)
    slider = page.locator(".ax-epoch .slider-container").first
    slider.scroll_into_view_if_needed()
    box = slider.bounding_box()
    assert box is not None
    # drag the handle to the right end: the slider is let go at the last epoch
    page.mouse.click(box["x"] + box["width"] - 1, box["y"] + box["height"] / 2)
    page.wait_for_function(
        "(before) => { const c = document.querySelector('.ax-explorer canvas.ax-grid');"
        " return c && c.dataset.key !== before; }",
        arg=before,
        timeout=30_000,
    )
    epoch = int(kernel_eval(page, "print(explorer.controller.epoch)"))
    assert epoch > 80  # near the end of a 90-epoch run (the click lands on the last pixels)
    page.wait_for_function(
        "(e) => document.querySelector('.ax-schedule-svg')"
        ".getAttribute('aria-label').endsWith(`epoch ${e} marked`)",
        arg=epoch,
        timeout=10_000,
    )
    for width in WIDTHS:
        check_layout(page, width, artifacts, "schedules")
        page.locator(".ax-schedules").first.screenshot(
            path=str(artifacts / f"schedules-box-{width}.png")
        )
        editor = page.locator(".ax-schedule-editor").first
        assert editor.is_visible()  # with the selected node's controls
        editor.screenshot(path=str(artifacts / f"schedules-editor-{width}.png"))


def test_a_run_length_that_is_no_whole_number_says_why(page: Any, artifacts: Path) -> None:
    """The page's own number box turned "2.5" epochs into 25: the text box keeps it, the kernel
    says why under it, and the run stays 90 epochs; "25" typed key by key is one undo step."""
    page.set_viewport_size({"width": 1600, "height": 1100})
    box = page.locator(".ax-schedules .ax-epochs input").first
    box.scroll_into_view_if_needed()
    steps = kernel_eval(page, "print(len(explorer.controller.history))").strip()
    box.fill("2.5")
    box.press("Enter")
    refused = page.locator(".ax-schedule-refused")
    refused.wait_for(state="visible", timeout=30_000)
    said = refused.inner_text()
    assert "'2.5' is not a whole number" in said and "stays 90" in said, said
    assert box.input_value() == "2.5"  # the text as typed
    assert kernel_eval(page, "print(explorer.spec.epochs)").strip() == "90"
    assert kernel_eval(page, "print(len(explorer.controller.history))").strip() == steps
    # the reason on a line of its own under the box, inside the box's column
    line, field = refused.bounding_box(), box.bounding_box()
    column = page.locator(".ax-schedules").first.bounding_box()
    assert line["y"] >= field["y"] + field["height"] - 1
    assert line["x"] + line["width"] <= column["x"] + column["width"] + 1
    page.locator(".ax-schedules").first.screenshot(
        path=str(artifacts / "schedules-epochs-refused.png")
    )
    box.fill("")
    box.press_sequentially("25")  # key by key, then Enter: one value, one step
    box.press("Enter")
    refused.wait_for(state="hidden", timeout=30_000)
    kernel_eval(page, "explorer.flush()")
    assert kernel_eval(page, "print(explorer.spec.epochs)").strip() == "25"
    assert int(kernel_eval(page, "print(len(explorer.controller.history))")) == int(steps) + 1
    label = kernel_eval(page, "print(explorer.controller.history.steps()[-1].label)").strip()
    assert label == "a run of 25 epochs"
