"""Sliders that do not echo the values the page sends them.

ipywidgets 8 answers every value a page sends with an ``echo_update`` of it, so that other
pages showing the widget follow. The panel is one page, and during a slider's move that echo is
one more message the page handles while the kernel runs the graph. Measured in JupyterLab
(BENCHMARKS.md, issue 33), the echo and the number box's new width came ahead of the grid's
pictures and held them up by about 5 ms. The kernel's own changes of a value (a number typed in
the box, an undo) still go to the page as ever.
"""

from __future__ import annotations

from typing import Any

import ipywidgets as widgets


class _NoEcho:
    """Says the value trait has no echo; ipywidgets' own trait stays as it is defined."""

    def trait_metadata(self, traitname: str, key: str, default: Any = None) -> Any:
        if traitname == "value" and key == "echo_update":
            return False
        return super().trait_metadata(traitname, key, default)  # type: ignore[misc]


class FloatSlider(_NoEcho, widgets.FloatSlider):
    pass


class IntSlider(_NoEcho, widgets.IntSlider):
    pass


class FloatRangeSlider(_NoEcho, widgets.FloatRangeSlider):
    pass
