"""Annotations as a person sees them in JupyterLab: boxes drawn over every tile where the
annotations put them, named by class, switched off and on from the row above the grid, and
drawn again in the large view; screenshots at three widths."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from annotated_graphs import coco_source, flipped_graph, write_coco

from augexplorer.spec import GraphSpec, Node, Ref, chain, save

from .harness import kernel_eval, panel_page, set_theme
from .layout import WIDTHS, resize, screenshot, sideways

pytestmark = pytest.mark.browser

FOLDER = "annotations"  # a notebook of its own: other modules' kernels run other notebooks
BATCH = 4
# How far a drawn box may sit from where the annotation puts it, in CSS pixels: the picture is
# a JPEG thumbnail rounded to whole pixels.
TOLERANCE_PX = 1.5


LOAD_GRAPH = (
    "from augexplorer import Explorer\nfrom augexplorer.spec import load\n"
    "explorer = Explorer(load('graph.json'), autosave=None)\nexplorer"
)


def turned_graph(coco: Path) -> GraphSpec:
    """The flipped graph with a rotate after the flip and no companion for its boxes."""
    spec = flipped_graph(coco, batch_size=BATCH)
    return GraphSpec(
        (*spec.nodes, Node("turn", "rotate", (Ref("flip"),), {"angle": 30.0})),
        {**spec.outputs, "images": Ref("turn")},
        batch_size=BATCH,
        name="turned",
    )


def write_graphs(root: Path) -> None:
    """The graphs the notebook and the tests load, beside a small COCO set."""
    folder = root / FOLDER
    folder.mkdir(exist_ok=True)
    coco = write_coco(folder)
    save(flipped_graph(coco, batch_size=BATCH), folder / "graph.json", overwrite=True)
    masks = chain(
        coco_source(coco, polygon_masks=False, pixelwise_masks=True),
        ("decode", "decoders.image", {"output_type": "RGB"}),
        batch_size=BATCH,
        name="masks",
    )
    save(masks, folder / "masks.json", overwrite=True)
    save(turned_graph(coco), folder / "turned.json", overwrite=True)


page = panel_page(
    FOLDER,
    "annotations",
    LOAD_GRAPH,
    ".ax-explorer .ax-tile .ax-overlay rect.ax-ov-box",
    prepare=write_graphs,
)


def kernel_annotations(page: Any) -> list[dict[str, Any]]:
    """What the kernel says the final images carry: boxes, names and image sizes."""
    code = (
        "import json; r = explorer.result; node = r.final.node\n"
        "print(json.dumps([dict(a.to_json(), size=list(x.shape[:2])) for a, x in"
        " zip(r.annotations(node), r.arrays(r.final))]))"
    )
    return list(json.loads(kernel_eval(page, code)))


DRAWN = """
(root) => [...root.querySelectorAll(WHERE)].map(frame => {
  const picture = frame.querySelector("img, canvas").getBoundingClientRect();
  const boxes = [...frame.querySelectorAll("rect.ax-ov-box")].map(rect => {
    const r = rect.getBoundingClientRect();
    return [r.left - picture.left, r.top - picture.top, r.right - picture.left,
            r.bottom - picture.top];
  });
  const names = [...frame.querySelectorAll(".ax-ov-name")].map(n => n.textContent);
  return { width: picture.width, height: picture.height, boxes, names };
})
"""


def drawn(page: Any, where: str) -> list[dict[str, Any]]:
    """Each picture's drawn boxes relative to the picture, and its size on screen."""
    return list(
        page.locator(".ax-explorer").first.evaluate(DRAWN.replace("WHERE", json.dumps(where)))
    )


def assert_boxes_match(drawn_one: dict[str, Any], expected: dict[str, Any]) -> None:
    height, width = expected["size"]
    sx, sy = drawn_one["width"] / width, drawn_one["height"] / height
    assert abs(sx - sy) < 0.02, (sx, sy)  # the overlay keeps the picture's proportions
    assert len(drawn_one["boxes"]) == len(expected["boxes"])
    for got, (left, top, right, bottom) in zip(drawn_one["boxes"], expected["boxes"], strict=True):
        want = [left * sx, top * sy, right * sx, bottom * sy]
        assert all(abs(g - w) <= TOLERANCE_PX for g, w in zip(got, want, strict=True)), (got, want)
    assert drawn_one["names"] == expected["names"]


