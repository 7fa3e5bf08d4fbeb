"""The banner that offers an autosaved graph back, or says why the autosave could not be read,
where the damaged file is kept, and offers what could be read of it."""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import Any

import ipywidgets as widgets

from augexplorer.spec import GraphSpec

from .autosave import Damage, Saved
from .graph_changes import graph_changes


class RestoreBanner(widgets.HBox):
    def __init__(
        self,
        offer: Saved | None,
        damage: Damage | None,
        on_restore: Callable[[GraphSpec], None],
        on_keep: Callable[[], None],
        current: GraphSpec | None = None,
    ) -> None:
        """`current`: the graph the panel opened on, which the offer is told apart from."""
        self.offer = offer
        self.damage = damage
        self.text = widgets.HTML(_describe(offer, damage, current))
        self.text.add_class("ax-banner-text")
        self.restore = widgets.Button(
            description="Restore what could be read" if damage else "Restore it",
            button_style="warning",
            layout={"width": "auto", "display": "" if offer else "none"},
        )
        self.restore.add_class("ax-restore")
        self.discard = widgets.Button(
            description="Keep this one" if offer else "Dismiss", layout={"width": "auto"}
        )
        self.discard.add_class("ax-discard")
        self._on_restore = on_restore
        self._on_keep = on_keep
        self.restore.on_click(self._restore_clicked)
        self.discard.on_click(self._discard_clicked)
        shown = offer is not None or damage is not None
        super().__init__(
            [self.text, self.restore, self.discard], layout={"display": "" if shown else "none"}
        )
        self.add_class("ax-banner")
        if damage is not None:
            self.add_class("ax-banner-damaged")

    @property
    def shown(self) -> bool:
        return self.layout.display != "none"

    def hide(self) -> None:
        self.layout.display = "none"
        self.offer = None

    def _restore_clicked(self, _: Any) -> None:
        if self.offer is not None:
            spec = self.offer.spec
            self.hide()
            self._on_restore(spec)

    def _discard_clicked(self, _: Any) -> None:
        had_offer = self.offer is not None
        self.hide()
        if had_offer:
            self._on_keep()


def _describe(offer: Saved | None, damage: Damage | None, current: GraphSpec | None) -> str:
    if damage is None:
        if offer is None:
            return ""
        when = html.escape(offer.saved_at.replace("T", " "))
        # An edited graph keeps its preset's name: without what differs, "imagenet_train" is
        # offered over "imagenet_train" and reads as the same graph.
        changes = graph_changes(current, offer.spec) if current is not None else ""
        differs = f" It differs from the graph shown: {html.escape(changes)}." if changes else ""
        return (
            f"An autosaved graph <b>{html.escape(offer.spec.name)}</b>"
            f"{' from ' + when if when else ''} is available.{differs}"
        )
    where = (
        f"The file is kept as <code>{html.escape(str(damage.kept_at))}</code>; nothing was "
        f"overwritten."
        if damage.kept_at is not None
        else "Autosave is off so that nothing there is overwritten: move "
        f"<code>{html.escape(str(damage.path))}</code>, or give "
        "<code>Explorer(autosave=...)</code> another file."
    )
    head = (
        f"<span class='ax-errors'>⚠ The autosave <code>{html.escape(str(damage.path))}</code> "
        f"could not be read: {html.escape(_sentence(damage.reason))}</span> {where}"
    )
    if offer is None and damage.recovered is not None:  # what could be read is on screen
        return (
            f"{head} What could be read of it is the graph shown here "
            f"({html.escape(damage.recovered.note)})."
        )
    if offer is None:
        return f"{head} No graph could be read from it; open the kept file to see what is left."
    return (
        f"{head} Part of it could be read: graph <b>{html.escape(offer.spec.name)}</b> "
        f"({html.escape(offer.note)})."
    )


def _sentence(text: str) -> str:
    text = text.rstrip()
    return text if text.endswith((".", "?", "!")) else text + "."
