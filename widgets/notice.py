"""A one-line notice with an Undo button: "Replaced your graph with preset X - Undo".

It belongs to one graph: the panel hides it as soon as the graph on screen is another one, so its
Undo can only ever take back the step it announced.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import Any

import ipywidgets as widgets

from augexplorer.spec import GraphSpec


class Notice(widgets.HBox):
    def __init__(self, undo: Callable[[], object]) -> None:
        self.text = widgets.HTML("")
        self.text.add_class("ax-notice-text")
        self.undo = widgets.Button(
            description="Undo", icon="undo", button_style="warning", layout={"width": "auto"}
        )
        self.undo.add_class("ax-notice-undo")
        self.dismiss = widgets.Button(icon="times", tooltip="dismiss", layout={"width": "32px"})
        self.dismiss.add_class("ax-notice-close")
        self._for: GraphSpec | None = None
        self._undo = undo
        self.undo.on_click(self._undo_clicked)
        self.dismiss.on_click(lambda _: self.hide())
        super().__init__([self.text, self.undo, self.dismiss], layout={"display": "none"})
        self.add_class("ax-notice")

    @property
    def shown(self) -> bool:
        return self._for is not None

    def show(self, text: str, spec: GraphSpec) -> None:
        """Say `text` (plain text) about the step that made `spec` the graph."""
        self.text.value = html.escape(text)
        self._for = spec
        self.layout.display = ""

    def follow(self, spec: GraphSpec) -> None:
        """The graph on screen is now `spec`: the notice goes once it is about another graph."""
        if self._for is not None and spec is not self._for and spec != self._for:
            self.hide()

    def hide(self) -> None:
        self._for = None
        self.layout.display = "none"

    def _undo_clicked(self, _: Any) -> None:
        if self._for is not None:
            self.hide()
            self._undo()
