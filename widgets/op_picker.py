"""A searchable list of the operator catalog. Operators this machine cannot run are listed
with their reason and cannot be added."""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import Any

import ipywidgets as widgets

from augexplorer.catalog import Catalog, OpInfo


def option_label(op: OpInfo) -> str:
    # the name alone fits the column; the summary of the picked one is shown below the list
    return op.name if op.available else f"{op.name}  (unavailable)"


class OpPicker(widgets.VBox):
    def __init__(self, catalog: Catalog, on_add: Callable[[str], None]) -> None:
        self.catalog = catalog
        self._on_add = on_add
        self.search = widgets.Text(
            placeholder="search operators (e.g. blur, rotate)…",
            continuous_update=True,
            layout={"width": "100%"},
        )
        self.search.add_class("ax-op-search")
        self.list = widgets.Select(options=[], rows=7, layout={"width": "100%"})
        self.list.add_class("ax-op-list")
        self.add = widgets.Button(
            description="Add after selected",
            icon="plus",
            button_style="primary",
            layout={"width": "auto"},
        )
        self.add.add_class("ax-op-add")
        self.reason = widgets.HTML("")
        self.reason.add_class("ax-op-reason")
        self.search.observe(self._filter, "value")
        self.list.observe(self._picked, "value")
        self.add.on_click(lambda _: self._add())
        super().__init__([self.search, self.list, widgets.HBox([self.add]), self.reason])
        self.add_class("ax-op-picker")
        self._filter()

    def matches(self, text: str) -> list[OpInfo]:
        # What runs here first; unavailable ones after, so they inform without getting in the way.
        # Image operators with tuned sliders come first when nothing is typed yet.
        found = self.catalog.search(text)
        if not text.strip():
            found = sorted(found, key=lambda op: not any(a.hint for a in op.args))
        return [op for op in found if op.available] + [op for op in found if not op.available]

    def _filter(self, _: Any = None) -> None:
        ops = self.matches(self.search.value)
        self.list.options = [(option_label(op), op.name) for op in ops]
        if ops and self.list.value not in [op.name for op in ops]:
            self.list.value = ops[0].name
        self._picked()

    def _picked(self, _: Any = None) -> None:
        name = self.list.value
        op = self.catalog.get(name) if name else None
        if op is None:
            self.add.disabled = True
            self.reason.value = ""
            return
        self.add.disabled = not op.available
        if op.available:
            self.reason.value = f"<span class='ax-muted'>{html.escape(op.summary()[:200])}</span>"
        else:
            self.reason.value = f"<span class='ax-errors'>{html.escape(op.name)}: {html.escape(str(op.unavailable_reason))}</span>"

    def _add(self) -> None:
        name = self.list.value
        op = self.catalog.get(name) if name else None
        if op is not None and op.available:
            self._on_add(op.name)
