"""The selected node's editor as a person uses it: every argument's name reads whole (a long
one such as `random_aspect_ratio` wraps, never cut; its full name on hover), and the editor's
controls and the images are on screen together, and every number box shows its whole value;
at 1280, 1600 and 1920 px; the editor's first controls beside the first row of images in a
window of a common screen's height, in the light and the dark theme, its labels legible."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .harness import kernel_eval, panel_page, set_theme
from .layout import CONTRAST, MIN_TILE_PX, WIDTHS, resize, screenshot, sideways

pytestmark = pytest.mark.browser

FOLDER = "node_editor"  # a notebook of its own: other modules' kernels run other notebooks
PANEL = (
    "from augexplorer import Explorer\nexplorer = Explorer('basic', batch_size=8, "
    "autosave=None)\nexplorer.add('random_resized_crop')\nexplorer.flush()\n"
    "crop = next(n.id for n in explorer.spec.nodes if n.op == 'random_resized_crop')\n"
    "explorer.select(crop)\nexplorer"
)
LONG_NAME = "random_aspect_ratio"
# From this window width (the file browser open) the editor has a column of its own.
WIDE = 1920


page = panel_page(
    FOLDER,
    "node_editor",
    PANEL,
    f".ax-arg-{LONG_NAME} .ax-arg-label",
    workspace="node-editor",
    then=lambda opened: opened.locator(".ax-explorer .ax-tile").first.wait_for(timeout=90_000),
)


def at_width(page: Any, width: int) -> None:
    resize(page, width)  # lab lays out again after a resize; the graph redraws


# Each argument label of the node editor: its name as shown (line breaks taken out), its hover
# text, how far its text reaches past its own box, and whether it runs under the control
# beside it.
LABELS = """
() => [...document.querySelectorAll('.ax-node-panel .ax-arg-row > .ax-arg-label')].map((label) => {
  const text = label.querySelector('.widget-html-content') || label;
  const span = label.querySelector('span[title]');
  const box = label.getBoundingClientRect();
  const next = label.nextElementSibling?.getBoundingClientRect();
  const words = span.getBoundingClientRect();
  return {
    name: span.textContent,
    title: span.title,
    past: Math.max(text.scrollWidth - text.clientWidth, Math.ceil(words.right - box.right)),
    under: next && next.top < box.bottom && next.left < box.right - 1 && next.right > box.left
      ? Math.ceil(box.right - next.left) : 0,
    lines: Math.round(words.height / parseFloat(getComputedStyle(span).lineHeight)),
  };
})
"""


@pytest.mark.parametrize("width", WIDTHS)
def test_every_argument_name_reads_whole(page: Any, artifacts: Path, width: int) -> None:
    at_width(page, width)
    labels = page.evaluate(LABELS)
    names = [label["name"] for label in labels]
    assert LONG_NAME in names and "random_area" in names, names
    for label in labels:
        assert label["past"] <= 1, label  # nothing cut at the label's edge
        assert label["under"] <= 1, label  # nor hidden under the boxes beside it
        assert label["title"].startswith(f"{label['name']}: "), label  # full name on hover
    long = next(label for label in labels if label["name"] == LONG_NAME)
    assert long["lines"] <= 2, long  # wrapped after a "_", not a letter a line
    page.locator(f".ax-arg-{LONG_NAME}").first.screenshot(
        path=str(artifacts / f"node-editor-label-{width}.png")
    )
    assert all(v <= 1 for v in sideways(page).values()), sideways(page)


# Each number box of the node editor: its argument, its value, how much wider its text is
# than the room inside the box (padding taken off), and the box's own width.
NUMBER_BOXES = """
() => [...document.querySelectorAll('.ax-node-panel .ax-arg input[type="text"]')]
  .filter((input) => input.offsetParent !== null && /^-?[0-9.]/.test(input.value.trim()))
  .map((input) => {
    const style = getComputedStyle(input);
    const room = input.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    const ruler = document.createElement('canvas').getContext('2d');
    ruler.font = style.font;
    return {
      arg: input.closest('.ax-arg').querySelector('.ax-arg-label span[title]').textContent,
      value: input.value,
      past: Math.ceil(ruler.measureText(input.value).width - room),
      scrolled: input.scrollWidth - input.clientWidth,
      width: Math.round(input.getBoundingClientRect().width),
    };
  })
