"""The images as a person sees them in JupyterLab: tiles wide enough to judge, a large view
that opens on a click, moves with the arrow keys, reads pixel values and closes with Esc, and a
panel that never scrolls sideways, in the light and the dark theme."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .harness import kernel_eval, panel_page, set_theme
from .layout import CONTRAST, beyond_its_cell, resize, screenshot, sideways

pytestmark = pytest.mark.browser

FOLDER = "images"  # a notebook of its own: other modules' kernels run other notebooks
BATCH = 8


PANEL = (
    f"from augexplorer import Explorer\nexplorer = Explorer('basic', batch_size={BATCH}, "
    "autosave=None)\nexplorer"
)


page = panel_page(FOLDER, "images", PANEL, ".ax-explorer .ax-tile canvas[data-key]")


def widths(page: Any, css: str) -> list[float]:
    return list(
        page.evaluate(
            "(css) => [...document.querySelectorAll(css)].map(e => e.getBoundingClientRect().width)",
            css,
        )
    )


def test_tiles_are_at_least_200_px_wide_with_text_captions(page: Any, artifacts: Path) -> None:
    # as a person works: JupyterLab's file browser open beside the notebook
    assert widths(page, "#jp-left-stack")[0] >= 200
    tiles = widths(page, ".ax-tile")
    assert len(tiles) == BATCH and min(tiles) >= 200, tiles
    panel = widths(page, ".ax-explorer")[0]
    output = widths(page, ".ax-output")[0]
    assert output > panel / 2, (output, panel)  # the output takes most of the panel
    labels = page.locator(".ax-tile-label").all_inner_texts()
    captions = json.loads(
        kernel_eval(page, "import json; print(json.dumps(explorer.result.captions()))")
    )
    assert labels == captions
    assert "angle=" in page.locator(".ax-tile-draws").first.inner_text()
    # legible: text of a readable size, in a colour that stands out from the tile
    for css in (".ax-tile-label", ".ax-tile-draws"):
        size = page.evaluate(
            f"() => parseFloat(getComputedStyle(document.querySelector('{css}')).fontSize)"
        )
        assert size >= 11, (css, size)
        assert page.evaluate(CONTRAST, css)["ratio"] >= 4.5, (css, page.evaluate(CONTRAST, css))
    page.locator(".ax-explorer").first.screenshot(path=str(artifacts / "images-tiles-1600.png"))


def test_tile_size_control_changes_the_tiles(page: Any) -> None:
    before = widths(page, ".ax-tile")[0]
    handle = page.locator(".ax-tile-size .noUi-handle, .ax-tile-size input[type=range]").first
    handle.focus()
    # smaller tiles: more columns (larger ones may keep the columns the output has room for)
    for _ in range(4):
        handle.press("ArrowLeft")  # -80 px
    page.wait_for_function(
        "(w) => document.querySelector('.ax-tile').getBoundingClientRect().width < w - 40",
        arg=before,
        timeout=30_000,
    )
    narrow = widths(page, ".ax-tile")[0]
    for _ in range(4):
        handle.press("ArrowRight")
    # back at the size it started at: wider again (how many columns that gives may differ by
    # one from the start, as the notebook's own scrollbar comes and goes with the grid's height)
    page.wait_for_function(
        "(w) => document.querySelector('.ax-tile').getBoundingClientRect().width > w + 40",
        arg=narrow,
        timeout=30_000,
    )
    assert float(handle.get_attribute("aria-valuenow") or 0) == 240
    # a size typed that cannot be taken says why; the tiles keep theirs
    box = page.locator(".ax-tile-size .ax-number-box input").first
    # the kernel has answered every step of the slider (each one's echo rewrites the box)
    kernel_eval(page, "explorer.flush()")
    page.wait_for_function(
        "() => document.querySelector('.ax-tile-size .ax-number-box input').value === '240'"
    )
    box.fill("2000")
    box.press("Enter")
    refused = page.locator(".ax-grid-refused")
    refused.wait_for(timeout=30_000)
    assert "between 120 and 1200" in refused.inner_text(), refused.inner_text()
    box.fill("240")
    box.press("Enter")
    refused.wait_for(state="hidden", timeout=30_000)


def test_large_view_opens_moves_reads_pixels_and_closes(page: Any, artifacts: Path) -> None:
    page.locator(".ax-tile[data-index='2']").click()
    large = page.locator(".ax-large")
    large.wait_for(state="visible", timeout=10_000)
    assert page.locator(".ax-large-title").inner_text() == f"#2 · 3 / {BATCH}"
    canvas = page.locator(".ax-pane-after canvas")
    canvas.wait_for(timeout=30_000)  # the full resolution arrived
    assert canvas.evaluate("c => [c.width, c.height]") == [224, 224]
    roles = page.locator(".ax-pane-title b").all_inner_texts()
    assert roles == ["after", "before", "original"]
    facts = page.locator(".ax-large-facts").inner_text()
    assert "file" in facts and "rotate.angle" in facts and "flip.horizontal" in facts
    # The value under the pointer is the sample's own pixel.
    box = canvas.bounding_box()
    scale = box["width"] / 224
    page.mouse.move(box["x"] + 100.5 * scale, box["y"] + 60.5 * scale)
    readout = page.locator(".ax-readout")
    page.wait_for_function("() => document.querySelector('.ax-readout').dataset.x !== undefined")
    x, y = int(readout.get_attribute("data-x")), int(readout.get_attribute("data-y"))
    assert abs(x - 100) <= 1 and abs(y - 60) <= 1
    pixel = kernel_eval(
        page,
        f"r = explorer.result; print(', '.join(str(int(v)) for v in r.arrays(r.final)[2][{y}, {x}]))",
    ).strip()
    assert f"[{pixel}]" in readout.inner_text()
    # ... and beside the pointer, over the picture (the line under the pictures may be off
    # the screen when they stack on a narrow page)
    tip = page.locator(".ax-pane-after .ax-pointer-value")
    assert tip.is_visible() and tip.inner_text() == f"[{pixel}]"
    near = tip.bounding_box()
    assert box["x"] <= near["x"] and near["x"] + near["width"] <= box["x"] + box["width"] + 1
    assert box["y"] <= near["y"] and near["y"] + near["height"] <= box["y"] + box["height"] + 1
    page.locator(".ax-large").screenshot(path=str(artifacts / "images-large-view.png"))
    page.mouse.move(box["x"] - 20, box["y"] - 20)
    tip.wait_for(state="hidden", timeout=5_000)
    # Arrow keys move between samples (the page's own view and the kernel's agree).
    page.keyboard.press("ArrowRight")
    page.locator(".ax-large-title", has_text=f"#3 · 4 / {BATCH}").wait_for(timeout=10_000)
    page.wait_for_function(
        "() => document.querySelector('.ax-large canvas') !== null", timeout=30_000
    )
    assert kernel_eval(page, "print(explorer.grid.tiles.large['index'])").strip() == "3"
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    page.locator(".ax-large-title", has_text=f"#1 · 2 / {BATCH}").wait_for(timeout=10_000)
    page.keyboard.press("Escape")
    large.wait_for(state="hidden", timeout=10_000)
    assert page.locator(".ax-tiles").is_visible()
    # The notebook did not take the keys: still one notebook cell selected, the panel in it.
    assert page.locator(".ax-explorer").count() == 1


def test_vary_this_image_from_the_large_view(page: Any, artifacts: Path) -> None:
    page.locator(".ax-tile[data-index='1']").click()
    page.locator(".ax-vary-button").wait_for(timeout=30_000)
    # a number of draws that cannot be taken says why, beside the button, and the view stays
    page.locator(".ax-vary-draws").fill("100")
    page.locator(".ax-vary-button").click()
    refused = page.locator(".ax-vary-refused")
    refused.wait_for(timeout=30_000)
    assert "between 2 and 64" in refused.inner_text() and "100" in refused.inner_text()
    page.locator(".ax-large").screenshot(path=str(artifacts / "images-vary-refused.png"))
    page.locator(".ax-vary-draws").fill("6")
    page.locator(".ax-vary-button").click()
    page.locator(".ax-grid-caption", has_text="one image, 6 draws: sample #1").wait_for(
        timeout=60_000
    )
    page.wait_for_function("() => document.querySelectorAll('.ax-tile').length === 6")
    page.locator(".ax-grid-view").screenshot(path=str(artifacts / "images-variety.png"))
    page.locator(".ax-grid-mode button", has_text="Batch").click()
    page.wait_for_function(
        f"() => document.querySelectorAll('.ax-tile').length === {BATCH}", timeout=30_000
    )


def test_large_view_of_values_that_are_no_picture(page: Any) -> None:
    """The source's output is encoded bytes: shown as text, with no pointer readout to offer."""
    page.locator(".ax-graph [data-node='source']").click()
    page.locator(".ax-grid-caption", has_text="source").wait_for(timeout=30_000)
    page.locator(".ax-tile[data-index='0']").click()
    page.locator(".ax-large .ax-pane-values").first.wait_for(timeout=30_000)
    assert (
        "bytes of an encoded file" in page.locator(".ax-large .ax-pane-values").first.inner_text()
    )
    assert page.locator(".ax-large .ax-readout").is_hidden()
    page.keyboard.press("Escape")
    page.locator(".ax-graph [data-node='source']").click()  # unselected: the output again
    page.locator(".ax-grid-caption", has_text="the graph's output").wait_for(timeout=30_000)


