"""Text boxes as wide as their text: a number box shows its whole value, and a list's box its
whole list, never cut at its edge.

The panel's boxes show a number exactly (``1.333333``, random_aspect_ratio's end), so a width
picked for typical values cuts longer ones. The box keeps its width where its text fits and grows
past it where the text needs more: a CSS ``min-width`` of the text's length in ``ch`` (the width
of a digit; a point counts half) plus the input's padding and border, updated when the length
changes. Lengths up to `SHORT` digits count as `SHORT`: every box is at least that wide anyway, so a
drag between 1.1 and 1.05 sends the page no layout while the kernel runs the graph (BENCHMARKS.md,
issue 33).
"""

from __future__ import annotations

from typing import Any

import ipywidgets as widgets

# A number box's padding (4 px a side: graph_view.css) and border (1 px a side), and 2 px for
# the caret at the end of the text.
TEXT_PAD = "12px"
# Four digits (about 30 px at the panel's 13 px font) fit the narrowest box (48 px) with its
# padding: a shorter text needs no room of its own.
SHORT = 4


def fit_to_text(box: widgets.Text, least: str | None = None) -> widgets.Text:
    """Keep `box` wide enough for its whole text, never narrower than `least` (a CSS length)."""

    def fit(_: Any = None) -> None:
        room = f"calc({max(SHORT, digits_wide(box.value)):g}ch + {TEXT_PAD})"
        # Only a change of length reaches the page: a slider's drag between values of one
        # length sends no layout.
        box.layout.min_width = f"max({least}, {room})" if least else room

    box.observe(fit, "value")
    fit()
    return box


def digits_wide(text: str) -> float:
    """How wide `text` is in digits (CSS ch): a point, a comma or a space (a list's
    "0.5, 0.7") is about half a digit."""
    narrow = text.count(".") + text.count(",") + text.count(" ")
    return len(text) - narrow / 2
