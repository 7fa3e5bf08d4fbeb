"""A number box is as wide as its whole value: its width where the value fits, wider where not."""

from __future__ import annotations

from augexplorer_widgets.arg_controls import number_box
from augexplorer_widgets.box_fit import TEXT_PAD


def test_a_box_grows_with_its_value_and_keeps_its_width_for_short_ones() -> None:
    box = number_box(0.75, "48px")
    assert box.layout.width == "48px"
    assert box.layout.min_width == f"max(48px, calc(4ch + {TEXT_PAD}))"  # 0.75: 3.5 digits
    box.value = "1.333333"  # random_aspect_ratio's end: 7.5 digits wide
    assert box.layout.min_width == f"max(48px, calc(7.5ch + {TEXT_PAD}))"


def test_a_drag_between_values_of_one_length_sends_no_layout() -> None:
    box = number_box(0.25)
    sent: list[object] = []
    box.layout.observe(lambda change: sent.append(change["new"]), "min_width")
    for value in ("0.26", "0.27", "0.28"):
        box.value = value
    assert sent == []
    box.value = "0.275"
    assert sent == [f"calc(4.5ch + {TEXT_PAD})"]


def test_short_values_of_different_lengths_send_no_layout() -> None:
    """A slider stepping between 1.1 and 1.05 changes the text's length every step: a box
    already wide enough for both sends nothing while the kernel runs the graph."""
    box = number_box(1.0, "80px")
    sent: list[object] = []
    box.layout.observe(lambda change: sent.append(change["new"]), "min_width")
    for value in ("1.05", "1.1", "1.15", "1", "0.95"):
        box.value = value
    assert sent == []
    box.value = "1.0125"
    assert sent == [f"max(80px, calc(5.5ch + {TEXT_PAD}))"]
