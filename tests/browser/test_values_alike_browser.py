"""What a newcomer tuning augmentation sees, checked in JupyterLab: a drawn value reads the same
on its tile and in its large view (the tile said rotate.angle=18 where the large view said
17.98), a tile's caption never ends a line on "name=" with the value on the next, and undo or
redo across a picked preset never shows the graph before as the new one's last good result."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .harness import kernel_eval, panel_page
from .layout import WIDTHS, resize, screenshot

pytestmark = pytest.mark.browser

FOLDER = "values_alike"  # a notebook of its own: other modules' kernels run other notebooks
PANEL = (
    "from augexplorer import Explorer\n"
    "explorer = Explorer('basic', batch_size=8, autosave=None)\nexplorer"
)

page = panel_page(FOLDER, "values_alike", PANEL, ".ax-explorer .ax-tile canvas[data-key]")


def caption_values(page: Any, index: int) -> list[str]:
    """The values a tile's caption names, as read on screen ("rotate.angle=17.98")."""
    tile = page.locator(f".ax-tile[data-index='{index}'] .ax-tile-draws .ax-draw")
    return [text.replace("\u200b", "") for text in tile.all_inner_texts()]


def large_values(page: Any) -> list[str]:
    rows = page.locator(".ax-large-facts tr.ax-fact-draw")
    return [
        f"{row.locator('th').inner_text()}={row.locator('td').inner_text()}" for row in rows.all()
    ]


def test_a_drawn_value_reads_the_same_on_its_tile_and_in_its_large_view(
    page: Any, artifacts: Path
) -> None:
    for index in (0, 1):
        on_tile = caption_values(page, index)
        assert any(v.startswith("rotate.angle=") for v in on_tile), on_tile
        page.locator(f".ax-tile[data-index='{index}']").click()
        page.locator(".ax-pane-after canvas").wait_for(timeout=30_000)
        page.locator(".ax-large-facts tr.ax-fact-draw").first.wait_for(timeout=30_000)
        assert large_values(page) == on_tile
        angle = on_tile[0].split("=")[1]
        assert len(angle.lstrip("-").replace(".", "")) >= 3  # hundredths kept: 17.98, not 18
        page.locator(".ax-large-facts").screenshot(
            path=str(artifacts / f"values-alike-large-{index}.png")
        )
        page.locator(".ax-large").focus()
        page.keyboard.press("Escape")
        page.locator(".ax-large").wait_for(state="hidden", timeout=10_000)


# Each value of a tile's caption as laid out: its box and the caption's line height.
VALUE_BOXES = """
() => [...document.querySelectorAll('.ax-tile-draws .ax-draw')].map(span => {
  const style = getComputedStyle(span.parentElement);
  return { text: span.textContent, height: span.getBoundingClientRect().height,
           line: parseFloat(style.lineHeight) || 1.2 * parseFloat(style.fontSize) };
})
"""


@pytest.mark.parametrize("width", WIDTHS)
def test_a_value_and_its_name_stay_on_one_line(page: Any, artifacts: Path, width: int) -> None:
    """At 1600 px "flip.horizontal=" ended a caption's line and its 0 or 1 began the next."""
    resize(page, width)
    boxes = page.evaluate(VALUE_BOXES)
    assert boxes
    for value in boxes:
        assert value["height"] <= value["line"] * 1.5, value
    screenshot(page, width, artifacts / f"values-alike-captions-{width}.png")
    resize(page, 1600)