def test_boxes_sit_where_the_annotations_put_them(page: Any, artifacts: Path) -> None:
    expected = kernel_annotations(page)
    tiles = drawn(page, ".ax-tile .ax-ov-frame")
    assert len(tiles) == len(expected) == BATCH
    for tile, want in zip(tiles, expected, strict=True):
        assert_boxes_match(tile, want)
    # DALI's COCO reader reads no keypoints and this source reads polygons, not masks: greyed
    assert page.locator("button.ax-overlay-toggle-keypoints").is_disabled()
    assert page.locator("button.ax-overlay-toggle-masks").is_disabled()
    assert "keypoints" in page.locator(".ax-overlay-note").inner_text()
    assert page.locator(".ax-tile .ax-ov-polygon").count() == sum(
        len(a["polygons"]) for a in expected
    )
    page.locator(".ax-grid-view").screenshot(path=str(artifacts / "annotations-tiles.png"))


def test_boxes_switch_off_and_on(page: Any, artifacts: Path) -> None:
    box = page.locator(".ax-tile rect.ax-ov-box").first
    assert box.is_visible()
    page.locator("button.ax-overlay-toggle-boxes").click()
    page.wait_for_function(
        "() => document.querySelector('.ax-tiles-root').classList.contains('ax-ov-hide-boxes')",
        timeout=30_000,
    )
    assert not box.is_visible()
    assert page.locator(".ax-tile .ax-ov-name").first.is_visible()  # names still shown
    assert "boxes" not in kernel_eval(page, "print(explorer.grid.tiles.overlay_kinds)")
    page.locator(".ax-grid-view").screenshot(path=str(artifacts / "annotations-boxes-off.png"))
    page.locator("button.ax-overlay-toggle-boxes").click()
    box.wait_for(state="visible", timeout=30_000)


def test_large_view_draws_the_boxes(page: Any, artifacts: Path) -> None:
    page.locator(".ax-tile[data-index='1']").click()
    page.locator(".ax-pane-after canvas").wait_for(timeout=30_000)
    page.locator(".ax-pane-after rect.ax-ov-box").first.wait_for(timeout=30_000)
    expected = kernel_annotations(page)[1]
    (after,) = drawn(page, ".ax-pane-after .ax-ov-frame")
    assert_boxes_match(after, expected)
    # the input pane (the decoder, before the flip) has its own boxes
    assert page.locator(".ax-pane-before rect.ax-ov-box").count() == len(expected["boxes"])
    # the pointer still reads the picture's values through the drawing
    canvas = page.locator(".ax-pane-after canvas").bounding_box()
    page.mouse.move(canvas["x"] + canvas["width"] / 2, canvas["y"] + canvas["height"] / 2)
    page.wait_for_function("() => document.querySelector('.ax-readout').dataset.x !== undefined")
    page.locator(".ax-large").screenshot(path=str(artifacts / "annotations-large-view.png"))
    page.keyboard.press("Escape")
    page.locator(".ax-large").wait_for(state="hidden", timeout=10_000)


@pytest.mark.parametrize("width", WIDTHS)
def test_annotated_panel_at_three_widths(page: Any, artifacts: Path, width: int) -> None:
    screenshot(page, width, artifacts / f"annotations-{width}.png")
    resize(page, width)  # the page lays out again after a resize
    overflow = sideways(page)
    assert all(v <= 1 for v in overflow.values()), (width, overflow)
    expected = kernel_annotations(page)
    for tile, want in zip(drawn(page, ".ax-tile .ax-ov-frame"), expected, strict=True):
        assert_boxes_match(tile, want)
    page.set_viewport_size({"width": 1600, "height": 1000})


CHIP_CONTRAST = """
() => [...document.querySelectorAll('.ax-tile .ax-ov-name')].map(chip => {
  const style = getComputedStyle(chip);
  const rgb = (css) => css.match(/[\\d.]+/g).slice(0, 3).map(Number);
  const lum = ([r, g, b]) => [r, g, b].map(v => v / 255)
    .map(c => c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4)
    .reduce((sum, c, i) => sum + c * [0.2126, 0.7152, 0.0722][i], 0);
  const [a, b] = [lum(rgb(style.color)), lum(rgb(style.backgroundColor))].sort((x, y) => y - x);
  return (a + 0.05) / (b + 0.05);
})
"""


