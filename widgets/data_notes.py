"""What the data source left out and why (images beside the class folders, hidden folders,
files skipped as bad), above the grid: nothing is left out without a word.

A big folder's files are looked at in the background after its first grid
(:mod:`augexplorer.file_survey`); while that goes on, the notes are redrawn every
:data:`REFRESH_S` seconds from the same result (its progress, and any bad file found), on the
kernel's event loop, so they arrive when known without a new run.
"""

from __future__ import annotations

import asyncio
import html

import ipywidgets as widgets

from augexplorer.engine import RunResult

REFRESH_S = 1.0


class DataNotes(widgets.HTML):
    def __init__(self) -> None:
        super().__init__("", layout={"display": "none"})
        self.add_class("ax-data-notes")
        self._shown: RunResult | None = None
        self._timer: asyncio.TimerHandle | None = None

    def show(self, result: RunResult | None) -> None:
        self._shown = result
        notes = result.data_notes() if result is not None else []
        items = "".join(f"<li>{html.escape(note)}</li>" for note in notes)
        value = (
            f"<details><summary>The data source left files out</summary><ul>{items}</ul></details>"
        )
        self.value = value if notes else ""
        self.layout.display = "" if notes else "none"  # an empty line would leave a gap
        self._refresh_while_looking(result)

    def _refresh_while_looking(self, result: RunResult | None) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if result is None or not looking(result):
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no event loop (plain Python, tests): shown at the next run
            return
        self._timer = loop.call_later(REFRESH_S, self.refresh)

    def refresh(self) -> None:
        """Draw the notes of the result shown last again (its sources' looks went on)."""
        self.show(self._shown)


def looking(result: RunResult) -> bool:
    """Whether a source of `result` is still being looked at in the background."""
    return any(data.survey is not None and not data.survey.done for data in result.sources.values())
