"""The editor as a newcomer tuning augmentation by eye meets it, in JupyterLab: a value typed
and refused stays typed beside its reason, its box outlined as every refusing box is, and its
slider stays at the value in force (-5 typed into resize_shorter put the handle at 16, and the
slider's next arrow key applied 17); a draw's refused text stays through an edit of another
argument; the arrow keys step a number box as they step its slider; and a list reads whole in
its box (six thresholds read "0, 0.1, 0.3, 0.5, 0"). At 1280, 1600 and 1920 px."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .harness import kernel_eval, panel_page
from .layout import WIDTHS, resize, sideways

pytestmark = pytest.mark.browser

FOLDER = "newcomer_judging"  # a notebook of its own: other modules' kernels run other notebooks
PANEL = (
    "from augexplorer import Explorer\n"
    "explorer = Explorer('reference', batch_size=4, autosave=None)\nexplorer"
)

page = panel_page(FOLDER, "newcomer_judging", PANEL, ".ax-explorer .ax-tile canvas[data-key]")


def select(page: Any, node: str, row: str) -> None:
    """Select `node` by a click on its card (a click on the selected card unselects it)."""
    card = page.locator(f".ax-graph [data-node='{node}']")
    if "ax-g-selected" not in (card.get_attribute("class") or ""):
        card.click()
    page.locator(f".ax-arg-{row}").first.wait_for(timeout=30_000)


def kernel_args(page: Any, node: str) -> str:
    return kernel_eval(page, f"print(explorer.spec.node('{node}').args)")


def until_kernel_says(page: Any, expression: str, expected: str, tries: int = 120) -> None:
    """Ask the kernel for `expression` until it prints `expected` (the page's message of an
    edit can reach the kernel after a request sent just after it)."""
    said = ""
    for _ in range(tries):
        said = kernel_eval(page, f"print({expression})").strip()
        if said == expected:
            return
        page.wait_for_timeout(250)
    raise AssertionError(f"{expression} is {said!r}, not {expected!r}")


def type_in(page: Any, css: str, text: str) -> None:
    box = page.locator(css)
    box.fill(text)
    box.press("Enter")


def outline(page: Any, css: str) -> str:
    """How the box is outlined when it has no focus (a refusing box: solid, in red)."""
    return str(
        page.locator(css).evaluate(
            "el => { el.blur(); const s = getComputedStyle(el);"
            " return `${s.outlineStyle} ${s.outlineColor}`; }"
        )
    )


SHORTER = ".ax-arg-resize_shorter input[type=text]"
HANDLE = ".ax-arg-resize_shorter .noUi-handle"


def test_a_refused_number_stays_typed_and_its_slider_at_the_value_in_force(
    page: Any, artifacts: Path
) -> None:
    select(page, "resize", "resize_shorter")
    message = page.locator(".ax-arg-resize_shorter .ax-arg-message")
    type_in(page, SHORTER, "-5")
    message.get_by_text("Not applied").wait_for(timeout=30_000)
    assert "resize_shorter stays 256" in message.inner_text()
    assert page.locator(SHORTER).input_value() == "-5"
    assert "256.0" in kernel_args(page, "resize")
    # outlined as a refusing box is (the tile size's): it read as a box that took -5
    assert outline(page, SHORTER).startswith("solid rgb(198, 40, 40)")
    page.wait_for_function(
        "(css) => Number(document.querySelector(css).getAttribute('aria-valuenow')) === 256",
        arg=HANDLE,
        timeout=10_000,
    )
    for width in WIDTHS:
        resize(page, width)
        assert all(v <= 1 for v in sideways(page).values()), (width, sideways(page))
        page.locator(".ax-node-panel").screenshot(
            path=str(artifacts / f"newcomer-refused-{width}.png")
        )
    resize(page, 1600)
    # the slider's next step moves from the value in force
    page.locator(HANDLE).focus()
    page.keyboard.press("ArrowRight")
    page.wait_for_function(
        "(css) => document.querySelector(css).value === '257'", arg=SHORTER, timeout=30_000
    )
    until_kernel_says(page, "explorer.spec.node('resize').args['resize_shorter']", "257.0")
    message.get_by_text("Not applied").wait_for(state="detached", timeout=30_000)
    assert outline(page, SHORTER).startswith("none")


def test_the_arrow_keys_step_a_number_box_as_they_step_its_slider(page: Any) -> None:
    """Up and Down in a box did nothing while the same keys on its slider stepped it."""
    select(page, "resize", "resize_shorter")
    box = page.locator(SHORTER)
    box.fill("300")
    box.press("Enter")
    until_kernel_says(page, "explorer.spec.node('resize').args['resize_shorter']", "300.0")
    box.press("ArrowUp")
    assert box.input_value() == "301"
    until_kernel_says(page, "explorer.spec.node('resize').args['resize_shorter']", "301.0")
    box.press("Shift+ArrowDown")  # ten steps
    until_kernel_says(page, "explorer.spec.node('resize').args['resize_shorter']", "291.0")
    page.wait_for_function(
        "(css) => Number(document.querySelector(css).getAttribute('aria-valuenow')) === 291",
        arg=HANDLE,
        timeout=30_000,
    )
    # a crop position by its slider's hundredths, refused past its range as typed text is
    select(page, "crop", "crop_pos_x")
    position = page.locator(".ax-arg-crop_pos_x input[type=text]")
    position.fill("0.99")
    position.press("Enter")
    until_kernel_says(page, "explorer.spec.node('crop').args['crop_pos_x']", "0.99")
    position.press("ArrowUp")
    until_kernel_says(page, "explorer.spec.node('crop').args['crop_pos_x']", "1.0")
    position.press("ArrowUp")
    message = page.locator(".ax-arg-crop_pos_x .ax-arg-message")
    message.get_by_text("Not applied").wait_for(timeout=30_000)
    assert position.input_value() == "1.01" and "crop_pos_x stays 1" in message.inner_text()
    # a held key's steps go as one number once it rests: 1 - 5 x 0.01, not a step put back
    position.fill("1")
    position.press("Enter")
    message.get_by_text("Not applied").wait_for(state="detached", timeout=30_000)
    for _ in range(5):
        position.press("ArrowDown")
    until_kernel_says(page, "explorer.spec.node('crop').args['crop_pos_x']", "0.95")
    assert position.input_value() == "0.95"
    # text that is no number: the keys leave it as typed
    position.fill("abc")
    position.press("ArrowDown")
    assert position.input_value() == "abc"


def test_a_refused_draw_stays_typed_through_an_edit_of_another_argument(page: Any) -> None:
    select(page, "rotate", "angle")
    high = ".ax-arg-angle .ax-random-high input"
    message = page.locator(".ax-arg-angle .ax-arg-message")
    type_in(page, high, "abc")
    message.get_by_text("Not applied").wait_for(timeout=30_000)
    type_in(page, ".ax-arg-fill_value input[type=text]", "40")
    until_kernel_says(page, "explorer.spec.node('rotate').args['fill_value']", "40.0")
    # the panel's redraw after the edit, then the page once it shows what the kernel holds
    held = kernel_eval(
        page,
        "import html; explorer.flush(); row = explorer.node_panel.controls['angle']\n"
        "print(row.editor.params['high'].value); print(html.unescape(row.message.value))",
    ).split("\n")
    page.wait_for_function(
        "([css, box, said]) => document.querySelector(css).value === box && document"
        ".querySelector('.ax-arg-angle .ax-arg-message').innerText.trim() === said.trim()",
        arg=[high, held[0], held[1]],
        timeout=30_000,
    )
    assert page.locator(high).input_value() == "abc"
    assert "high: 'abc' is not a number" in message.inner_text()
    type_in(page, high, "25")
    page.wait_for_function(
        "() => !document.querySelector('.ax-arg-angle .ax-arg-message').innerText.trim()",
        timeout=30_000,
    )
    until_kernel_says(page, "explorer.spec.node('rotate').args['angle'].high", "25.0")


@pytest.mark.parametrize("width", WIDTHS)
def test_a_list_reads_whole_in_its_box(page: Any, artifacts: Path, width: int) -> None:
    if width == WIDTHS[0]:
        page.locator(".ax-preset select").select_option("ssd_detection")
        # the detection graph reads the bundled photos with their boxes
        until_kernel_says(page, "explorer.spec.sources()[0].kind", "coco")
        select(page, "box_crop", "thresholds")
    resize(page, width)
    box = page.locator(".ax-arg-thresholds input[type=text]")
    assert box.input_value() == "0, 0.1, 0.3, 0.5, 0.7, 0.9"
    cut = box.evaluate("el => el.scrollWidth - el.clientWidth")
    assert cut <= 0, cut
    # the row's buttons stay together beside the name, the list on a line under them
    label, toggle, reset = (
        page.locator(f".ax-arg-thresholds {css}").bounding_box()
        for css in (".ax-arg-label", ".ax-random-toggle", ".ax-arg-reset")
    )
    assert toggle["y"] == reset["y"] and reset["x"] > toggle["x"], (toggle, reset)
    assert toggle["y"] < label["y"] + label["height"], (label, toggle)
    below = box.bounding_box()
    assert below is not None and below["y"] >= toggle["y"] + toggle["height"], (below, toggle)
    # the lists that fit beside their name stay there
    ratio = page.locator(".ax-arg-aspect_ratio input[type=text]").bounding_box()
    label = page.locator(".ax-arg-aspect_ratio .ax-arg-label").bounding_box()
    assert ratio is not None and label is not None and ratio["x"] > label["x"] + label["width"] - 1
    assert all(v <= 1 for v in sideways(page).values()), (width, sideways(page))
    page.locator(".ax-node-panel").screenshot(path=str(artifacts / f"newcomer-list-{width}.png"))
    resize(page, 1600)