"""

# Each argument row: its name, and how many of its random / reset buttons sit below the line
# its name starts on.
ROW_LINES = """
() => [...document.querySelectorAll('.ax-node-panel .ax-arg-row')]
  .filter((row) => row.querySelector('.ax-arg-label span[title]'))
  .map((row) => {
    const name = row.querySelector('.ax-arg-label').getBoundingClientRect();
    const buttons = [...row.querySelectorAll('.ax-random-toggle, .ax-arg-reset')];
    return {
      name: row.querySelector('.ax-arg-label span[title]').textContent,
      buttonsBelowName: buttons.filter((b) => b.getBoundingClientRect().top >= name.bottom).length,
    };
  })
"""


@pytest.mark.parametrize("width", WIDTHS)
def test_every_number_box_shows_its_whole_value(page: Any, artifacts: Path, width: int) -> None:
    """random_aspect_ratio's 1.333333 (and every other value) reads whole, not cut at the box's
    edge."""
    at_width(page, width)
    boxes = page.evaluate(NUMBER_BOXES)
    values = [box["value"] for box in boxes]
    page.locator(".ax-node-panel").first.screenshot(
        path=str(artifacts / f"node-editor-numbers-{width}.png")
    )
    assert any(value.startswith("1.333") for value in values), boxes
    for box in boxes:
        assert box["past"] <= 0 and box["scrolled"] <= 0, box
    for row in page.evaluate(ROW_LINES):  # a wider box pushes no button onto a line of its own
        assert row["buttonsBelowName"] == 0, row
    assert all(v <= 1 for v in sideways(page).values()), sideways(page)


# With the node editor scrolled to the middle of the notebook's visible part: whether the whole
# editor is on screen, how many tile pictures are wholly on screen beside it, and where the
# graph, the editor and the output sit across the page.
TOGETHER = """
() => {
  const editor = document.querySelector('.ax-node-panel');
  editor.scrollIntoView({ block: 'center' });
  const scroller = editor.closest('.jp-WindowedPanel-outer') || document.scrollingElement;
  const seen = scroller.getBoundingClientRect();
  const top = Math.max(0, seen.top);
  const bottom = Math.min(window.innerHeight, seen.bottom);
  const inside = (r) => r.top >= top - 1 && r.bottom <= bottom + 1;
  const across = (css) => { const r = document.querySelector(css).getBoundingClientRect();
    return [r.left, r.right]; };
  const pictures = [...document.querySelectorAll('.ax-output .ax-tile .ax-tile-picture')]
    .map((p) => p.getBoundingClientRect());
  return {
    visible: bottom - top,
    editorHeight: editor.getBoundingClientRect().height,
    editorOnScreen: inside(editor.getBoundingClientRect()),
    picturesOnScreen: pictures.filter(inside).length,
    tileWidth: pictures[0].width,
    editor: across('.ax-node-panel'),
    output: across('.ax-output'),
    graph: across('.ax-graph-root'),
  };
}
"""


@pytest.mark.parametrize("width", WIDTHS)
def test_the_editor_and_the_images_are_on_screen_together(
    page: Any, artifacts: Path, width: int
) -> None:
    screenshot(page, width, artifacts / f"node-editor-{width}.png")
    at_width(page, width)
    assert all(v <= 1 for v in sideways(page).values()), sideways(page)
    seen = page.evaluate(TOGETHER)
    page.wait_for_timeout(200)  # the scroll settles
    seen = page.evaluate(TOGETHER)
    # every control of the selected node, and whole pictures beside them, in one screen
    assert seen["editorOnScreen"], seen
    assert seen["picturesOnScreen"] >= 2, seen
    if width >= WIDE:
        # a column of its own between the graph and the images, all three side by side
        assert seen["graph"][1] <= seen["editor"][0] <= seen["editor"][1] <= seen["output"][0]
        assert seen["tileWidth"] >= MIN_TILE_PX, seen
    else:
        # under the graph, in its column (the panel has no room for a third)
        assert seen["editor"][0] == pytest.approx(seen["graph"][0], abs=20), seen
        assert seen["editor"][1] <= seen["output"][0], seen


def test_with_no_node_selected_the_images_keep_the_editors_room(page: Any, artifacts: Path) -> None:
    at_width(page, WIDE)
    wide = page.evaluate(TOGETHER)["output"]
    kernel_eval(page, "explorer.select(None); explorer.flush()")
    page.locator(".ax-node-panel .ax-node-title").wait_for(state="detached", timeout=30_000)
    page.wait_for_timeout(300)  # the tiles follow the output's new width
    graph = page.evaluate(TOGETHER)["graph"]
    output = page.locator(".ax-output").first.bounding_box()
    # one column (graph, editor's message, picker) as at narrower widths; the output wider
    assert output["x"] < wide[0] - 300, (output, wide)
    assert output["x"] - graph[1] < 60, (output, graph)
    screenshot(page, WIDE, artifacts / f"node-editor-none-{WIDE}.png")
    at_width(page, WIDE)
    kernel_eval(page, "explorer.select(crop); explorer.flush()")
    page.locator(".ax-node-panel .ax-node-title").wait_for(timeout=30_000)
    page.wait_for_timeout(300)
    assert page.evaluate(TOGETHER)["output"][0] == pytest.approx(wide[0], abs=2)


# A window of a common screen's shape at each width (16:9, less nothing: lab's own bars take
# their share inside it).
SCREENS = {1280: 720, 1600: 900, 1920: 1080}

# The panel scrolled as a person reads it, the output's top at the notebook's top: the part of
# the window the notebook shows, the first row of tiles (every tile level with the first), and
# the editor's title and first argument row.
FIRST_ROW_AND_CONTROLS = """
() => {
  const output = document.querySelector('.ax-output');
  output.scrollIntoView({ block: 'start' });
  const scroller = output.closest('.jp-WindowedPanel-outer') || document.scrollingElement;
  const seen = scroller.getBoundingClientRect();
  const top = Math.max(0, seen.top);
  const bottom = Math.min(window.innerHeight, seen.bottom);
  const inside = (el) => { const r = el.getBoundingClientRect();
    return r.height > 0 && r.top >= top - 1 && r.bottom <= bottom + 1; };
  const tiles = [...document.querySelectorAll('.ax-output .ax-tile')];
  const first = tiles[0].getBoundingClientRect().top;
  const row = tiles.filter((t) => Math.abs(t.getBoundingClientRect().top - first) < 2);
  const controls = [document.querySelector('.ax-node-panel .ax-node-title'),
    document.querySelector('.ax-node-panel .ax-arg-row')];
  return {
    visible: [top, bottom],
    rowTiles: row.length,
    rowOnScreen: row.every(inside),
    rowBottom: Math.max(...row.map((t) => t.getBoundingClientRect().bottom)),
    controlsOnScreen: controls.every(inside),
    controlsBottom: controls[1].getBoundingClientRect().bottom,
    graphHeight: document.querySelector('.ax-graph-root').clientHeight,
    selectedInGraph: inside(document.querySelector('.ax-graph .ax-g-selected')),
  };
}
"""

# The texts of the editor's column that a person reads while editing: in the dark theme each
# must keep 4.5:1 against what is behind it.
EDITOR_TEXTS = {
    "section title": ".ax-editing .ax-section-title",
    "node title": ".ax-node-panel .ax-node-title",
    "argument label": f".ax-arg-{LONG_NAME} .ax-arg-label span[title]",
    "argument number box": f".ax-arg-{LONG_NAME} input[type='text']",
    "starting-value note": ".ax-arg-starting-note .ax-muted",
    "schedule editor label": ".ax-schedule-editor .widget-label",
    "training run label": ".ax-schedules .widget-label",
    "tile label": ".ax-tile-label",
    "graph card name": ".ax-graph .ax-g-selected .ax-g-id",
}


def _contrast(page: Any) -> dict[str, Any]:
    return {name: page.evaluate(CONTRAST, css) for name, css in EDITOR_TEXTS.items()}


@pytest.mark.parametrize("width", WIDTHS)
def test_the_first_controls_and_the_first_row_of_images_share_a_screen(
    page: Any, artifacts: Path, width: int
) -> None:
    """In a window of a common screen's shape, light and dark: the selected node's title and
    first argument, and the whole first row of tiles, are on screen at once (at 1280 and 1600
    the graph gives up its height to a strip with the selected card in it); in the dark theme
    the editor's labels read at 4.5:1 or better."""
    resize(page, width, SCREENS[width])  # lab lays out again; the graph redraws
    try:
        for theme, light in (("JupyterLab Light", True), ("JupyterLab Dark", False)):
            if not light:
                set_theme(page, theme, light=False)
            seen = page.evaluate(FIRST_ROW_AND_CONTROLS)
            page.wait_for_timeout(200)  # the scroll settles
            seen = page.evaluate(FIRST_ROW_AND_CONTROLS)
            name = "light" if light else "dark"
            page.screenshot(path=str(artifacts / f"node-editor-screen-{width}-{name}.png"))
            assert seen["rowTiles"] >= 2 and seen["rowOnScreen"], seen
            assert seen["controlsOnScreen"], seen
            assert seen["selectedInGraph"], seen  # the strip keeps the selected card in sight
            if not light:
                low = {n: r for n, r in _contrast(page).items() if r is None or r["ratio"] < 4.5}
                assert not low, low
    finally:
        set_theme(page, "JupyterLab Light", light=True)
        page.set_viewport_size({"width": 1600, "height": 1000})