def test_names_are_legible_in_the_dark_theme(page: Any, artifacts: Path) -> None:
    set_theme(page, "JupyterLab Dark", light=False)
    try:
        contrasts = page.evaluate(CHIP_CONTRAST)
        assert contrasts and min(contrasts) >= 4.5, contrasts  # WCAG AA for text
        page.locator(".ax-grid-view").screenshot(path=str(artifacts / "annotations-dark.png"))
    finally:
        set_theme(page, "JupyterLab Light", light=True)


def test_boxes_left_behind_are_not_drawn_and_a_button_carries_them(
    page: Any, artifacts: Path
) -> None:
    page.locator(".ax-spec-path input").fill("turned.json")
    page.locator("button.ax-load").click()
    warning = page.locator(".ax-overlay-note .ax-overlay-warning").first
    warning.wait_for(timeout=60_000)
    assert "boxes are not rotated by 'turn': add them" in warning.inner_text()
    assert page.locator("button.ax-overlay-toggle-boxes").is_disabled()
    # not where they are: the previous graph's boxes go with its pictures, which the new
    # pictures replace once decoded (the note above them can arrive first)
    page.wait_for_function(
        "() => document.querySelectorAll('.ax-tile .ax-overlay rect.ax-ov-box').length === 0",
        timeout=30_000,
    )
    carry = page.locator("button.ax-overlay-carry-boxes")
    for width in WIDTHS:
        resize(page, width)
        assert warning.is_visible() and carry.is_visible()
        overflow = sideways(page)
        assert all(v <= 1 for v in overflow.values()), (width, overflow)
        screenshot(page, width, artifacts / f"annotations-left-behind-{width}.png")
    page.set_viewport_size({"width": 1600, "height": 1000})
    carry.click()
    boxes = page.locator(".ax-tile .ax-overlay rect.ax-ov-box")
    boxes.first.wait_for(timeout=60_000)
    assert not page.locator("button.ax-overlay-toggle-boxes").is_disabled()
    expected = kernel_annotations(page)
    tiles = drawn(page, ".ax-tile .ax-ov-frame")
    for tile, want in zip(tiles, expected, strict=True):
        assert_boxes_match(tile, want)


def test_pixel_masks_are_drawn_and_switch_off(page: Any, artifacts: Path) -> None:
    # Loaded as a person would: the graph file box and Load.
    page.locator(".ax-spec-path input").fill("masks.json")
    page.locator("button.ax-load").click()
    masks = page.locator(".ax-tile image.ax-ov-masks")
    masks.first.wait_for(timeout=60_000)
    assert masks.count() == BATCH
    assert page.locator("button.ax-overlay-toggle-polygons").is_disabled()
    # the mask covers the picture exactly
    covers = page.evaluate(
        "() => [...document.querySelectorAll('.ax-tile .ax-ov-frame')].map(frame => {"
        " const a = frame.querySelector('canvas').getBoundingClientRect();"
        " const b = frame.querySelector('image.ax-ov-masks').getBoundingClientRect();"
        " return Math.max(Math.abs(a.left - b.left), Math.abs(a.top - b.top),"
        " Math.abs(a.width - b.width), Math.abs(a.height - b.height)); })"
    )
    assert max(covers) <= 1, covers
    page.locator(".ax-grid-view").screenshot(path=str(artifacts / "annotations-masks.png"))
    page.locator("button.ax-overlay-toggle-masks").click()
    page.wait_for_function(
        "() => document.querySelector('.ax-tiles-root').classList.contains('ax-ov-hide-masks')",
        timeout=30_000,
    )
    assert not masks.first.is_visible()


POINTS = """
(root) => [...root.querySelectorAll(".ax-tile .ax-ov-frame")].map(frame => {
  const picture = frame.querySelector("img, canvas").getBoundingClientRect();
  const points = [...frame.querySelectorAll("path.ax-ov-point")].map(path => {
    const r = path.getBoundingClientRect();
    return [(r.left + r.right) / 2 - picture.left, (r.top + r.bottom) / 2 - picture.top];
  });
  return { width: picture.width, height: picture.height, points,
           bones: frame.querySelectorAll("line.ax-ov-bone").length };
})
"""


