"""The picture at the top of notebook 01: the quickstart's own panel as JupyterLab draws it,
taken in headless Chromium after running the notebook, so a reader of a static view (GitHub, a
rendered page) sees what the notebook will give them before running anything.

Every run saves the picture under test-artifacts/; with AUGEXPLORER_UPDATE_PICTURES=1 it also
replaces the committed one (do that, and commit the file, when the panel's look changes).
"""

from __future__ import annotations

import io
import os
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from .harness import ROOT, Server, open_notebook, run_all
from .layout import screenshot

pytestmark = pytest.mark.browser

PICTURE = ROOT / "notebooks" / "images" / "quickstart-panel.png"
WIDTH = 1600  # a desktop JupyterLab window: the panel's columns side by side
STORED_WIDTH = 1000  # px at most: text still readable, the file a few hundred kB
# Every tile's picture drawn: an <img> loaded, or a <canvas> given its bytes' key
PICTURES_DRAWN = """() => {
  const tiles = document.querySelectorAll('.ax-explorer .ax-tile');
  if (tiles.length === 0) return false;
  const imgs = [...document.querySelectorAll('.ax-explorer .ax-tile img')];
  const canvases = [...document.querySelectorAll('.ax-explorer .ax-tile canvas')];
  return imgs.every((img) => img.complete && img.naturalWidth > 0)
    && canvases.every((canvas) => canvas.hidden || Boolean(canvas.dataset.key))
    && imgs.length + canvases.length >= tiles.length;
}"""


def stored_form(png: bytes) -> Image.Image:
    """The screenshot as the repository keeps it: no wider than STORED_WIDTH (never enlarged),
    in 256 colours (dithered: the photos stay photos at under half the bytes)."""
    picture = Image.open(io.BytesIO(png)).convert("RGB")
    if picture.width > STORED_WIDTH:
        height = round(picture.height * STORED_WIDTH / picture.width)
        picture = picture.resize((STORED_WIDTH, height), Image.Resampling.LANCZOS)
    return picture.quantize(colors=256, method=Image.Quantize.FASTOCTREE)


def test_the_quickstart_picture_is_the_panel_the_notebook_shows(
    browser: Any, lab: Server, artifacts: Path
) -> None:
    context = browser.new_context(viewport={"width": WIDTH, "height": 1000})
    page = context.new_page()
    try:
        open_notebook(page, lab, "01_quickstart.ipynb")
        run_all(page)
        page.locator(".ax-explorer .ax-grid").first.wait_for(timeout=90_000)
        page.locator(".ax-timing-chart .ax-bar-row[data-node='flip']").wait_for(timeout=30_000)
        page.wait_for_function(PICTURES_DRAWN, timeout=30_000)
        raw = artifacts / "quickstart-panel-raw.png"
        screenshot(page, WIDTH, raw)
    finally:
        context.close()

    picture = stored_form(raw.read_bytes())
    picture.save(artifacts / PICTURE.name, optimize=True)
    # The panel's three columns, the graph, grid and timing: a wide picture, taller than a strip
    assert picture.height > 0.4 * picture.width, picture.size
    if os.environ.get("AUGEXPLORER_UPDATE_PICTURES") == "1":
        PICTURE.parent.mkdir(exist_ok=True)
        picture.save(PICTURE, optimize=True)
    assert PICTURE.exists(), (
        f"{PICTURE.relative_to(ROOT)} is missing: run this test with AUGEXPLORER_UPDATE_PICTURES=1"
    )
    committed = Image.open(PICTURE)
    # the panel's height moves a little with its text (timings, captions); a new part or a
    # new layout moves it more, and then the picture no longer shows what the reader gets
    same_look = committed.width == picture.width and (
        abs(committed.height - picture.height) <= 0.1 * picture.height
    )
    assert same_look, (
        f"{PICTURE.name} is {committed.size}, the panel now {picture.size}: regenerate it with "
        "AUGEXPLORER_UPDATE_PICTURES=1"
    )
