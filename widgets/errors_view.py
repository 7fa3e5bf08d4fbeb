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

    def show(
        self, failure: Failure | None, *, shown: bool = True, other_graph: bool = False
    ) -> None:
        """`failure` above the grid; `shown`: whether a good result of this graph is on screen
        below it (a panel opened on a folder it cannot read has none); `other_graph`: the last
        good result there is belongs to the graph this one replaced (a preset picked, a file
        loaded), so it is not shown under this one's errors."""
        # An empty HTML widget still takes a line's height: hidden, it leaves no gap.
        self.layout.display = "none" if failure is None else ""
        if failure is None:
            self.value = ""
            return
        items = "".join(f"<li>{html.escape(line)}</li>" for line in failure.lines())
        problem = {
            "invalid": "The graph has problems",
            "run": "DALI failed",
            "data": "The data source cannot be read",
            "untrusted": "The graph holds Python code that has not been trusted, so nothing ran",
        }.get(failure.kind, "Something went wrong")
        fixed = "trusted" if failure.kind == "untrusted" else "fixed"
        after = "showing the last good result" if shown else f"nothing to show until it is {fixed}"
        if not shown and other_graph:
            after = (
                f"this graph has no good result yet (the one before was another graph's): {after}"
            )
        self.value = f"<b>{problem}; {after}.</b><ul>{items}</ul>"
