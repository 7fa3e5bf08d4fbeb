"""Controls from one rule, in the browser: gaussian_blur's sigma is a slider with its box (DALI
types it as a list), its window size says "not set" rather than "0", and "random" from the
slider draws around its value; at 1280, 1600 and 1920 px."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .harness import kernel_eval, panel_page
from .layout import WIDTHS, resize, screenshot, sideways

pytestmark = pytest.mark.browser

FOLDER = "arg_controls"  # a notebook of its own: other modules' kernels run other notebooks
PANEL = (
    "from augexplorer import Explorer\nexplorer = Explorer('basic', batch_size=4, "
    "autosave=None)\nexplorer.add('gaussian_blur')\nexplorer.flush()\n"
    "blur = next(n.id for n in explorer.spec.nodes if n.op == 'gaussian_blur')\n"
    "explorer.select(blur)\nexplorer"
)


page = panel_page(
    FOLDER,
    "arg_controls",
    PANEL,
    ".ax-arg-sigma .noUi-handle, .ax-arg-sigma input[type=range]",
    workspace="arg-controls",
)


def test_sigma_slides_and_window_size_is_not_set(page: Any, artifacts: Path) -> None:
    box = page.locator(".ax-arg-sigma .ax-number-box input")
    assert box.input_value() == "2"
    assert page.locator(".ax-arg-window_size .ax-arg-unset-note").inner_text().startswith("not set")
    assert page.locator(".ax-arg-window_size input").count() == 0  # no "0" in a box
    handle = page.locator(".ax-arg-sigma .noUi-handle, .ax-arg-sigma input[type=range]").first
    handle.focus()
    for _ in range(5):
        handle.press("ArrowRight")  # 0.1 a step
    page.wait_for_function(
        "() => document.querySelector('.ax-arg-sigma .ax-number-box input').value === '2.5'",
        timeout=30_000,
    )
    kernel_eval(page, "explorer.flush()")
    assert kernel_eval(page, "print(explorer.spec.node(blur).args['sigma'])").strip() == "2.5"
    page.locator(".ax-node-panel, .ax-selected-node").first.screenshot(
        path=str(artifacts / "arg-controls-blur.png")
    )


def test_random_from_the_slider_is_centred_on_its_value(page: Any) -> None:
    page.locator(".ax-arg-sigma .ax-random-toggle").click()
    page.locator(
        ".ax-arg-sigma .ax-random-low input, .ax-arg-sigma .ax-param-low input"
    ).first.wait_for(timeout=30_000)
    kernel_eval(page, "explorer.flush()")
    drawn = kernel_eval(page, "r = explorer.spec.node(blur).args['sigma']; print(r.low, r.high)")
    low, high = (float(v) for v in drawn.split())
    assert low < high and (low + high) / 2 == pytest.approx(2.5, abs=0.05)
    page.locator(".ax-arg-sigma .ax-random-toggle").click()
    page.locator(".ax-arg-sigma .ax-number-box input").wait_for(timeout=30_000)


def test_random_area_is_a_range_with_a_box_each_end(page: Any, artifacts: Path) -> None:
    kernel_eval(
        page,
        "explorer.add('random_resized_crop'); explorer.flush(); "
        "crop = next(n.id for n in explorer.spec.nodes if n.op == 'random_resized_crop'); "
        "explorer.select(crop); explorer.flush()",
    )
    low = page.locator(".ax-arg-random_area .ax-range-low input")
    low.wait_for(timeout=30_000)
    assert low.input_value() == "0.08"
    assert page.locator(".ax-arg-random_area .ax-range-high input").input_value() == "1"
    assert page.locator(".ax-arg-random_area .noUi-handle").count() == 2  # one slider, two ends
    handle = page.locator(".ax-arg-random_area .noUi-handle").first
    was = handle.bounding_box()["x"]
    low.fill("0.25")
    low.press("Enter")
    kernel_eval(page, "explorer.flush()")
    assert (
        kernel_eval(page, "print(explorer.spec.node(crop).args['random_area'])").strip()
        == "[0.25, 1.0]"
    )
    # the slider's low end followed the box (a quarter of the way along)
    page.wait_for_function(
        "(was) => document.querySelector('.ax-arg-random_area .noUi-handle')"
        ".getBoundingClientRect().x > was + 10",
        arg=was,
        timeout=30_000,
    )
    page.locator(".ax-node-panel").first.screenshot(path=str(artifacts / "arg-controls-range.png"))


def test_ctrl_z_and_ctrl_shift_z_undo_and_redo_in_the_panel(page: Any) -> None:
    area = "print(explorer.spec.node(crop).args.get('random_area'))"
    assert kernel_eval(page, area).strip() == "[0.25, 1.0]"  # the edit of the test before
    # anywhere else in the panel: the graph's last edit undone, then redone
    page.locator(".ax-tile").first.focus()
    page.keyboard.press("Control+z")
    page.wait_for_function(
        "() => document.querySelector('.ax-arg-random_area .ax-range-low input')?.value === '0.08'",
        timeout=30_000,
    )
    assert kernel_eval(page, area).strip() == "None"  # unset again: DALI's default shown
    page.locator(".ax-tile").first.focus()
    page.keyboard.press("Control+Shift+z")
    page.wait_for_function(
        "() => document.querySelector('.ax-arg-random_area .ax-range-low input')?.value === '0.25'",
        timeout=30_000,
    )
    assert kernel_eval(page, area).strip() == "[0.25, 1.0]"
    assert page.locator(".ax-explorer").count() == 1  # the notebook did not take the keys


def test_a_new_operators_starting_values_are_marked(page: Any, artifacts: Path) -> None:
    kernel_eval(
        page,
        "explorer.add('color_twist'); explorer.flush(); "
        "twist = next(n.id for n in explorer.spec.nodes if n.op == 'color_twist'); "
        "explorer.select(twist); explorer.flush()",
    )
    page.locator(".ax-arg-hue .ax-arg-starting-note").wait_for(timeout=30_000)
    assert page.locator(".ax-arg-starting").count() == 4
    assert "starting value" in page.locator(".ax-arg-hue .ax-arg-starting-note").inner_text()
    page.locator(".ax-node-panel").first.screenshot(
        path=str(artifacts / "arg-controls-starting.png")
    )
    box = page.locator(".ax-arg-hue .ax-number-box input")
    box.fill("0")
    box.press("Enter")
    page.locator(".ax-arg-hue .ax-arg-starting-note").wait_for(state="hidden", timeout=30_000)
    assert page.locator(".ax-arg-starting").count() == 3


@pytest.mark.parametrize("width", WIDTHS)
def test_the_controls_fit_at_every_width(page: Any, artifacts: Path, width: int) -> None:
    screenshot(page, width, artifacts / f"arg-controls-{width}.png")
    resize(page, width)
    assert all(v <= 1 for v in sideways(page).values()), sideways(page)
    page.set_viewport_size({"width": 1600, "height": 1000})
