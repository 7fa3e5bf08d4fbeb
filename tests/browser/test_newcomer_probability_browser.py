"""A probability typed and refused, as a newcomer meets it in JupyterLab: 1.5 typed into flip's
"apply with probability" box was forgotten once another node was selected (the box back at 0.5,
no reason), while an argument's refused text stays. It stays now, beside its reason and
outlined, until typed over; the graph keeps 0.5."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .harness import panel_page
from .layout import WIDTHS, resize, sideways
from .test_newcomer_judging_browser import outline, select, type_in, until_kernel_says

pytestmark = pytest.mark.browser

FOLDER = "newcomer_probability"  # a notebook of its own: other modules' kernels run other notebooks
PANEL = (
    "from augexplorer import Explorer\n"
    "explorer = Explorer('basic', batch_size=4, autosave=None)\nexplorer"
)
BOX = ".ax-probability input[type=text]"
P_IN_FORCE = "explorer.spec.node('flip').probability"

page = panel_page(FOLDER, "newcomer_probability", PANEL, ".ax-explorer .ax-tile canvas[data-key]")


def test_a_refused_probability_stays_while_another_node_is_selected(
    page: Any, artifacts: Path
) -> None:
    select(page, "flip", "horizontal")
    page.locator(".ax-apply input").check()
    until_kernel_says(page, f"{P_IN_FORCE}.p", "0.5")
    message = page.locator(".ax-probability-message")
    type_in(page, BOX, "1.5")
    message.get_by_text("Not applied").wait_for(timeout=30_000)
    select(page, "rotate", "angle")
    select(page, "flip", "horizontal")
    message.get_by_text("Not applied").wait_for(timeout=30_000)
    assert page.locator(BOX).input_value() == "1.5"
    said = message.inner_text()
    assert "1.5 is out of range [0, 1]" in said and "stays 0.5" in said, said
    assert outline(page, BOX).startswith("solid rgb(198, 40, 40)")
    until_kernel_says(page, f"{P_IN_FORCE}.p", "0.5")
    for width in WIDTHS:
        resize(page, width)
        assert all(v <= 1 for v in sideways(page).values()), (width, sideways(page))
        page.locator(".ax-node-panel").screenshot(
            path=str(artifacts / f"newcomer-probability-{width}.png")
        )
    resize(page, 1600)
    # typed over with a good one: applied, and the refusal goes
    type_in(page, BOX, "0.25")
    until_kernel_says(page, f"{P_IN_FORCE}.p", "0.25")
    message.get_by_text("Not applied").wait_for(state="detached", timeout=30_000)
    assert outline(page, BOX).startswith("none")