def test_redo_to_a_picked_preset_that_fails_shows_no_pictures_of_the_graph_before(
    page: Any, artifacts: Path
) -> None:
    """Segmentation needs annotated data: picked on a folder of the user's own, it shows its
    errors and no pictures. Undo, then redo: the basic graph's pictures came back under its
    errors as "the last good output of the graph"."""
    # a folder of the user's own (on the bundled samples the preset reads their annotations)
    said = kernel_eval(
        page,
        "import shutil, tempfile\nfrom augexplorer.data import samples_dir\n"
        "photos = shutil.copytree(samples_dir(), tempfile.mkdtemp() + '/photos')\n"
        "explorer.toolbar.source.value = 'folder'; explorer.toolbar.path.value = str(photos)\n"
        "explorer.flush(); print(explorer.spec.sources()[0].kind, explorer.state.ok)",
    )
    assert said.strip() == "folder True", said
    preset = page.locator(".ax-explorer select").first
    preset.select_option("segmentation")
    errors = page.locator(".ax-error-list")
    errors.filter(has_text="another graph's").wait_for(timeout=60_000)
    assert page.locator(".ax-explorer .ax-tile").count() == 0
    page.locator(".ax-explorer button.ax-undo").click()
    page.locator(".ax-explorer .ax-tile canvas[data-key]").first.wait_for(timeout=60_000)
    page.locator(".ax-explorer button.ax-redo").click()
    errors.filter(has_text="another graph's").wait_for(timeout=60_000)
    page.locator(".ax-explorer .ax-tile").first.wait_for(state="detached", timeout=30_000)
    assert "last good" not in page.locator(".ax-output").first.inner_text()
    page.locator(".ax-output").first.screenshot(
        path=str(artifacts / "values-alike-redo-preset.png")
    )
    page.locator(".ax-explorer button.ax-undo").click()  # the module's page back on basic
    page.locator(".ax-explorer .ax-tile canvas[data-key]").first.wait_for(timeout=60_000)
    page.locator(".ax-explorer button.ax-undo").click()  # and on the bundled samples
    page.wait_for_function(
        "() => document.querySelector('.ax-source select').selectedOptions[0].text"
        ".replace(/\\s/g, ' ') === 'bundled samples'",
        timeout=60_000,
    )


# Each pane of the open large view: its role and where it sits.
PANES = """
() => [...document.querySelectorAll('.ax-large .ax-pane')].map(p => {
  const r = p.getBoundingClientRect();
  return { role: p.className, top: Math.round(r.top), left: Math.round(r.left) };
})
"""


def test_after_and_before_stay_side_by_side_under_a_long_caption(
    page: Any, artifacts: Path
) -> None:
    """imagenet_train's normalized output says how its floats are drawn under its picture
    ("float32 values drawn as pixels: normalize's normalization undone ..."): that line widened
    the "after" pane and pushed "before" under it, out of side-by-side comparison."""
    page.locator(".ax-explorer select").first.select_option("imagenet_train")
    page.locator(".ax-output", has_text="normalization undone").first.wait_for(timeout=90_000)
    page.locator(".ax-tile[data-index='0'] canvas[data-key]").wait_for(timeout=60_000)
    try:
        page.locator(".ax-tile[data-index='0']").click()
        page.locator(".ax-pane-after canvas").wait_for(timeout=30_000)
        for width in WIDTHS:
            resize(page, width)
            after, before = page.evaluate(PANES)[:2]
            assert "after" in after["role"] and "before" in before["role"]
            assert after["top"] == before["top"] and before["left"] > after["left"], (
                width,
                after,
                before,
            )
            page.locator(".ax-large").screenshot(
                path=str(artifacts / f"values-alike-large-float-{width}.png")
            )
    finally:
        resize(page, 1600)
        page.locator(".ax-large").focus()
        page.keyboard.press("Escape")
        page.locator(".ax-explorer button.ax-undo").click()  # the module's page back on basic


def test_random_switched_off_and_on_brings_the_range_back(page: Any) -> None:
    """U(-35, 20) switched off read -7.5; switched on again it read U(-26, 11), a range around
    -7.5: the range typed before was gone."""
    page.locator(".ax-graph [data-node='rotate']").click()
    low = page.locator(".ax-arg-angle .ax-param-low input").first
    low.wait_for(timeout=30_000)
    low.fill("-35")
    low.press("Enter")
    page.locator(".ax-graph [data-node='rotate']", has_text="U(-35, 20)").wait_for(timeout=30_000)
    toggle = page.locator(".ax-arg-angle button.ax-random-toggle")
    toggle.click()
    page.locator(".ax-arg-angle .ax-param-low input").wait_for(state="detached", timeout=30_000)
    toggle.click()
    low.wait_for(timeout=30_000)
    high = page.locator(".ax-arg-angle .ax-param-high input").first
    assert (low.input_value(), high.input_value()) == ("-35", "20")
    page.locator(".ax-graph [data-node='rotate']", has_text="U(-35, 20)").wait_for(timeout=30_000)
    for _ in range(3):  # the module's page back on the basic graph as it started
        page.locator(".ax-explorer button.ax-undo").click()
    page.locator(".ax-graph [data-node='rotate']", has_text="U(-20, 20)").wait_for(timeout=30_000)
