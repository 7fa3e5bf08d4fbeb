"""What the panel shows belongs to the graph shown, in JupyterLab: the Export tab's code (before
any file is written, after an edit, and what "Copy code" puts on the clipboard), the Statistics
tab's figures once another preset is picked, and a random crop's window in the large view."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .harness import kernel_eval, panel_page
from .layout import resize, screenshot

pytestmark = pytest.mark.browser

FOLDER = "what_you_see"  # a notebook of its own: other modules' kernels run other notebooks
PANEL = (
    "from augexplorer import Explorer\n"
    "explorer = Explorer('basic', batch_size=4, autosave=None)\n"
    "explorer.add('random_resized_crop', after='decode')\nexplorer"
)
WIDTHS = (1280, 1600, 1920)


page = panel_page(
    FOLDER,
    "what_you_see",
    PANEL,
    ".ax-explorer .ax-tile canvas[data-key]",
    permissions=("clipboard-read", "clipboard-write"),
)


def shown_code(page: Any) -> str:
    return str(page.locator(".ax-export-code pre").inner_text())


def tab(page: Any, title: str) -> None:
    page.locator(".ax-tabs .lm-TabBar-tab", has_text=title).click()


def test_export_tab_shows_the_current_graphs_code_and_copies_it(page: Any, artifacts: Path) -> None:
    tab(page, "Export")
    page.locator(".ax-export-code pre").wait_for(timeout=60_000)
    status = page.locator(".ax-export-code-status")
    assert "not written to a file yet" in status.inner_text()
    assert "fn.rotate(" in shown_code(page) and "fn.random_resized_crop(" in shown_code(page)
    for width in WIDTHS:
        screenshot(page, width, artifacts / f"what-you-see-export-{width}.png")
    page.set_viewport_size({"width": 1600, "height": 1000})
    # an edit: the code follows, without the removed node
    kernel_eval(page, "explorer.node_panel.actions.remove('rotate')")
    page.wait_for_function(
        "() => !document.querySelector('.ax-export-code pre').innerText.includes('fn.rotate(')",
        timeout=60_000,
    )
    code = shown_code(page)
    assert "fn.random_resized_crop(" in code
    # "Copy code" puts exactly the code shown on the clipboard
    page.locator(".ax-export .ax-copy-btn").click()
    page.locator(".ax-export .ax-copy-btn", has_text="Copied").wait_for(timeout=10_000)
    copied = page.evaluate("() => navigator.clipboard.readText()")
    assert copied.strip() == code.strip()
    assert "fn.rotate(" not in copied
    page.locator(".ax-export").screenshot(path=str(artifacts / "what-you-see-export-edited.png"))


def test_statistics_say_when_they_are_another_graphs(page: Any, artifacts: Path) -> None:
    tab(page, "Statistics")
    batches = page.locator(".ax-stats .ax-stats-batches input")
    batches.fill("2")
    batches.press("Enter")
    page.locator(".ax-stats button", has_text="Run statistics").click()
    page.locator(".ax-stats-status", has_text="samples in").wait_for(timeout=120_000)
    summary = page.locator(".ax-stats-summary").inner_text()
    assert summary.startswith("basic, edited on the bundled samples")
    assert "crop windows of random_resized_crop (DALI's generator" in summary
    page.locator(".ax-preset select").select_option("randaugment")
    stale = page.locator(".ax-stats-stale")
    stale.wait_for(timeout=60_000)
    said = stale.inner_text()
    assert "these figures are of “basic, edited”" in said and "another graph" in said
    for width in WIDTHS:
        screenshot(page, width, artifacts / f"what-you-see-stats-stale-{width}.png")
    page.set_viewport_size({"width": 1600, "height": 1000})
    kernel_eval(page, "explorer.undo()")
    stale.wait_for(state="detached", timeout=60_000)


def test_large_view_draws_the_crop_window_on_the_before_picture(page: Any, artifacts: Path) -> None:
    kernel_eval(page, "explorer.select('random_resized_crop')")
    page.locator(".ax-grid-caption", has_text="random_resized_crop").wait_for(timeout=60_000)
    assert "random_resized_crop.window=" in page.locator(".ax-tile").first.inner_text()
    page.locator(".ax-tile[data-index='1']").click()
    window = page.locator(".ax-pane-before .ax-crop-window")
    window.wait_for(timeout=60_000)
    facts = page.locator(".ax-large-facts").inner_text()
    assert "random_resized_crop.window" in facts and "nothing random" not in facts
    shown = [float(v) for v in str(window.get_attribute("data-window")).split(",")]
    drawn = kernel_eval(
        page,
        "w = explorer.result.windows('random_resized_crop').windows[1]; "
        "print(w.x, w.y, w.width, w.height)",
    )
    assert shown == [float(v) for v in drawn.split()]
    for width in WIDTHS:
        screenshot(page, width, artifacts / f"what-you-see-crop-window-{width}.png")
    page.set_viewport_size({"width": 1600, "height": 1000})
    page.locator(".ax-large").screenshot(path=str(artifacts / "what-you-see-large-view.png"))
    page.keyboard.press("Escape")


def test_a_random_crop_decoder_shows_the_whole_image_with_its_window(
    page: Any, artifacts: Path
) -> None:
    kernel_eval(page, "explorer.controller.pick_preset('imagenet_train'); explorer.flush()")
    kernel_eval(page, "explorer.select('decode'); explorer.flush()")
    page.locator(".ax-grid-caption", has_text="decode").wait_for(timeout=60_000)
    page.locator(".ax-tile-draws", has_text="decode.window=").first.wait_for(timeout=60_000)
    page.locator(".ax-tile[data-index='0']").click()
    window = page.locator(".ax-pane-before .ax-crop-window")
    window.wait_for(timeout=60_000)
    title = page.locator(".ax-pane-before .ax-pane-title").inner_text()
    assert "the whole image, decoded again" in title
    page.locator(".ax-large").screenshot(path=str(artifacts / "what-you-see-decoder-window.png"))
    page.keyboard.press("Escape")
    # a node after it: its "before" is the decoder's crop, its "original" the whole file
    kernel_eval(page, "explorer.select('resize'); explorer.flush()")
    page.locator(".ax-grid-caption", has_text="resize").wait_for(timeout=60_000)
    try:
        for width in (1280, 1600, 1920):
            resize(page, width)  # the panel lays itself out for the new width first
            page.locator(".ax-tile[data-index='0']").click()
            page.locator(".ax-pane-original .ax-crop-window").wait_for(timeout=60_000)
            page.wait_for_timeout(300)
            original = page.locator(".ax-pane-original .ax-pane-title").inner_text()
            before = page.locator(".ax-pane-before .ax-pane-title").inner_text()
            assert "the whole image, decoded again" in original, original
            assert "the whole image" not in before, before
            page.locator(".ax-large").scroll_into_view_if_needed()
            page.screenshot(path=str(artifacts / f"what-you-see-decoder-original-{width}.png"))
            page.keyboard.press("Escape")
            page.locator(".ax-large").wait_for(state="hidden", timeout=10_000)
    finally:
        page.set_viewport_size({"width": 1600, "height": 1000})


def test_normalized_floats_say_how_they_are_drawn(page: Any, artifacts: Path) -> None:
    # The normalized output looks like a photo: the grid's caption and the pane under the
    # picture say it is drawn with the normalization undone.
    said = "float32 values drawn as pixels: normalize's normalization undone"
    kernel_eval(page, "explorer.controller.pick_preset('imagenet_val'); explorer.flush()")
    kernel_eval(page, "explorer.select('normalize'); explorer.flush()")
    page.locator(".ax-grid-caption", has_text=said).wait_for(timeout=60_000)
    try:
        for width in WIDTHS:
            resize(page, width)
            page.locator(".ax-tile[data-index='0']").click()
            # the full resolution, not the first look at the tile's own picture
            page.locator(".ax-large .ax-pane-after canvas.ax-pane-canvas").wait_for(timeout=60_000)
            meta = page.locator(".ax-pane-after .ax-pane-meta")
            assert said in meta.inner_text()
            assert (
                "drawn as pixels" not in page.locator(".ax-pane-before .ax-pane-meta").inner_text()
            )
            page.locator(".ax-large").scroll_into_view_if_needed()
            page.screenshot(path=str(artifacts / f"what-you-see-normalized-{width}.png"))
            page.keyboard.press("Escape")
            page.locator(".ax-large").wait_for(state="hidden", timeout=10_000)
    finally:
        page.set_viewport_size({"width": 1600, "height": 1000})
        if page.locator(".ax-large").is_visible():  # the tests after it need the grid
            kernel_eval(page, "explorer.grid.tiles.opened = -1; print('closed')")


def test_a_policys_choices_show_in_the_large_view(page: Any, artifacts: Path) -> None:
    kernel_eval(page, "explorer.controller.pick_preset('trivial_augment_wide'); explorer.flush()")
    kernel_eval(page, "explorer.select('augment'); explorer.flush()")
    page.locator(".ax-grid-caption", has_text="augment").wait_for(timeout=60_000)
    page.locator(".ax-tile[data-index='0']").click()
    chose = page.locator(".ax-large-facts tr", has_text="augment.chose")
    chose.wait_for(timeout=90_000)
    shown = chose.locator("td").inner_text()
    known = kernel_eval(
        page,
        "from augexplorer.engine.policy_draws import policy_draws\n"
        "r = explorer.result\n"
        "print(policy_draws(r, r.plan.step('augment')).choices[0])",
    )
    assert shown == known.strip()
    assert "draws internally" not in page.locator(".ax-large-facts").inner_text()
    page.locator(".ax-large").screenshot(path=str(artifacts / "what-you-see-policy-choice.png"))
    page.keyboard.press("Escape")


def test_the_epochs_last_batch_marks_its_padding(page: Any, artifacts: Path) -> None:
    # 19 bundled samples in batches of 4: the fifth batch holds the epoch's last 3 and a repeat.
    # Last in the module: the panel stays at that batch, where a random crop's window and a
    # policy's choices are no longer recovered (the tests before it read them at the first)
    kernel_eval(page, "explorer.controller.pick_preset('basic'); explorer.flush()")
    kernel_eval(page, "for _ in range(4): explorer.toolbar.next_batch.click()\nexplorer.flush()")
    page.locator(".ax-grid-caption", has_text="the epoch's last batch").wait_for(timeout=60_000)
    labels = page.locator(".ax-tile .ax-tile-label").all_inner_texts()
    assert [label.endswith("· padding") for label in labels] == [False, False, False, True]
    for width in WIDTHS:
        screenshot(page, width, artifacts / f"what-you-see-padding-{width}.png")
    page.set_viewport_size({"width": 1600, "height": 1000})
