"""Sliders that do not echo the values the page sends them, but the one after a value of the
kernel's own.

ipywidgets 8 answers every value a page sends with an ``echo_update`` of it, so that other
pages showing the widget follow. The panel is one page, and during a slider's move that echo is
one more message the page handles while the kernel runs the graph: measured in JupyterLab
(BENCHMARKS.md, issue 33), the echo and the number box's new width came ahead of the grid's
pictures and held them up by about 5 ms. The kernel's own changes of a value (a number typed in
the box, a value put back on the slider's steps) still go to the page as ever; the page may have
sent a newer value before such a change reached it, and applies the change over its own: the
next value it sends is echoed, which puts its handle back where the kernel's value now is.
"""

from __future__ import annotations

from typing import Any

import ipywidgets as widgets


class _EchoAfterKernel:
    """The value trait echoes only the page's first value after the kernel sent one of its own;
    ipywidgets' own trait stays as it is defined."""

    _echo_next = False  # the kernel sent a value: echo the page's next one
    _echo_now = False  # set_state of that next value is running

    def trait_metadata(self, traitname: str, key: str, default: Any = None) -> Any:
        if traitname == "value" and key == "echo_update":
            return self._echo_now
        return super().trait_metadata(traitname, key, default)  # type: ignore[misc]

    def set_state(self, sync_data: dict[str, Any]) -> None:
        self._echo_now, self._echo_next = self._echo_next, False
        try:
            super().set_state(sync_data)  # type: ignore[misc]
        finally:
            self._echo_now = False

    def send_state(self, key: Any = None) -> None:
        super().send_state(key)  # type: ignore[misc]
        if key is None or key == "value" or (not isinstance(key, str) and "value" in key):
            self._echo_next = True


class FloatSlider(_EchoAfterKernel, widgets.FloatSlider):
    pass


class IntSlider(_EchoAfterKernel, widgets.IntSlider):
    pass


class FloatRangeSlider(_EchoAfterKernel, widgets.FloatRangeSlider):
    pass
