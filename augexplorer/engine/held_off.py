"""A process-wide switch held off while any of several blocks, on any thread, runs."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager


class HeldOff:
    """Turns a switch off when the first block begins and back on when the last one ends, and
    only if it was on when the first began (a change made by someone else while a block runs is
    not kept)."""

    def __init__(
        self, is_on: Callable[[], bool], turn_on: Callable[[], None], turn_off: Callable[[], None]
    ) -> None:
        self._is_on, self._turn_on, self._turn_off = is_on, turn_on, turn_off
        self._lock = threading.Lock()
        self._holders = 0
        self._was_on = False

    @contextmanager
    def held(self) -> Iterator[None]:
        with self._lock:
            if self._holders == 0:
                self._was_on = bool(self._is_on())
                self._turn_off()
            self._holders += 1
        try:
            yield
        finally:
            with self._lock:
                self._holders -= 1
                if self._holders == 0 and self._was_on:
                    self._turn_on()