@pytest.mark.parametrize("width", [1280, 1600, 1920])
def test_nothing_scrolls_sideways(page: Any, artifacts: Path, width: int) -> None:
    screenshot(page, width, artifacts / f"images-width-{width}.png")
    resize(page, width)  # lab lays out again after a resize
    assert all(v <= 1 for v in sideways(page).values()), sideways(page)
    assert beyond_its_cell(page) <= 1, beyond_its_cell(page)
    # a node's panel: sliders on rows of their own, a probability, a range, a choice
    if page.locator(".ax-arg-fill_value").count() == 0:  # a click on the selected deselects
        page.locator(".ax-graph [data-node='rotate']").click()
    page.locator(".ax-arg-fill_value .noUi-handle").wait_for(timeout=30_000)
    if page.locator(".ax-arg-interp_type").count() == 0:
        page.locator(".ax-arg-adder select").select_option("interp_type")
        page.locator(".ax-arg-interp_type select").wait_for(timeout=30_000)
    assert all(v <= 1 for v in sideways(page).values()), sideways(page)
    # the choice shown whole (INTERP_LINEAR), beside the drop-down's arrow
    assert page.locator(".ax-arg-interp_type select").evaluate(
        "s => { const c = document.createElement('canvas').getContext('2d');"
        " const style = getComputedStyle(s); c.font = `${style.fontSize} ${style.fontFamily}`;"
        " return c.measureText(s.options[s.selectedIndex].text).width + 20 <= s.clientWidth; }"
    )
    page.locator(".ax-tile[data-index='0']").click()
    page.locator(".ax-pane-after canvas").wait_for(timeout=30_000)
    assert all(v <= 1 for v in sideways(page).values()), sideways(page)
    page.keyboard.press("Escape")
    page.locator(".ax-large").wait_for(state="hidden", timeout=10_000)
    page.set_viewport_size({"width": 1600, "height": 1000})


def test_dark_theme(page: Any, artifacts: Path) -> None:
    set_theme(page, "JupyterLab Dark", light=False)
    try:
        background, text = page.evaluate(
            "() => { const tile = getComputedStyle(document.querySelector('.ax-tile'));"
            " const label = getComputedStyle(document.querySelector('.ax-tile-label'));"
            " return [tile.backgroundColor, label.color]; }"
        )
        assert _brightness(background) < 0.35 < _brightness(text), (background, text)
        page.locator(".ax-explorer").first.screenshot(path=str(artifacts / "images-dark.png"))
        page.locator(".ax-tile[data-index='0']").click()
        page.locator(".ax-pane-after canvas").wait_for(timeout=30_000)
        page.locator(".ax-large").screenshot(path=str(artifacts / "images-dark-large.png"))
        page.keyboard.press("Escape")
    finally:
        set_theme(page, "JupyterLab Light", light=True)


def _brightness(css_color: str) -> float:
    parts = css_color[css_color.index("(") + 1 : css_color.index(")")].split(",")
    r, g, b = (float(p) for p in parts[:3])
    return (0.299 * r + 0.587 * g + 0.114 * b) / 255
