"""A range whose ends are long, as a newcomer meets it in JupyterLab: imagenet_train's
random_aspect_ratio holds 4/3, written exactly, and its boxes beside the name pushed the random
and reset buttons onto a line alone between the boxes and the slider, unlike every other row.
The name and its buttons now share the first line, the boxes the next, whole, the slider under
them. At 1280, 1600 and 1920 px."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .harness import panel_page
from .layout import WIDTHS, resize, sideways
from .test_newcomer_judging_browser import select

pytestmark = pytest.mark.browser

FOLDER = "newcomer_range"  # a notebook of its own: other modules' kernels run other notebooks
PANEL = (
    "from augexplorer import Explorer\n"
    "explorer = Explorer('imagenet_train', batch_size=4, autosave=None)\nexplorer"
)
ROW = ".ax-arg-random_aspect_ratio"

page = panel_page(FOLDER, "newcomer_range", PANEL, ".ax-explorer .ax-tile canvas[data-key]")


def box(page: Any, css: str) -> dict[str, float]:
    found = page.locator(f"{ROW} {css}").first.bounding_box()
    assert found is not None, css
    return dict(found)


@pytest.mark.parametrize("width", WIDTHS)
def test_a_long_range_reads_whole_under_its_name_and_buttons(
    page: Any, artifacts: Path, width: int
) -> None:
    if width == WIDTHS[0]:
        select(page, "decode", "random_aspect_ratio")
    resize(page, width)
    high = page.locator(f"{ROW} .ax-range-high input")
    assert high.input_value() == "1.3333333333333333"
    assert high.evaluate("el => el.scrollWidth - el.clientWidth") <= 0
    label, toggle, reset = (
        box(page, css) for css in (".ax-arg-label", ".ax-random-toggle", ".ax-arg-reset")
    )
    low, slider = box(page, ".ax-range-low"), box(page, ".ax-range-slider")
    # the buttons beside the name, as on every row; the boxes on the line under them
    assert toggle["y"] == reset["y"] and toggle["y"] < label["y"] + label["height"], (label, toggle)
    assert low["y"] >= toggle["y"] + toggle["height"], (low, toggle)
    assert box(page, ".ax-range-high")["y"] == low["y"]
    assert slider["y"] >= low["y"] + low["height"], (slider, low)
    assert all(v <= 1 for v in sideways(page).values()), (width, sideways(page))
    page.locator(".ax-node-panel").screenshot(path=str(artifacts / f"newcomer-range-{width}.png"))
    resize(page, 1600)
