"""A newcomer's first preset picks, in JupyterLab: the detection preset picked on the bundled
samples started with an error and a "Read COCO annotations" button; it now reads the bundled
COCO file and draws its boxes on the tiles at once, and a classification preset picked after it
reads the bundled samples again (each photo's class as its label). At 1280, 1600 and 1920 px."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from augexplorer.data import samples_dir

from .harness import kernel_eval, panel_page
from .layout import WIDTHS, resize, screenshot, sideways

pytestmark = pytest.mark.browser

FOLDER = "newcomer_presets"  # a notebook of its own: other modules' kernels run other notebooks
PANEL = "from augexplorer import Explorer\nexplorer = Explorer('basic', batch_size=4, autosave=None)\nexplorer"

page = panel_page(FOLDER, "newcomer_presets", PANEL, ".ax-explorer .ax-tile canvas[data-key]")

# what the data menu shows (ipywidgets writes its spaces as no-break spaces)
SOURCE_SHOWN = (
    "(s => s.options[s.selectedIndex].text.replace(/\\s/g, ' '))"
    "(document.querySelector('.ax-source select'))"
)
BOXES = "document.querySelectorAll('.ax-tile rect.ax-ov-box').length"


def until_kernel_says(page: Any, expression: str, expected: str, tries: int = 120) -> None:
    """Ask the kernel for `expression` until it prints `expected` (a pick reaches the kernel
    and runs there after the page has sent it)."""
    said = ""
    for _ in range(tries):
        said = kernel_eval(page, f"print({expression})").strip()
        if said == expected:
            return
        page.wait_for_timeout(250)
    raise AssertionError(f"{expression} is {said!r}, not {expected!r}")


def test_the_detection_preset_on_the_bundled_samples_draws_boxes_at_once(
    page: Any, artifacts: Path
) -> None:
    page.locator(".ax-preset select").select_option("ssd_detection")
    until_kernel_says(
        page, "explorer.spec.name, explorer.spec.sources()[0].kind", "ssd_detection coco"
    )
    page.wait_for_function(f"() => {BOXES} > 0", timeout=60_000)
    page.wait_for_function(f"() => {SOURCE_SHOWN} === 'COCO annotations'", timeout=30_000)
    assert not page.locator(".ax-fix-annotated").first.is_visible()  # nothing to fix
    assert not page.locator(".ax-output .ax-error-list").first.is_visible()
    for width in WIDTHS:
        resize(page, width)
        assert all(v <= 1 for v in sideways(page).values()), (width, sideways(page))
        screenshot(page, width, artifacts / f"newcomer-presets-detection-{width}.png")
    page.set_viewport_size({"width": 1600, "height": 1000})
    # a classification preset after it: the bundled samples again, labelled by their class
    page.locator(".ax-preset select").select_option("imagenet_val")
    until_kernel_says(
        page, "explorer.spec.name, explorer.spec.sources()[0].kind", "imagenet_val samples"
    )
    page.wait_for_function(f"() => {BOXES} === 0", timeout=60_000)
    page.wait_for_function(f"() => {SOURCE_SHOWN} === 'bundled samples'", timeout=30_000)
    # each tile's label is its photo's class (a folder of the bundled samples)
    classes = {p.name for p in samples_dir().iterdir() if p.is_dir()}
    labels = {text.strip() for text in page.locator(".ax-tile .ax-tile-label").all_inner_texts()}
    assert labels and labels <= classes, (labels, classes)
    screenshot(page, 1600, artifacts / "newcomer-presets-classification-1600.png")
    page.set_viewport_size({"width": 1600, "height": 1000})
