"""A slider being dragged, seen from the kernel: new results coming with no pause between them.

While a drag lasts, the grid sends quick previews (smaller pictures: fewer bytes to encode, move
and decode); once the results stop for `rest_s`, the grid sends the full pictures of the last
one, which always replace the previews. A single step (a key press, a click) after a quiet spell
is shown in full at once: only a result that comes within `drag_s` of the last one's drawing
is a preview. Measured from the end of the last drawing, not its start: on a busy machine one
run may take longer than a person's pause, while a drag keeps the kernel busy without a gap.
Where no event loop runs (plain Python, unit tests) nothing could send the full pictures later,
so every result is drawn in full.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

# Slider events come every ~16 ms during a drag: a new result within this long of the end of the
# last one's drawing is part of the same drag.
DRAG_S = 0.25
# No new result for this long: the slider rests, the full pictures go (during a drag the kernel
# is busy without a gap; a key held down repeats every ~33 ms).
REST_S = 0.08


class DragPreview:
    def __init__(
        self, on_rest: Callable[[], None], drag_s: float = DRAG_S, rest_s: float = REST_S
    ) -> None:
        self._on_rest = on_rest
        self._drag_s = drag_s
        self._rest_s = rest_s
        self._last_drawn = -1.0e9  # monotonic time the last new result was drawn
        self._rest: asyncio.TimerHandle | None = None

    def new_result(self) -> bool:
        """A new result is about to be drawn: True where it should go as a preview (a drag is
        under way), in which case the full pictures are asked for once the results rest."""
        dragging = time.monotonic() - self._last_drawn < self._drag_s
        self.cancel()
        if not dragging:
            return False
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return False
        self._rest = loop.call_later(self._rest_s, self._rested)
        return True

    def drawn(self) -> None:
        """A new result was drawn (in full or as a preview)."""
        self._last_drawn = time.monotonic()

    def cancel(self) -> None:
        """No full pictures are owed any more (a full redraw, or nothing to show)."""
        if self._rest is not None:
            self._rest.cancel()
            self._rest = None

    def _rested(self) -> None:
        self._rest = None
        self._on_rest()