def wait_for_kernel(page: Any, code: str, expected: str, seconds: int = 60) -> None:
    """Wait until `code` prints `expected` in the kernel (what a pick in the page led to)."""
    said = ""
    for _ in range(seconds):
        said = kernel_eval(page, code).strip()
        if said == expected:
            return
        page.wait_for_timeout(1000)
    raise AssertionError(f"the kernel says {said!r}, not {expected!r}, after {seconds} s")


def test_ssd_detection_draws_the_skeleton_only_where_the_person_is(
    page: Any, artifacts: Path
) -> None:
    """The bundled COCO photos (boxes, polygons, keypoints) and the SSD preset picked from the
    toolbar: the crop and flip carry the keypoints, so each drawn point is where the kernel's
    annotations put it at the final node, inside its picture, never left in the coordinates
    of the uncropped photo (the astronaut's skeleton used to be drawn over the shuttle behind
    her). A batch of 8 holds the astronaut. Runs last: it replaces the module's graph."""
    # the module's graph reads a COCO file of its own: the bundled photos, as a user picks them
    page.locator(".ax-source select").select_option(label="bundled samples")
    page.locator(".ax-source-path").wait_for(state="hidden", timeout=30_000)
    page.locator(".ax-source select").select_option(label="COCO annotations")
    # each pick is made once the kernel took the one before, as a person sees it taken
    wait_for_kernel(page, "print(explorer.controller.state.spec.sources()[0].kind)", "coco")
    page.locator(".ax-preset select").select_option("ssd_detection")
    wait_for_kernel(page, "print(explorer.controller.state.spec.name)", "ssd_detection")
    batch = page.locator(".ax-batch input").first
    batch.fill("8")
    batch.press("Enter")
    page.wait_for_function(
        "() => document.querySelectorAll('.ax-tile .ax-ov-frame').length === 8", timeout=60_000
    )
    code = (
        "import json; r = explorer.result\n"
        "from augexplorer.render.overlay_data import node_overlays\n"
        "print(json.dumps(['', [], [], [], ''] if r is None or not explorer.state.ok else"
        " [r.plan.spec.name, [[p[:2] for o in ov['keypoints'] for p in"
        " o['points'] if p[2] > 0] for ov in node_overlays(r, r.final)],"
        " [list(x.shape[1:]) for x in r.arrays(r.final)], r.files(),"
        " repr(r.plan.spec.sources()[0])]))"
    )
    for _ in range(60):  # the kernel answers once the preset ran on 8 images
        name, expected, sizes, *about = json.loads(kernel_eval(page, code))
        if name == "ssd_detection" and len(expected) == 8:
            break
        page.wait_for_timeout(1000)
    assert name == "ssd_detection"
    files = about[0]
    astronaut = files.index("people/astronaut.jpg")
    assert expected[astronaut], ("the astronaut's keypoints are in her crop", about)
    # a dot is a zero-length path: attached, with no box of its own for "visible" to see
    page.locator(".ax-tile path.ax-ov-point").first.wait_for(state="attached", timeout=60_000)
    hidden = page.locator(".ax-tiles-root").first.get_attribute("class") or ""
    assert "ax-ov-hide-keypoints" not in hidden and "ax-ov-hide-polygons" not in hidden
    for button in ("boxes", "polygons", "keypoints"):
        assert not page.locator(f"button.ax-overlay-toggle-{button}").is_disabled()
    tiles = page.locator(".ax-explorer").first.evaluate(POINTS)
    assert len(tiles) == len(expected)
    for tile, want, (_height, width) in zip(tiles, expected, sizes, strict=True):
        scale = tile["width"] / width
        assert len(tile["points"]) == len(want)
        for (x, y), (wx, wy) in zip(tile["points"], want, strict=True):
            assert abs(x - wx * scale) <= 2.5 and abs(y - wy * scale) <= 2.5, ((x, y), (wx, wy))
            assert -1 <= x <= tile["width"] + 1 and -1 <= y <= tile["height"] + 1
    for width in WIDTHS:
        resize(page, width)
        overflow = sideways(page)
        assert all(v <= 1 for v in overflow.values()), (width, overflow)
        screenshot(page, width, artifacts / f"annotations-ssd-detection-{width}.png")
    page.set_viewport_size({"width": 1600, "height": 1000})
