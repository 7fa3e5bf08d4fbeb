"""What the data source left out and why (images beside the class folders, hidden folders,
files skipped as bad), above the grid: nothing is left out without a word."""

from __future__ import annotations

import html

import ipywidgets as widgets

from augexplorer.engine import RunResult


class DataNotes(widgets.HTML):
    def __init__(self) -> None:
        super().__init__("", layout={"display": "none"})
        self.add_class("ax-data-notes")

    def show(self, result: RunResult | None) -> None:
        notes = result.data_notes() if result is not None else []
        items = "".join(f"<li>{html.escape(note)}</li>" for note in notes)
        value = (
            f"<details><summary>The data source left files out</summary><ul>{items}</ul></details>"
        )
        self.value = value if notes else ""
        self.layout.display = "" if notes else "none"  # an empty line would leave a gap
