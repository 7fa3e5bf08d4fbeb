"""Fixes, comparisons and history as a person uses them in JupyterLab: a folder with a corrupt
file opens the panel with a "Skip bad files" button, a loaded graph with an operator before the
decoder offers to move it, A/B compares the selected node, and the undo history jumps back."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from augexplorer.data import samples_dir
from augexplorer.presets import preset
from augexplorer.spec import Node, to_json

from .harness import Server, kernel_eval, panel_page

pytestmark = pytest.mark.browser

FOLDER = "fixes"  # a notebook of its own: other modules' kernels run other notebooks
PANEL = (
    "from augexplorer import Explorer\n"
    "explorer = Explorer('basic', data='photos', batch_size=4, autosave=None)\nexplorer"
)


def photos_with_a_corrupt_file(root: Path) -> None:
    """Three of the bundled photos in a class folder, and a JPEG cut after its header."""
    folder = root / "photos" / "pets"
    folder.mkdir(parents=True, exist_ok=True)
    for photo in sorted(samples_dir().glob("*/*.jpg"))[:3]:
        shutil.copy(photo, folder / photo.name)
    (folder / "broken.jpg").write_bytes(b"\xff\xd8\xff\xe0\x00\x10JFIF\x00")


page = panel_page(
    FOLDER,
    "fixes",
    PANEL,
    ".ax-explorer .ax-error-list",
    prepare=lambda root: photos_with_a_corrupt_file(root / FOLDER),
)


def test_bad_files_are_left_out_with_one_click(page: Any, artifacts: Path) -> None:
    errors = page.locator(".ax-error-list").first
    assert "broken.jpg" in errors.inner_text()
    button = page.locator(".ax-fix-skip-bad")
    button.wait_for(timeout=30_000)
    page.locator(".ax-output").first.screenshot(path=str(artifacts / "fixes-bad-files.png"))
    button.click()
    errors.wait_for(state="hidden", timeout=60_000)
    page.locator(".ax-tile canvas[data-key]").first.wait_for(timeout=60_000)
    files = kernel_eval(page, "print(sorted({f.split('/')[-1] for f in explorer.result.files()}))")
    assert "broken.jpg" not in files and ".jpg" in files
    # said by the panel, redrawn a moment after the grid
    page.locator(".ax-explorer", has_text="left files out").first.wait_for(timeout=30_000)
    assert page.locator(".ax-fix-skip-bad").count() == 0 or not button.is_visible()


def test_a_loaded_graph_offers_to_move_an_operator_after_the_decoder(
    page: Any, lab: Server, artifacts: Path
) -> None:
    misplaced = preset("basic").insert_after(
        "source", Node("blur", "gaussian_blur", args={"sigma": 2.0})
    )
    (lab.root / FOLDER / "misplaced.json").write_text(json.dumps(to_json(misplaced)))
    path_box = page.locator(".ax-spec-path input").first
    path_box.fill("misplaced.json")
    path_box.press("Enter")
    page.locator(".ax-load").first.click()
    move = page.locator(".ax-fix-move", has_text="Move blur after decode")
    move.wait_for(timeout=60_000)
    page.locator(".ax-output").first.screenshot(path=str(artifacts / "fixes-move.png"))
    move.click()
    move.wait_for(state="detached", timeout=60_000)
    page.locator(".ax-error-list").first.wait_for(state="hidden", timeout=60_000)
    reads = kernel_eval(page, "print(explorer.spec.node('blur').inputs[0].node)").strip()
    assert reads == "decode"
    # the moved graph ran: its batch is the last good result (what A/B later compares with)
    ran = (
        "explorer.flush(); r = explorer.result; f = explorer.state.failure\n"
        "print(r is not None and len(r.arrays(r.final)) == explorer.spec.batch_size"
        " and r.plan.spec.node('blur').inputs[0].node == 'decode', f and f.lines())"
    )
    said = ""
    for _ in range(60):
        said = kernel_eval(page, ran).strip()
        if said.startswith("True"):
            break
        page.wait_for_timeout(1000)
    assert said.startswith("True"), said


def test_ab_compares_the_selected_node_over_the_whole_batch(page: Any, artifacts: Path) -> None:
    # a click selects a node that is not selected (a rerun finds rotate selected: a click
    # would take the selection away)
    if kernel_eval(page, "print(explorer.controller.state.selected)").strip() != "rotate":
        page.locator(".ax-graph [data-node='rotate']").click()
    page.locator(".ax-arg-fill_value").wait_for(timeout=30_000)
    box = page.locator(".ax-arg-fill_value .ax-number-box input").first
    box.fill("200")
    box.press("Enter")
    # the edit is in before A/B is asked for (else A/B shows the edit before it: the move).
    # The page sends a widget's change once the kernel has answered that widget's last one,
    # so code run from the page can come first: wait for it
    applied = "explorer.flush(); print(explorer.spec.node('rotate').args['fill_value'])"
    said = ""
    for _ in range(30):
        said = kernel_eval(page, applied).strip()
        if said == "200.0":
            break
        page.wait_for_timeout(500)
    assert said == "200.0"
    page.locator(".ax-grid-mode button", has_text="A/B").click()
    caption = page.locator(".ax-grid-caption").first
    page.wait_for_function(
        "() => document.querySelector('.ax-grid-caption').textContent.includes('A/B of node')",
        timeout=60_000,
    )
    batch = int(kernel_eval(page, "print(explorer.spec.batch_size)"))
    text = caption.inner_text()
    assert "A/B of node rotate" in text and f"all {batch} samples" in text
    assert "same draws" in text
    tiles = page.locator(".ax-tile")
    assert tiles.count() == batch
    assert tiles.first.locator(".ax-tile-tag").all_inner_texts() == ["A before", "B now"]
    page.locator(".ax-output").first.screenshot(path=str(artifacts / "fixes-ab.png"))
    page.locator(".ax-grid-mode button", has_text="Batch").click()


def test_the_history_lists_each_step_and_jumps_back(page: Any) -> None:
    history = page.locator(".ax-history select").first
    page.wait_for_function(  # the history is redrawn once the edit has settled
        "() => document.querySelector('.ax-history select').textContent.includes('fill_value')",
        timeout=30_000,
    )
    labels = [label.replace("\xa0", " ") for label in history.locator("option").all_inner_texts()]
    assert any("rotate.fill_value = 200" in label for label in labels), labels
    assert any("moved blur after decode" in label for label in labels), labels
    # back to before the move: blur reads the source again, and the fix is offered again
    target = next(i for i, label in enumerate(labels) if "moved blur" in label) - 1
    history.select_option(index=target)
    page.locator(".ax-fix-move", has_text="Move blur after decode").wait_for(timeout=60_000)
    reads = kernel_eval(page, "print(explorer.spec.node('blur').inputs[0].node)").strip()
    assert reads == "source"
