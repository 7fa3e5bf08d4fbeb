"""The problems of the current graph, above the grid; the last good grid stays below."""

from __future__ import annotations

import html

import ipywidgets as widgets

from .failure import Failure


class ErrorsView(widgets.HTML):
    def __init__(self) -> None:
        super().__init__("", layout={"display": "none"})
        self.add_class("ax-errors")
        self.add_class("ax-error-list")

    def show(self, failure: Failure | None) -> None:
        # An empty HTML widget still takes a line's height: hidden, it leaves no gap.
        self.layout.display = "none" if failure is None else ""
        if failure is None:
            self.value = ""
            return
        items = "".join(f"<li>{html.escape(line)}</li>" for line in failure.lines())
        lead = {
            "invalid": "The graph has problems; showing the last good result.",
            "run": "DALI failed; showing the last good result.",
            "data": "The data source cannot be read; showing the last good result.",
            "untrusted": "The graph holds Python code that has not been trusted, so nothing ran; "
            "showing the last good result.",
        }.get(failure.kind, "Something went wrong; showing the last good result.")
        self.value = f"<b>{lead}</b><ul>{items}</ul>"
