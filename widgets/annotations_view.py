"""Switches for the annotations drawn over the tiles and the large view: boxes, class names,
polygons, pixel masks and keypoints, each on or off.

The drawing happens in the page (annotation_overlay.js), so a switch only changes which kinds
the page shows: nothing is run or sent again. A kind the graph has nothing of is greyed, and
the row says why (keypoints: DALI's COCO reader does not read them).
"""

from __future__ import annotations

import html
from collections.abc import Callable, Mapping, Sequence

import ipywidgets as widgets

from augexplorer.render.overlay_data import OVERLAY_KINDS

TITLES = {
    "boxes": "boxes",
    "names": "names",
    "polygons": "polygons",
    "masks": "masks",
    "keypoints": "keypoints",
}


class AnnotationToggles(widgets.HBox):
    """One toggle per kind; hidden for a graph with no annotations."""

    def __init__(self, on_change: Callable[[list[str]], None]) -> None:
        self._on_change = on_change
        self.buttons: dict[str, widgets.ToggleButton] = {}
        for kind in OVERLAY_KINDS:
            button = widgets.ToggleButton(
                value=True,
                description=TITLES[kind],
                tooltip=f"draw the {TITLES[kind]} over the pictures",
                layout={"width": "auto"},
            )
            button.add_class("ax-overlay-toggle")
            button.add_class(f"ax-overlay-toggle-{kind}")
            button.observe(lambda _: self._on_change(self.shown), "value")
            self.buttons[kind] = button
        self.note = widgets.HTML("")
        self.note.add_class("ax-overlay-note")
        label = widgets.HTML("<span class='ax-muted'>annotations</span>")
        super().__init__([label, *self.buttons.values(), self.note])
        self.add_class("ax-overlay-toggles")
        self.layout.display = "none"
        self.layout.flex_flow = "row wrap"
        self.layout.align_items = "center"

    @property
    def shown(self) -> list[str]:
        """The kinds switched on that the graph has something of."""
        return [k for k, b in self.buttons.items() if b.value and not b.disabled]

    def offer(
        self, available: Mapping[str, str | None] | None, warnings: Sequence[str] = ()
    ) -> None:
        """Show the toggles for a graph's annotations: `available` maps each kind to None where
        there is something to draw, else the reason there is not; None hides the row.
        `warnings` say what no longer matches the pictures (drawn all the same, so the
        mismatch can be seen)."""
        if available is None:
            self.layout.display = "none"
            return
        self.layout.display = ""
        reasons = []
        for kind, button in self.buttons.items():
            reason = available.get(kind, "nothing of this kind")
            button.disabled = reason is not None
            button.tooltip = reason or f"draw the {TITLES[kind]} over the pictures"
            if reason is not None and kind == "keypoints":  # the others: on hover
                reasons.append(reason)
        notes = [f"<span class='ax-overlay-warning'>{html.escape(w)}</span>" for w in warnings]
        if reasons:
            notes.append("<span class='ax-muted'>" + " · ".join(reasons) + "</span>")
        self.note.value = " · ".join(notes)
