"""Controls from one rule, in the browser: gaussian_blur's sigma is a slider with its box (DALI
types it as a list), its window size says "not set" rather than "0", and "random" from the
slider draws around its value; at 1280, 1600 and 1920 px."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .harness import Server, kernel_eval, open_panel, write_panel_notebook
from .layout import WIDTHS, screenshot, sideways

pytestmark = pytest.mark.browser

FOLDER = "arg_controls"  # a notebook of its own: other modules' kernels run other notebooks
PANEL = (
    "from augexplorer import Explorer\nexplorer = Explorer('basic', batch_size=4, "
    "autosave=None)\nexplorer.add('gaussian_blur')\nexplorer.flush()\n"
    "blur = next(n.id for n in explorer.spec.nodes if n.op == 'gaussian_blur')\n"
    "explorer.select(blur)\nexplorer"
)


@pytest.fixture(scope="module")
def page(browser: Any, lab: Server) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1600, "height": 1000})
    page = context.new_page()
    path = write_panel_notebook(lab.root, FOLDER, "arg_controls", PANEL)
    open_panel(
        page,
        lab,
        "arg-controls",
        path,
        ".ax-arg-sigma .noUi-handle, .ax-arg-sigma input[type=range]",
    )
    yield page
    context.close()


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


@pytest.mark.parametrize("width", WIDTHS)
def test_the_controls_fit_at_every_width(page: Any, artifacts: Path, width: int) -> None:
    screenshot(page, width, artifacts / f"arg-controls-{width}.png")
    page.set_viewport_size({"width": width, "height": 1000})
    page.wait_for_timeout(300)
    assert all(v <= 1 for v in sideways(page).values()), sideways(page)
    page.set_viewport_size({"width": 1600, "height": 1000})
