"""Layout checks shared by the JupyterLab, Notebook 7 and Voila tests: what a person would see
at a given window width, measured in the page."""

from __future__ import annotations

from pathlib import Path
from typing import Any

WIDTHS = (1280, 1600, 1920)
# The issue asks for tiles at least this wide where the window gives them room (1600 px and up).
MIN_TILE_PX = 200
ROOMY_WIDTH = 1600

PARTS = (".ax-explorer", ".ax-body", ".ax-output", ".ax-tiles-root", ".ax-tiles", ".ax-graph-root")


# The colour an element's text is drawn in, the colour behind it (the first ancestor with an
# opaque background; an SVG text's card), and their contrast ratio as WCAG 2 defines it.
CONTRAST = """
(css) => {
  const rgb = (c) => { const m = c.match(/[\\d.]+/g).map(Number);
    return { r: m[0], g: m[1], b: m[2], a: m.length > 3 ? m[3] : 1 }; };
  const lum = ({ r, g, b }) => { const f = (v) => { v /= 255;
    return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
  const el = document.querySelector(css);
  if (!el) return null;
  let fg, bg;
  if (el instanceof SVGElement) {
    fg = getComputedStyle(el).fill;
    const box = el.closest('[data-node]')?.querySelector('.ax-g-box');
    bg = getComputedStyle(box).fill;
  } else {
    fg = getComputedStyle(el).color;
    for (let e = el; e; e = e.parentElement) {
      const c = getComputedStyle(e).backgroundColor;
      if (rgb(c).a > 0.5) { bg = c; break; }
    }
  }
  const [a, b] = [lum(rgb(fg)), lum(rgb(bg))];
  return { fg, bg, ratio: (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05) };
}
"""

# Every element of the panel that would show a sideways scrollbar: one that scrolls (overflow-x
# auto or scroll) and holds more than its width; keyed by its classes.
SCROLLERS = """() => Object.fromEntries(
  [...document.querySelectorAll('.ax-explorer, .ax-explorer *')]
    .filter(el => ['auto', 'scroll'].includes(getComputedStyle(el).overflowX))
    .map(el => [`${el.tagName.toLowerCase()}.${[...el.classList].join('.')}`,
                el.scrollWidth - el.clientWidth])
    .filter(([, over]) => over > 1))"""


def sideways(page: Any) -> dict[str, int]:
    """How far each part of the panel scrolls sideways (0 everywhere when it fits): the main
    parts by name, and any other element that would show a sideways scrollbar."""
    parts = dict(
        page.evaluate(
            "(parts) => Object.fromEntries(parts.map(css => {"
            " const el = document.querySelector(css);"
            " return [css, el ? el.scrollWidth - el.clientWidth : 0]; }))",
            list(PARTS),
        )
    )
    return {**parts, **page.evaluate(SCROLLERS)}


def widths(page: Any, css: str) -> list[float]:
    return list(
        page.evaluate(
            "(css) => [...document.querySelectorAll(css)].map(e => e.getBoundingClientRect().width)",
            css,
        )
    )


def clipped_cards(page: Any) -> list[str]:
    """Graph nodes whose card reaches past the graph column's visible box, left or right."""
    return list(
        page.evaluate(
            "() => { const column = document.querySelector('.ax-graph-root')"
            ".getBoundingClientRect();"
            " return [...document.querySelectorAll('.ax-graph [data-node] .ax-g-box')]"
            ".filter(box => { const r = box.getBoundingClientRect();"
            " return r.left < column.left - 1 || r.right > column.right + 1; })"
            ".map(box => box.closest('[data-node]').dataset.node); }"
        )
    )


def beyond_its_cell(page: Any) -> int:
    """How many pixels the panel reaches past the right edge of the notebook output it sits in
    (0 when it fits): a cell that clips or scrolls its output would hide the part beyond it,
    which none of the panel's own measures can see."""
    return int(
        page.evaluate(
            "() => { const panel = document.querySelector('.ax-explorer');"
            " const cell = panel.closest('.jp-OutputArea-output') || panel.parentElement;"
            " return Math.max(0, Math.ceil(panel.getBoundingClientRect().right"
            " - cell.getBoundingClientRect().right)); }"
        )
    )


# Resolves once the page's layout has held still for `frames` animation frames in a row: the
# document's size and the boxes of the panel, its graph's cards, its tiles and pictures (lab lays
# out again after a resize at the next frame; the graph and the grid redraw from a
# ResizeObserver, in the frame of the layout they follow). At most `limit` frames.
SETTLED = """
async ([frames, limit]) => {
  // a frame, or 100 ms where the page draws none (frames are not drawn for a hidden page)
  const frame = () => new Promise((resolve) => {
    requestAnimationFrame(() => resolve());
    setTimeout(resolve, 100);
  });
  const parts = '.ax-explorer, .ax-explorer .ax-graph [data-node], .ax-explorer .ax-tile,'
    + ' .ax-explorer canvas, .ax-explorer .ax-large, .jp-OutputArea-output';
  const shape = () => {
    const root = document.documentElement;
    const seen = [root.scrollWidth, root.scrollHeight, window.innerWidth, window.innerHeight];
    for (const el of document.querySelectorAll(parts)) {
      const r = el.getBoundingClientRect();
      seen.push(r.left, r.top, r.width, r.height);
    }
    return seen.join(',');
  };
  let last = shape();
  let still = 0;
  for (let i = 0; i < limit && still < frames; i++) {
    await frame();
    const now = shape();
    still = now === last ? still + 1 : 0;
    last = now;
  }
}
"""


def settle(page: Any, frames: int = 10, limit: int = 600) -> None:
    """Wait until the page's layout holds still for `frames` frames (SETTLED)."""
    page.evaluate(SETTLED, [frames, limit])


def resize(page: Any, width: int, height: int = 1000) -> None:
    """Resize the window and wait until the page has laid itself out again for it."""
    page.set_viewport_size({"width": width, "height": height})
    settle(page)


def screenshot(page: Any, width: int, path: Path) -> None:
    """The whole panel at `width`: the window is made tall enough to hold it, since a panel
    taller than the window comes out cut and overlaid by the page's fixed header."""
    resize(page, width)
    height = page.locator(".ax-explorer").first.bounding_box()["height"]
    resize(page, width, int(height) + 400)  # the page lays out again; the graph redraws
    page.locator(".ax-explorer").first.scroll_into_view_if_needed()
    page.locator(".ax-explorer").first.screenshot(path=str(path))


def check_layout(page: Any, width: int, artifacts: Path, name: str) -> None:
    """Resize to `width`, save a screenshot of the panel, and assert that it fits: no part
    scrolls sideways, the graph's cards are whole, and tiles are wide enough to judge."""
    screenshot(page, width, artifacts / f"{name}-{width}.png")
    resize(page, width)  # the page lays out again after a resize; the graph redraws
    assert page.locator(".ax-explorer").first.is_visible()
    assert page.locator(".ax-graph [data-node='rotate']").count() == 1
    overflow = sideways(page)
    assert all(v <= 1 for v in overflow.values()), (width, overflow)
    # The page itself does not scroll sideways either.
    page_overflow = page.evaluate(
        "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )
    assert page_overflow <= 1, (width, page_overflow)
    assert beyond_its_cell(page) <= 1, (width, beyond_its_cell(page))
    assert clipped_cards(page) == [], (width, clipped_cards(page))
    tiles = widths(page, ".ax-tile")
    assert tiles, "no tiles on the page"
    if width >= ROOMY_WIDTH:
        assert min(tiles) >= MIN_TILE_PX, (width, tiles)
