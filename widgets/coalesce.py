"""Run only the latest request: rapid slider moves must never queue a backlog of runs.

The kernel handles widget messages one at a time. A change marks the panel dirty and asks for
one flush. The first change after a quiet spell flushes on the loop's next turn, or with
`at_once` right away, inside the message that asked (a single slider step waits for no timer,
and the kernel reports busy until its pictures are sent); changes that follow a flush within
`delay_s` wait that long, so updates already waiting in the kernel are applied first (each just
marks dirty again) and the flush runs only the newest state. Where no event loop runs (plain
Python, unit tests), requests run at once.

Work that must not compete with a more urgent reply waits `settle_s` even after a quiet spell:
the panel around the grid is redrawn, and the graph autosaved, once the grid's pictures are on
their way to the page.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable


class Coalescer:
    def __init__(
        self,
        work: Callable[[], None],
        delay_s: float = 0.004,
        settle_s: float = 0.0,
        at_once: bool = False,
    ) -> None:
        self._work = work
        self._at_once = at_once
        self._delay_s = delay_s
        self._settle_s = settle_s
        self._scheduled: asyncio.TimerHandle | asyncio.Handle | None = None
        self._last_run = -1.0e9  # loop time of the last flush
        self.pending = False
        self.runs = 0  # how many times the work ran (for tests and the benchmark)

    def request(self) -> None:
        self.pending = True
        loop = running_loop()
        if loop is None:
            self.flush()
            return
        if self._scheduled is None:
            wait = max(self._settle_s, self._last_run + self._delay_s - loop.time())
            if wait <= 0 and self._at_once:
                self.flush()
                return
            self._scheduled = (
                loop.call_later(wait, self._fire) if wait > 0 else loop.call_soon(self._fire)
            )

    def _fire(self) -> None:
        self._scheduled = None
        self.flush()

    def cancel(self) -> None:
        """Drop the pending work: something else did it already."""
        if self._scheduled is not None:
            self._scheduled.cancel()
            self._scheduled = None
        self.pending = False

    def flush(self) -> None:
        """Do the pending work now (once), if there is any."""
        if self._scheduled is not None:
            self._scheduled.cancel()
            self._scheduled = None
        if not self.pending:
            return
        self.pending = False
        self.runs += 1
        try:
            self._work()
        finally:
            loop = running_loop()
            if loop is not None:
                self._last_run = loop.time()


def running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None
