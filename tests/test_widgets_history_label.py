"""The history menu's steps as its box shows them: a step too long for the box at a 1280 px window
(a weighted choice, a long folder path) is cut in the middle, keeping what was edited, the end
of the value given and the "◀ now" mark (cut at the box's edge it lost both); the toolbar gives
the box the whole step on hover. The width itself is measured in the browser
(browser/test_newcomer_history_browser.py)."""

from __future__ import annotations

import pytest
from augexplorer_widgets import Explorer
from augexplorer_widgets.history import Step
from augexplorer_widgets.history_label import LABEL_CHARS, step_label

from augexplorer.spec import Random

WEIGHTED = "rotate.angle ~ choice(-30, -15, 0, 15, 30) weighted 0.1, 0.2, 0.4, 0.2, 0.1"


@pytest.mark.parametrize(
    ("label", "start", "end"),
    [
        (WEIGHTED, "12. rotate.angle ~ choic", "0.2, 0.1  ◀ now"),
        (
            "source: folder /home/someone/datasets/imagenet/train_subset_2024",
            "12. source: folder",
            "/train_subset_2024  ◀ now",
        ),
        (
            "random_resized_crop.random_area = 0.08, 0.75, 0.8, 1",
            "12. random_resized_crop.",
            "1  ◀ now",
        ),
    ],
)
def test_a_long_step_is_cut_in_the_middle(label: str, start: str, end: str) -> None:
    shown = step_label(Step(12, label, current=True, undone=False))
    assert len(shown) <= LABEL_CHARS and " … " in shown, shown
    assert shown.startswith(start) and shown.endswith(end), shown


def test_a_step_that_fits_is_shown_whole_and_the_marks_stay() -> None:
    assert step_label(Step(3, "rotate.fill_value = 40", True, False)) == (
        "3. rotate.fill_value = 40  ◀ now"
    )
    undone = step_label(Step(4, WEIGHTED, False, True))
    assert undone.endswith("  (undone)") and len(undone) <= LABEL_CHARS
    assert step_label(Step(4, WEIGHTED, False, True), chars=None) == f"4. {WEIGHTED}  (undone)"


def test_the_menu_gives_the_whole_step_on_hover(catalog, tmp_path) -> None:  # type: ignore[no-untyped-def]
    explorer = Explorer("basic", batch_size=2, autosave=tmp_path / "a.json", catalog=catalog)
    explorer.set_arg(
        "rotate", "angle", Random.choice([-30, -15, 0, 15, 30], [0.1, 0.2, 0.4, 0.2, 0.1])
    )
    explorer.flush()
    history = explorer.toolbar.history
    shown = dict(history.options)
    assert history.tooltip == f"1. {WEIGHTED}  ◀ now"
    label = next(text for text, index in shown.items() if index == history.value)
    assert label.startswith("1. rotate.angle ~ choic") and label.endswith("0.1  ◀ now")
    assert len(label) <= LABEL_CHARS
