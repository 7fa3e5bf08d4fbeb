"""Ctrl+Z / Ctrl+Shift+Z (and Ctrl+Y) in the panel: undo and redo the graph's last edit; the
Up and Down arrows in a number box: its number one step up or down, as a slider's arrows step it.

An anywidget with nothing to show: its module listens for the keys on the panel it sits in and
sends "undo" or "redo"; keys typed in a text box stay that box's own, but for the arrows in a
number box, which put the stepped number in the box and send it as Enter sends typed text (its
step: :func:`.arg_controls.arrow_step`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import anywidget

STATIC = Path(__file__).parent / "static"


class PanelKeys(anywidget.AnyWidget):
    _esm = (STATIC / "panel_keys.js").read_text(encoding="utf-8")

    def __init__(self, undo: Callable[[], Any], redo: Callable[[], Any]) -> None:
        super().__init__()
        self._undo = undo
        self._redo = redo
        self.layout.display = "contents"  # takes no room in the panel
        self.on_msg(self._message)

    def _message(self, _: Any, content: Any, buffers: Any) -> None:
        event = content.get("event") if isinstance(content, dict) else None
        if event == "undo":
            self._undo()
        elif event == "redo":
            self._redo()
