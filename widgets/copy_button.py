"""A copy-to-clipboard button that works in the browser without a kernel round trip."""

from __future__ import annotations

from typing import Any

import anywidget
import traitlets

from .graph_view import STATIC


class CopyButton(anywidget.AnyWidget):
    _esm = STATIC / "copy_button.js"
    text = traitlets.Unicode("").tag(sync=True)
    label = traitlets.Unicode("Copy code").tag(sync=True)
    copied = traitlets.Int(0).tag(sync=True)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.add_class("ax-copy")
