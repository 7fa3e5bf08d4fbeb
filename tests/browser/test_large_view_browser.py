"""The large view as a person judging an augmentation uses it: the pictures enlarged to the width
the view has, zoomed by keys and the wheel with square pixels past 1:1, moved by dragging, every
pane locked to the same place, the pixel probe reading every pane there, and the "before" picture
seen in place of "after" (held: flicker) or beside a split line; at 1280, 1600 and 1920 px, in
the light and the dark theme (its texts legible there: 4.5:1 or better)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from .harness import kernel_eval, panel_page, set_theme
from .layout import CONTRAST, WIDTHS, resize, screenshot, sideways

pytestmark = pytest.mark.browser

FOLDER = "large_view"  # a notebook of its own: other modules' kernels run other notebooks
BATCH = 8
OUTPUT = 224  # the basic preset's output, in pixels a side
NARROW_PANEL = 1210  # a panel narrower than this gives the open large view its whole width
PANEL = (
    f"from augexplorer import Explorer\nexplorer = Explorer('basic', batch_size={BATCH}, "
    "autosave=None)\nexplorer"
)


page = panel_page(
    FOLDER, "large_view", PANEL, ".ax-explorer .ax-tile canvas[data-key]", workspace="large-view"
)


def open_large(page: Any, index: int = 2) -> None:
    page.locator(f".ax-tile[data-index='{index}']").click()
    page.locator(".ax-pane-after canvas").wait_for(timeout=30_000)  # full resolution arrived
    page.wait_for_function("() => document.querySelector('.ax-large').dataset.pixelScale")
    # the view takes the grid's place: no tile left showing under it
    grid = page.locator(".ax-tiles-root.ax-large-open > .ax-tiles")
    grid.wait_for(state="hidden", timeout=10_000)
    assert grid.locator(".ax-tile").first.is_hidden()


def close_large(page: Any) -> None:
    page.locator(".ax-large").focus()
    page.keyboard.press("Escape")
    page.locator(".ax-large").wait_for(state="hidden", timeout=10_000)
    page.locator(".ax-tiles-root:not(.ax-large-open) > .ax-tiles").first.wait_for(
        state="visible", timeout=10_000
    )


def box(page: Any, css: str) -> dict[str, float]:
    found = page.locator(css).bounding_box()
    assert found is not None, css
    return dict(found)


def pixel_scale(page: Any) -> float:
    return float(page.locator(".ax-large").get_attribute("data-pixel-scale"))


# What part of each pane's picture sits at its box's centre (fractions of the picture).
CENTRES = """
() => [...document.querySelectorAll('.ax-pane-view')].map((view) => {
  const v = view.getBoundingClientRect();
  const c = view.querySelector('canvas').getBoundingClientRect();
  return [(v.left + v.width / 2 - c.left) / c.width, (v.top + v.height / 2 - c.top) / c.height];
})
"""


def assert_locked(page: Any) -> list[list[float]]:
    centres = page.evaluate(CENTRES)
    for u, v in centres[1:]:
        assert abs(u - centres[0][0]) < 0.01 and abs(v - centres[0][1]) < 0.01, centres
    return list(centres)


def test_a_wider_window_never_gives_a_smaller_large_view(page: Any) -> None:
    """At 1600 px the view stood beside the editing column and came out smaller than at 1280
    (348 against 392 px boxes): a wider window now gives its pictures at least as much room
    (at 1920 the editing column stands beside it again, the view still larger than at 1280)."""
    scales = []
    for width in (1280, 1600, 1920):
        resize(page, width)  # lab lays out again after a resize
        open_large(page)
        page.wait_for_timeout(300)
        scales.append(pixel_scale(page))
        close_large(page)
    page.set_viewport_size({"width": 1600, "height": 1000})
    assert scales[0] <= scales[1] and scales[0] <= scales[2], scales


@pytest.mark.parametrize("width", [1280, 1600, 1920])
def test_the_pictures_fill_the_width_the_view_has(page: Any, artifacts: Path, width: int) -> None:
    resize(page, width)  # lab lays out again after a resize
    open_large(page)
    page.wait_for_timeout(300)  # the boxes follow the view's new width
    large = box(page, ".ax-large")
    views = [box(page, f".ax-pane-{role} .ax-pane-view") for role in ("after", "before")]
    after = box(page, ".ax-pane-after canvas")
    # enlarged to the box, never 1:1 when the view has room, and nothing past the view
    assert after["width"] > 1.4 * OUTPUT, (after, large)
    assert after["width"] <= views[0]["width"] + 1 and after["height"] <= views[0]["height"] + 1
    assert pixel_scale(page) == pytest.approx(after["width"] / OUTPUT, abs=0.01)
    # after and before: one size, side by side where the view holds two boxes of 340 px, else
    # stacked, each as wide as the view
    assert views[0]["width"] == views[1]["width"] and views[0]["height"] == views[1]["height"]
    if large["width"] >= 2 * 340 + 12 + 20:
        assert abs(views[0]["y"] - views[1]["y"]) < 1 and views[1]["x"] > views[0]["x"]
    else:
        assert views[1]["y"] > views[0]["y"] + views[0]["height"]
        assert views[0]["width"] >= large["width"] - 24
    assert views[1]["x"] + views[1]["width"] <= large["x"] + large["width"]
    body, editing = box(page, ".ax-body"), box(page, ".ax-editing")
    if body["width"] < NARROW_PANEL:
        # the view takes the panel's whole width, above the editing column (1280, file browser)
        assert large["width"] >= body["width"] - 40 and large["y"] < editing["y"], (large, body)
    else:
        assert editing["x"] + editing["width"] <= large["x"], (editing, large)
    # the original too: at one size with the others, a row below them or beside them
    original = box(page, ".ax-pane-original .ax-pane-view")
    assert original["width"] == views[0]["width"]
    assert page.locator(".ax-pane-after canvas").evaluate(
        "c => getComputedStyle(c).imageRendering"
    ) in ("pixelated", "crisp-edges")
    assert all(v <= 1 for v in sideways(page).values()), sideways(page)
    # the whole panel, in a window as tall as it (an element's own shot is cut by lab's frame)
    screenshot(page, width, artifacts / f"large-view-{width}.png")
    close_large(page)
    # the grid and the editing column beside it again
    assert box(page, ".ax-editing")["x"] < box(page, ".ax-output")["x"]
    page.set_viewport_size({"width": 1600, "height": 1000})


def test_zoom_by_keys_locks_every_pane_and_shows_square_pixels(page: Any, artifacts: Path) -> None:
    open_large(page)
    fit = pixel_scale(page)
    page.locator(".ax-large").focus()
    page.keyboard.press("4")
    page.wait_for_function(
        "() => document.querySelector('.ax-large').dataset.pixelScale === '4.000'"
    )
    canvas = box(page, ".ax-pane-after canvas")
    assert canvas["width"] == pytest.approx(4 * OUTPUT, abs=1)
    assert page.locator(".ax-zoom-figure").inner_text() == "400%"
    centres = assert_locked(page)
    assert centres[0] == pytest.approx([0.5, 0.5], abs=0.01)
    page.locator(".ax-large").screenshot(path=str(artifacts / "large-view-zoom-4x.png"))
    page.locator(".ax-large").focus()  # the shot scrolled the notebook, which can take it
    page.keyboard.press("1")  # its own size: smaller than fit where the box is larger
    page.wait_for_function(
        "() => document.querySelector('.ax-large').dataset.pixelScale === '1.000'"
    )
    assert box(page, ".ax-pane-after canvas")["width"] == pytest.approx(OUTPUT, abs=1)
    page.keyboard.press("+")
    page.wait_for_function(
        "() => document.querySelector('.ax-large').dataset.pixelScale === '1.250'"
    )
    for _ in range(12):
        page.keyboard.press("-")  # never below the smaller of fit and 1:1
    page.wait_for_function(
        "(least) => Math.abs(document.querySelector('.ax-large').dataset.pixelScale - least)"
        " < 0.002",
        arg=min(fit, 1.0),
    )
    page.keyboard.press("0")
    page.wait_for_function(
        "(fit) => Math.abs(document.querySelector('.ax-large').dataset.pixelScale - fit) < 0.002",
        arg=fit,
    )
    # buttons do the same as keys
    page.locator(".ax-zoom-2").click()
    page.wait_for_function(
        "() => document.querySelector('.ax-large').dataset.pixelScale === '2.000'"
    )
    page.locator(".ax-zoom-fit").click()
    page.wait_for_function(
        "(fit) => Math.abs(document.querySelector('.ax-large').dataset.pixelScale - fit) < 0.002",
        arg=fit,
    )
    close_large(page)


def test_wheel_zooms_about_the_pointer_and_a_drag_pans_every_pane(page: Any) -> None:
    open_large(page)
    canvas = box(page, ".ax-pane-after canvas")
    x = canvas["x"] + 0.3 * canvas["width"]
    y = canvas["y"] + 0.6 * canvas["height"]
    page.mouse.move(x, y)
    readout = page.locator(".ax-readout")
    page.wait_for_function("() => document.querySelector('.ax-readout').dataset.x !== undefined")
    before = (int(readout.get_attribute("data-x")), int(readout.get_attribute("data-y")))
    scroll = page.evaluate(
        "() => document.querySelector('.jp-WindowedPanel-outer, .jp-Notebook')?.scrollTop"
    )
    fit = pixel_scale(page)
    for _ in range(5):
        page.mouse.wheel(0, -200)
    page.wait_for_function(
        "(fit) => document.querySelector('.ax-large').dataset.pixelScale > 2 * fit", arg=fit
    )
    page.wait_for_timeout(100)
    # the wheel zoomed the picture, not the notebook's page
    assert (
        page.evaluate(
            "() => document.querySelector('.jp-WindowedPanel-outer, .jp-Notebook')?.scrollTop"
        )
        == scroll
    )
    page.mouse.move(x + 1, y)
    page.mouse.move(x, y)
    # the place under the pointer stayed under it
    after = (int(readout.get_attribute("data-x")), int(readout.get_attribute("data-y")))
    assert abs(after[0] - before[0]) <= 1 and abs(after[1] - before[1]) <= 1, (before, after)
    start = assert_locked(page)
    # drag to the left: the pictures move with the pointer, all of them
    page.mouse.down()
    page.mouse.move(x - 120, y - 60, steps=6)
    page.mouse.up()
    page.wait_for_timeout(100)
    moved = assert_locked(page)
    assert moved[0][0] > start[0][0] + 0.02 and moved[0][1] > start[0][1] + 0.01, (start, moved)
    close_large(page)


def test_the_probe_reads_every_pane_at_the_same_place(page: Any) -> None:
    open_large(page)
    canvas = box(page, ".ax-pane-before canvas")
    page.mouse.move(canvas["x"] + 0.25 * canvas["width"], canvas["y"] + 0.75 * canvas["height"])
    readout = page.locator(".ax-readout")
    page.wait_for_function(
        "() => document.querySelector('.ax-readout').textContent.split('\\n').length === 3"
    )
    lines = readout.inner_text().splitlines()
    assert [line.split(" ")[0] for line in lines] == ["before", "after", "original"]
    shapes = json.loads(
        kernel_eval(
            page,
            "import json; v = explorer.grid.tiles.large; "
            "print(json.dumps({p['role']: [p['width'], p['height']] for p in v['panes']}))",
        )
    )
    for line in lines:
        role = line.split(" ")[0]
        w, hgt = shapes[role]
        px = int(line.split(" at x ")[1].split(",")[0])
        py = int(line.split(", y ")[1].split(":")[0])
        assert abs(px - 0.25 * w) <= 1.5 and abs(py - 0.75 * hgt) <= 1.5, (line, w, hgt)
    # the kernel's own pixel for the pane pointed at
    x, y = int(readout.get_attribute("data-x")), int(readout.get_attribute("data-y"))
    node = lines[0].split("(")[1].split(")")[0]
    pixel = kernel_eval(
        page,
        f"r = explorer.result; print(', '.join(str(int(v)) for v in r.arrays('{node}')[2][{y}, {x}]))",
    ).strip()
    assert f"[{pixel}]" in lines[0], (pixel, lines[0])
    # the other panes show where that place is on them
    assert page.locator(".ax-pane-after .ax-probe-mark").is_visible()
    assert page.locator(".ax-pane-original .ax-probe-mark").is_visible()
    assert page.locator(".ax-pane-before .ax-pointer-value").is_visible()
    close_large(page)


def test_flicker_and_split_show_before_in_place_of_after(page: Any, artifacts: Path) -> None:
    open_large(page)
    large = page.locator(".ax-large")
    layer = page.locator(".ax-pane-after .ax-compare-layer")
    assert large.get_attribute("data-compare") == "off" and layer.is_hidden()
    large.focus()
    page.keyboard.down("b")  # held: before in place of after
    page.wait_for_function(
        "() => document.querySelector('.ax-large').dataset.compare === 'flicker'"
    )
    assert layer.is_visible()
    picture = box(page, ".ax-pane-after .ax-compare-picture")
    canvas = box(page, ".ax-pane-after canvas")
    assert picture == pytest.approx(canvas, abs=1)  # one place, one size
    page.locator(".ax-pane-after .ax-pane-view").screenshot(
        path=str(artifacts / "large-view-flicker-held.png")
    )
    page.keyboard.up("b")
    page.wait_for_function("() => document.querySelector('.ax-large').dataset.compare === 'off'")
    assert layer.is_hidden()
    # the button held does the same
    hold = page.locator(".ax-flicker-button")
    hold.hover()
    page.mouse.down()
    page.wait_for_function(
        "() => document.querySelector('.ax-large').dataset.compare === 'flicker'"
    )
    page.mouse.up()
    page.wait_for_function("() => document.querySelector('.ax-large').dataset.compare === 'off'")
    # split: before left of the line, after right of it; the line follows a drag
    large.focus()
    page.keyboard.press("s")
    page.wait_for_function("() => document.querySelector('.ax-large').dataset.compare === 'split'")
    view = box(page, ".ax-pane-after .ax-pane-view")
    line = box(page, ".ax-pane-after .ax-split-line")
    assert abs(line["x"] + line["width"] / 2 - (view["x"] + view["width"] / 2)) <= 2
    page.mouse.move(view["x"] + view["width"] / 2, view["y"] + view["height"] / 2)
    page.mouse.down()
    page.mouse.move(view["x"] + view["width"] / 4, view["y"] + view["height"] / 2, steps=4)
    page.mouse.up()
    page.wait_for_timeout(100)
    clip = layer.evaluate("l => l.style.clipPath")
    assert clip.startswith("inset(0px 75") or clip.startswith("inset(0 75"), clip
    assert page.locator(".ax-split-button").get_attribute("aria-pressed") == "true"
    page.keyboard.press("4")  # the split holds at any zoom
    page.locator(".ax-pane-after .ax-pane-view").screenshot(
        path=str(artifacts / "large-view-split-4x.png")
    )
    page.locator(".ax-large").screenshot(path=str(artifacts / "large-view-split.png"))
    # the next sample keeps the zoom and the split: the same place judged on another image
    page.keyboard.press("ArrowRight")
    page.locator(".ax-large-title", has_text=f"#3 · 4 / {BATCH}").wait_for(timeout=10_000)
    page.wait_for_function(
        "() => document.querySelector('.ax-large').dataset.compare === 'split'"
        " && document.querySelector('.ax-large').dataset.pixelScale === '4.000'",
        timeout=30_000,
    )
    page.keyboard.press("s")
    close_large(page)
    # opened again: whole, nothing laid over
    open_large(page, 0)
    assert large.get_attribute("data-compare") == "off"
    assert (
        box(page, ".ax-pane-after canvas")["width"]
        <= box(page, ".ax-pane-after .ax-pane-view")["width"] + 1
    )
    close_large(page)


# The large view's texts a person reads while judging: in the dark theme each keeps 4.5:1
# against what is behind it.
LARGE_TEXTS = {
    "title": ".ax-large-title",
    "label": ".ax-large-label",
    "pane title": ".ax-pane-title",
    "after's name": ".ax-pane-after .ax-pane-title b",
    "pane facts": ".ax-pane-meta",
    "zoom figure": ".ax-zoom-figure",
    "facts heading": ".ax-large-facts th",
    "facts value": ".ax-large-facts td",
}


@pytest.mark.parametrize("width", WIDTHS)
def test_dark_theme(page: Any, artifacts: Path, width: int) -> None:
    page.set_viewport_size({"width": width, "height": 1000})
    set_theme(page, "JupyterLab Dark", light=False)
    try:
        open_large(page, 1)
        low = {}
        for name, css in LARGE_TEXTS.items():
            found = page.evaluate(CONTRAST, css)
            assert found is not None, f"not on the page: {name} ({css})"
            if found["ratio"] < 4.5:
                low[name] = found
        assert not low, (width, low)
        page.locator(".ax-large").focus()
        page.keyboard.press("s")
        page.keyboard.press("2")
        page.wait_for_function(
            "() => document.querySelector('.ax-large').dataset.pixelScale === '2.000'"
        )
        # the window as a person sees it (an element taller than the window comes out cut and
        # overlaid by lab's bars)
        resize(page, width, 1400)
        page.locator(".ax-large").scroll_into_view_if_needed()
        page.screenshot(path=str(artifacts / f"large-view-dark-{width}.png"))
        page.keyboard.press("s")
        close_large(page)
    finally:
        set_theme(page, "JupyterLab Light", light=True)
        page.set_viewport_size({"width": 1600, "height": 1000})


# Zoom and pan as the wheel and a drag drive them, one step a frame: how long each frame takes
# (requestAnimationFrame to the next), and how long the view's own work of a step takes (the
# event, the new place of every pane, and the layout that follows, forced to be counted).
FRAMES = """
async () => {
  const large = document.querySelector('.ax-large');
  const view = large.querySelector('.ax-pane-after .ax-pane-view');
  const canvas = view.querySelector('canvas');
  const r = view.getBoundingClientRect();
  const frames = [];
  const work = [];
  const state = large.axZoom.state;
  const seen = { start: { ...state } };
  let last = performance.now();
  const at = (i) => ({ clientX: r.left + r.width * (0.4 + 0.2 * Math.sin(i / 7)),
    clientY: r.top + r.height * 0.5, bubbles: true, cancelable: true, pointerId: 1, button: 0 });
  for (let i = 0; i < 150; i++) {
    await new Promise((resolve) => requestAnimationFrame(resolve));
    const now = performance.now();
    frames.push(now - last);
    last = now;
    const t0 = performance.now();
    if (i < 70) {
      view.dispatchEvent(new WheelEvent('wheel', { ...at(i), deltaY: i < 35 ? -40 : 30 }));
    } else {
      if (i === 70) view.dispatchEvent(new PointerEvent('pointerdown', at(i)));
      view.dispatchEvent(new PointerEvent('pointermove', at(i)));
    }
    large.axZoom.apply();
    canvas.getBoundingClientRect();
    work.push(performance.now() - t0);
    if (i === 34) seen.zoomedIn = { ...state };
    if (i === 69) seen.beforePan = { ...state };
  }
  view.dispatchEvent(new PointerEvent('pointerup', at(0)));
  seen.end = { ...state };
  return { frames: frames.slice(1), work, scale: large.dataset.pixelScale, seen };
}
"""


def test_zoom_and_pan_follow_the_wheel_and_the_drag(page: Any, artifacts: Path) -> None:
    """Every step a frame: the wheel zooms in, the drag moves the picture. How long the frames
    and the view's own work took is written beside the screenshots, not asserted (times on a
    shared machine are a benchmark's to judge: bench_browser.py)."""
    open_large(page)
    try:
        measured = page.evaluate(FRAMES)
    finally:
        close_large(page)
    seen = measured["seen"]
    assert seen["zoomedIn"]["zoom"] > seen["start"]["zoom"], seen
    before, after = seen["beforePan"], seen["end"]
    assert (before["cx"], before["cy"]) != (after["cx"], after["cy"]), seen
    frames = sorted(measured["frames"])
    work = sorted(measured["work"])
    p95_frame = frames[int(0.95 * (len(frames) - 1))]
    p95_work = work[int(0.95 * (len(work) - 1))]
    figures = {
        "frame_ms_p50": round(frames[len(frames) // 2], 2),
        "frame_ms_p95": round(p95_frame, 2),
        "step_work_ms_p50": round(work[len(work) // 2], 2),
        "step_work_ms_p95": round(p95_work, 2),
        "load_1_5_15": Path("/proc/loadavg").read_text().split()[:3],
        "cpus": os.cpu_count(),
    }
    (artifacts / "large-view-frames.json").write_text(json.dumps(figures, indent=1))
    print("large view zoom/pan:", figures)


# Each tile's picture: its drawn width and height, and its own size in pixels (from the kernel).
DRAWN = """
() => [...document.querySelectorAll('.ax-tile')].map((tile) => {
  const frame = tile.querySelector('.ax-ov-frame');
  const r = frame.getBoundingClientRect();
  return [r.width, r.height, tile.querySelector('.ax-tile-scale').textContent];
})
"""


@pytest.mark.parametrize("width", [1280, 1600, 1920])
def test_tiles_show_every_picture_at_one_scale(page: Any, artifacts: Path, width: int) -> None:
    page.set_viewport_size({"width": width, "height": 1000})
    kernel_eval(page, "explorer.select('decode'); explorer.flush()")
    page.locator(".ax-grid-caption", has_text="decode").wait_for(timeout=60_000)
    page.wait_for_timeout(300)
    sizes = json.loads(
        kernel_eval(
            page,
            "import json; print(json.dumps([t['sizes'][0] for t in explorer.grid.tiles.tiles]))",
        )
    )
    drawn = page.evaluate(DRAWN)
    assert len(drawn) == len(sizes) == BATCH
    scales = [w / size[0] for (w, _, _), size in zip(drawn, sizes, strict=True)]
    scales += [hgt / size[1] for (_, hgt, _), size in zip(drawn, sizes, strict=True)]
    # one factor for the whole grid (a pixel of rounding either way)
    assert max(scales) - min(scales) <= 2 / min(min(s) for s in sizes), scales
    # the largest picture fills its square; the scale is written on every tile
    largest = max(range(BATCH), key=lambda i: max(sizes[i]))
    square = page.locator(".ax-tile-picture").nth(largest).bounding_box()
    assert max(drawn[largest][:2]) == pytest.approx(min(square["width"], square["height"]), abs=1)
    shown = float(page.locator(".ax-tiles-root").get_attribute("data-scale"))
    assert shown == pytest.approx(sum(scales) / len(scales), rel=0.02)
    assert {text for _, _, text in drawn} == {f"{round(shown * 100)}%"}
    # two columns at least, however narrow the output
    tops = page.evaluate(
        "() => [...document.querySelectorAll('.ax-tile')].map(t => t.getBoundingClientRect().top)"
    )
    assert tops[0] == tops[1]
    assert all(v <= 1 for v in sideways(page).values()), sideways(page)
    screenshot(page, width, artifacts / f"tiles-one-scale-{width}.png")
    # the output, 224 px each, enlarged alike to the tile
    kernel_eval(page, "explorer.select(None); explorer.flush()")
    page.locator(".ax-grid-caption", has_text="the graph's output").wait_for(timeout=60_000)
    page.wait_for_timeout(300)
    drawn = page.evaluate(DRAWN)
    square = page.locator(".ax-tile-picture").first.bounding_box()
    assert all(abs(w - min(square["width"], square["height"])) <= 1 for w, _, _ in drawn), drawn
    page.set_viewport_size({"width": 1600, "height": 1000})


def test_the_tile_size_goes_past_480(page: Any, artifacts: Path) -> None:
    box = page.locator(".ax-tile-size .ax-number-box input").first
    box.fill("640")
    box.press("Enter")
    # past 480 px a size asks for pictures that large: one a row where the output is narrower
    page.wait_for_function(
        "() => document.querySelector('.ax-tile-picture').getBoundingClientRect().width > 600",
        timeout=30_000,
    )
    # 224 px outputs enlarged almost three times: square pixels, not smoothed
    assert page.locator(".ax-tiles-root").evaluate(
        "r => r.classList.contains('ax-tiles-pixelated')"
    )
    screenshot(page, 1600, artifacts / "tiles-size-640.png")
    page.set_viewport_size({"width": 1600, "height": 1000})
    box.fill("240")
    box.press("Enter")
    page.wait_for_function(
        # two a row again: wider than 240 where the output has room for two, not three
        "() => document.querySelector('.ax-tile-picture').getBoundingClientRect().width < 400",
        timeout=30_000,
    )


# Tiles a row, and each tile's picture box width.
ROWS = """
() => {
  const tiles = [...document.querySelectorAll('.ax-tile')];
  const top = tiles[0].getBoundingClientRect().top;
  return { first_row: tiles.filter(t => Math.abs(t.getBoundingClientRect().top - top) < 1).length,
           box: document.querySelector('.ax-tile-picture').getBoundingClientRect().width };
}
"""


@pytest.mark.parametrize("width", [1280, 1600, 1920])
def test_fit_n_a_row_fills_the_width_at_any_window(page: Any, artifacts: Path, width: int) -> None:
    resize(page, width)
    choice = page.locator(".ax-per-row select")
    for count in (3, 1):
        choice.select_option(label=f"{count} a row")
        # the page fits, the kernel encodes at the fitted side and the grid is drawn at it
        page.wait_for_function(
            "(n) => { const t = [...document.querySelectorAll('.ax-tile')];"
            " const top = t[0].getBoundingClientRect().top;"
            " return t.filter(e => Math.abs(e.getBoundingClientRect().top - top) < 1).length === n;"
            " }",
            arg=count,
            timeout=30_000,
        )
        page.wait_for_function(
            "(n) => Math.abs(Number(document.querySelector('.ax-tile-size input').value)"
            " - document.querySelector('.ax-tile-picture').getBoundingClientRect().width) <= 2",
            arg=count,
            timeout=30_000,
        )
        rows = page.evaluate(ROWS)
        side = int(kernel_eval(page, "print(explorer.grid.size.value)"))
        assert rows["first_row"] == count and abs(side - rows["box"]) <= 2, (rows, side)
        assert all(v <= 1 for v in sideways(page).values()), sideways(page)
        if count == 3:
            screenshot(page, width, artifacts / f"tiles-fit-3-{width}.png")
    # a size by hand ends the fit
    box = page.locator(".ax-tile-size .ax-number-box input").first
    box.fill("240")
    box.press("Enter")
    page.wait_for_function(
        "() => document.querySelector('.ax-per-row select').selectedIndex === 0", timeout=30_000
    )
    page.set_viewport_size({"width": 1600, "height": 1000})
