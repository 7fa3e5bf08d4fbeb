"""Switches for the annotations drawn over the tiles and the large view: boxes, class names,
polygons, pixel masks and keypoints, each on or off.

The drawing happens in the page (annotation_overlay.js), so a switch only changes which kinds
the page shows: nothing is run or sent again. A kind the graph has nothing of is greyed, and
the row says why (keypoints: DALI's COCO reader does not read them). A kind the graph reads
but did not carry through a geometric step to these images is switched off too (the engine
decides: RunResult.overlay_states), the row says which step, and a button wires it.
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
    """One toggle per kind; hidden for a graph with no annotations. A kind the graph did not
    carry to the images shown is switched off and disabled, the row says why, and where
    companion operators can carry it a button beside it adds them (`on_carry(kind)`)."""

    def __init__(
        self,
        on_change: Callable[[list[str]], None],
        on_carry: Callable[[str], None] | None = None,
    ) -> None:
        self._on_change = on_change
        self._on_carry = on_carry
        self._syncing = False
        self.wanted = dict.fromkeys(OVERLAY_KINDS, True)  # the user's own choice per kind
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
            button.observe(lambda change, k=kind: self._switched(k, change["new"]), "value")
            self.buttons[kind] = button
        self.note = widgets.HTML("")
        self.note.add_class("ax-overlay-note")
        self.fixes: dict[str, widgets.Button] = {}  # fix label -> its button
        self.fix_row = widgets.HBox([], layout={"display": "none", "flex_flow": "row wrap"})
        self.fix_row.add_class("ax-overlay-fixes")
        label = widgets.HTML("<span class='ax-muted'>annotations</span>")
        super().__init__([label, *self.buttons.values(), self.note, self.fix_row])
        self.add_class("ax-overlay-toggles")
        self.layout.display = "none"
        self.layout.flex_flow = "row wrap"
        self.layout.align_items = "center"

    @property
    def shown(self) -> list[str]:
        """The kinds switched on that the graph has something of."""
        return [k for k, b in self.buttons.items() if b.value and not b.disabled]

    def _switched(self, kind: str, value: bool) -> None:
        if not self._syncing:
            self.wanted[kind] = bool(value)
        self._on_change(self.shown)

    def offer(
        self,
        available: Mapping[str, str | None] | None,
        warnings: Sequence[str] = (),
        *,
        left_behind: Mapping[str, str] | None = None,
        fixes: Mapping[str, str] | None = None,
    ) -> None:
        """Show the toggles for a graph's annotations: `available` maps each kind to None where
        there is something to draw, else the reason there is not; None hides the row.
        `left_behind`: the kinds the graph did not carry to these images, with why (said on the
        row, not only on hover); `fixes`: the kinds companions can carry, with the button's
        label. `warnings`: anything else that no longer matches the pictures."""
        if available is None:
            self.layout.display = "none"
            return
        self.layout.display = ""
        left_behind = left_behind or {}
        reasons = []
        self._syncing = True
        try:
            for kind, button in self.buttons.items():
                reason = available.get(kind, "nothing of this kind")
                button.disabled = reason is not None
                # off where there is nothing to draw; the user's choice comes back with it
                button.value = self.wanted[kind] and reason is None
                button.tooltip = reason or f"draw the {TITLES[kind]} over the pictures"
                if reason is not None and (kind == "keypoints" or kind in left_behind):
                    reasons.append(reason)  # the others: on hover
        finally:
            self._syncing = False
        notes = [f"<span class='ax-overlay-warning'>{html.escape(w)}</span>" for w in warnings]
        said = [r for r in dict.fromkeys(reasons) if r not in left_behind.values()]
        notes += [
            f"<span class='ax-overlay-warning'>{html.escape(r)}</span>"
            for r in dict.fromkeys(left_behind.values())
        ]
        if said:
            notes.append(
                "<span class='ax-muted'>" + " · ".join(html.escape(r) for r in said) + "</span>"
            )
        self.note.value = " · ".join(notes)
        self._offer_fixes(fixes or {})

    def _offer_fixes(self, fixes: Mapping[str, str]) -> None:
        """One button per fix (boxes and names share theirs), in the order of the kinds."""
        by_label: dict[str, str] = {}
        for kind, label in fixes.items():
            by_label.setdefault(label, kind)
        if list(by_label) != list(self.fixes):
            for button in self.fixes.values():
                button.close()  # gone from the page; its model would stay in the kernel
            self.fixes = {label: self._fix_button(label, kind) for label, kind in by_label.items()}
            self.fix_row.children = list(self.fixes.values())
        self.fix_row.layout.display = "" if self.fixes else "none"

    def _fix_button(self, label: str, kind: str) -> widgets.Button:
        button = widgets.Button(
            description=label,
            icon="link",
            button_style="warning",
            tooltip=f"add the operators that move the {TITLES[kind]} with the images; undoable",
            layout={"width": "auto"},
        )
        button.add_class("ax-overlay-carry")
        button.add_class(f"ax-overlay-carry-{kind}")
        button.on_click(lambda _button: self._carry(kind))
        return button

    def _carry(self, kind: str) -> None:
        if self._on_carry is not None:
            self._on_carry(kind)
