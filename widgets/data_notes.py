"""What the data source left out and why (images beside the class folders, hidden folders,
files skipped as bad), above the grid: nothing is left out without a word.

A big folder's files are looked at in the background after its first grid
(:mod:`augexplorer.file_survey`); while that goes on, the notes are redrawn every
:data:`REFRESH_S` seconds from the same result (its progress, and any bad file found), on the
kernel's event loop, so they arrive when known without a new run. With skip_bad, a bad file
found there is left out and the batch read again (``on_bad_found``): training's loader, which
looks at every file first, reads without it, in another order.
"""

from __future__ import annotations

import asyncio
import html
from collections.abc import Callable

import ipywidgets as widgets

from augexplorer.engine import RunResult

REFRESH_S = 1.0


class DataNotes(widgets.HTML):
    def __init__(self, on_bad_found: Callable[[], None] | None = None) -> None:
        super().__init__("", layout={"display": "none"})
        self.add_class("ax-data-notes")
        self._shown: RunResult | None = None
        self._timer: asyncio.TimerHandle | None = None
        # runs the graph again: bad files found behind the grid change the batch training reads
        self.on_bad_found = on_bad_found
        self._ran_again_for: RunResult | None = None  # the result it last ran again after

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
        """Draw the notes of the result shown last again (its sources' looks went on); where
        the look found bad files that are left out, run again to show training's batch."""
        shown = self._shown
        if (
            shown is not None
            and shown is not self._ran_again_for  # once: a run that fails keeps this result
            and self.on_bad_found is not None
            and shown.bad_files_found_since()
        ):
            self._ran_again_for = shown
            self.on_bad_found()  # the new result's notes are shown with it
            if self._shown is not shown:
                return
        self.show(shown)


def looking(result: RunResult) -> bool:
    """Whether a source of `result` is still being looked at in the background."""
    return any(data.survey is not None and not data.survey.done for data in result.sources.values())
