"""Conditional blocks in the graph view as a person sees them in JupyterLab: an ``if`` header
over its branches, ``if``/``elif``/``else`` side by side in one frame, a nested ``if`` inside
its branch, the node after the merge below; nodes inside blocks still select on a click.
Screenshots at 1280, 1600 and 1920 px under test-artifacts/."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from graph_blocks import blocks_graph

from augexplorer.spec import save

from .harness import panel_page
from .layout import WIDTHS, clipped_cards, resize, screenshot, sideways

pytestmark = pytest.mark.browser

FOLDER = "blocks"  # a notebook of its own: other modules' kernels run other notebooks


LOAD_GRAPH = (
    "from augexplorer import Explorer\nfrom augexplorer.spec import load\n"
    "explorer = Explorer(load('graph.json'), autosave=None)\nexplorer"
)


def write_graph(root: Path) -> None:
    (root / FOLDER).mkdir(exist_ok=True)
    save(blocks_graph(), root / FOLDER / "graph.json", overwrite=True)


page = panel_page(
    FOLDER, "blocks", LOAD_GRAPH, ".ax-explorer .ax-graph [data-node='vflip']", prepare=write_graph
)


def box(page: Any, css: str) -> dict[str, float]:
    found = page.locator(css).first.bounding_box()
    assert found is not None, css
    return dict(found)


def inside(inner: dict[str, float], outer: dict[str, float]) -> bool:
    return (
        inner["x"] >= outer["x"] - 0.5
        and inner["y"] >= outer["y"] - 0.5
        and inner["x"] + inner["width"] <= outer["x"] + outer["width"] + 0.5
        and inner["y"] + inner["height"] <= outer["y"] + outer["height"] + 0.5
    )


@pytest.mark.parametrize("width", WIDTHS)
def test_branches_sit_side_by_side_in_their_block(page: Any, artifacts: Path, width: int) -> None:
    screenshot(page, width, artifacts / f"blocks-{width}.png")
    resize(page, width)  # the graph redraws for its new width
    block = page.locator(".ax-g-block[data-predicate='coin']").first
    assert block.locator(".ax-g-block-head").text_content() == "if coin"
    labels = block.locator(".ax-g-branch > title").all_text_contents()
    assert labels == ["if coin", "elif negative", "else"]
    frame = box(page, ".ax-g-block[data-predicate='coin'] .ax-g-block-frame")
    flip = box(page, ".ax-graph [data-node='flip'] .ax-g-box")
    rotate = box(page, ".ax-graph [data-node='rotate'] .ax-g-box")
    brighten = box(page, ".ax-graph [data-node='brighten'] .ax-g-box")
    vflip = box(page, ".ax-graph [data-node='vflip'] .ax-g-box")
    for node in (flip, rotate, brighten, vflip):
        assert inside(node, frame)
    # if / elif / else: three columns side by side, each under its label
    assert flip["x"] + flip["width"] <= rotate["x"] <= vflip["x"] - rotate["width"]
    assert abs(flip["y"] - rotate["y"]) < 1 and abs(rotate["y"] - vflip["y"]) < 1
    # the elif branch's two steps, one under the other in their column
    assert abs(brighten["x"] - rotate["x"]) < 1 and brighten["y"] > rotate["y"] + rotate["height"]
    # the node after the merge is below the block
    crop = box(page, ".ax-graph [data-node='crop'] .ax-g-box")
    assert crop["y"] >= frame["y"] + frame["height"]
    # the nested if: a block inside the branch of its outer block
    outer = box(page, ".ax-g-block[data-predicate='tilt'] .ax-g-block-frame")
    nested = box(page, ".ax-g-block[data-predicate='coin'] >> nth=1")
    assert inside(nested, outer) and inside(box(page, "[data-node='hsv'] .ax-g-box"), nested)
    # it all fits the column
    assert all(v <= 1 for v in sideways(page).values()), sideways(page)
    assert clipped_cards(page) == []


def test_a_click_selects_a_node_inside_a_block(page: Any, artifacts: Path) -> None:
    page.set_viewport_size({"width": 1600, "height": 1000})
    page.locator(".ax-graph [data-node='rotate']").click()
    page.locator(".ax-graph .ax-g-selected[data-node='rotate']").wait_for(timeout=30_000)
    page.locator(".ax-node-title", has_text="rotate").first.wait_for(timeout=30_000)
    page.locator(".ax-graph").first.screenshot(path=str(artifacts / "blocks-selected.png"))


def test_a_nested_if_reads_inside_its_outer_block(page: Any, artifacts: Path) -> None:
    resize(page, 1280)  # the graph redraws for its new width
    page.locator(".ax-g-block[data-predicate='tilt']").first.scroll_into_view_if_needed()
    heads = page.locator(".ax-graph .ax-g-block-head").all_text_contents()
    assert heads == ["if coin", "if tilt", "if coin"]  # the outer blocks, then the nested one
    outer = box(page, ".ax-g-block[data-predicate='tilt'] .ax-g-block-frame")
    assert inside(box(page, ".ax-g-block[data-predicate='coin'] >> nth=1"), outer)
    page.locator(".ax-graph").first.screenshot(path=str(artifacts / "blocks-nested.png"))
    page.locator(".ax-graph [data-node='hsv']").click()
    page.locator(".ax-graph .ax-g-selected[data-node='hsv']").wait_for(timeout=30_000)
