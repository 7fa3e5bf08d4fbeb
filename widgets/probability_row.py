"""A node's "apply with probability": the check box, the probability's slider and box, and the
line under them saying why text typed in the box was not applied.

A probability is refused by the graph's own check (`check`, as an argument's value is by
:class:`.arg_controls.ArgControl`'s), so the box reads as every other control does where a value
is past its range; the box itself only reads the text as a number.

Text typed and refused is held as an argument's is (:attr:`unparsed`, :meth:`keep_unparsed`,
as :class:`.arg_controls.ArgControl` holds it), so the node panel keeps it across node
selection by the same means: until it is typed over, apply is switched off, or the graph's
probability changes (undo).
"""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import Any

import ipywidgets as widgets

from . import sliders
from .arg_controls import NumberSlider, number_box
from .numbers import format_number

# (typed text, what the panel says of it, the probability in force it did not replace)
Kept = tuple[str, str, float | None]


class ProbabilityRow(widgets.VBox):
    """`p`: the node's probability in force (None: always applied). `on_change` gets each
    probability the user applies (None: apply switched off), never one shown from the graph;
    `check` says why a probability cannot be applied (the graph's reason and fix), and such a
    one is refused before it reaches the graph."""

    def __init__(
        self,
        p: float | None,
        on_change: Callable[[float | None], None],
        check: Callable[[float], str | None] | None = None,
    ) -> None:
        self._on_change = on_change
        self._check = check
        self._value = p
        self._unparsed: Kept | None = None
        self._quiet = False
        self.apply = widgets.Checkbox(
            value=p is not None,
            description="apply with probability",
            indent=False,
            layout={"width": "170px"},
        )
        self.apply.add_class("ax-apply")
        self.number = NumberSlider(
            sliders.FloatSlider(min=0.0, max=1.0, step=0.01, readout=False),
            number_box(),
            p if p is not None else 0.5,
        )
        self.number.slider.layout.width = "130px"
        self.number.box.layout.width = "64px"
        self.number.set_disabled(p is None)
        self.number.add_class("ax-probability")
        self.number.on_unparsed = self._refused
        self.message = widgets.HTML("")
        self.message.add_class("ax-arg-message")
        self.message.add_class("ax-probability-message")
        self.apply.observe(self._switched, "value")
        self.number.observe(self._moved, "value")
        row = widgets.HBox([self.apply, self.number])
        row.add_class("ax-arg-row")
        super().__init__([row, self.message])
        self.add_class("ax-probability-row")

    @property
    def unparsed(self) -> Kept | None:
        """(typed text, its reason, the probability it did not replace), while there is one."""
        return self._unparsed

    def keep_unparsed(self, kept: Kept) -> None:
        """Carry text the user typed over to this row (the panel was rebuilt); text refused
        against another probability than the one in force is not the user's any more."""
        if kept[2] != self._value:
            return
        self.number.show_text(kept[0])
        self._unparsed = kept
        self._say(kept[1])

    def show(self, p: float | None) -> None:
        """The graph's probability: where it is another than the one in force (undo, redo),
        the box shows it and text refused against the old one goes; else what is typed stays."""
        if p == self._value:
            return
        self._value = p
        self._unparsed = None
        self._quiet = True
        try:
            if p is not None:  # the box too: the slider may hold p already, the box text
                self.number.value = p
                self.number.show_text(format_number(p))
        finally:
            self._quiet = False
        self._say("")

    def _refused(self, typed: str, reason: str) -> None:
        """The box refused `typed` because of `reason` (empty: the probability in force was
        typed again, so the earlier refusal no longer stands)."""
        if not reason:
            self._unparsed = None
            self._say("")
            return
        stays = self._value if self._value is not None else self.number.value
        message = f"Not applied: {reason}. The probability stays {format_number(stays)}."
        self._unparsed = (typed, message, self._value)
        self._say(message)

    def _moved(self, change: dict[str, Any]) -> None:
        if self._quiet:
            return
        problem = self._check(change["new"]) if self._check is not None else None
        if problem:
            self._refused(self.number.typed_text(), problem)
            self._quiet = True
            try:  # the value in force back on the slider, what was typed left in the box
                self.number.hold(change["old"])
            finally:
                self._quiet = False
            return
        self._unparsed = None
        self._say("")
        self._value = change["new"]
        self._on_change(change["new"])

    def _switched(self, change: dict[str, Any]) -> None:
        if self._quiet:
            return
        # the probability in force changes (to none, or to the slider's): a refusal of text
        # typed against the old one no longer stands, and the box shows the slider's value
        self._unparsed = None
        self._say("")
        self.number.show_text(format_number(self.number.value))
        self._value = self.number.value if change["new"] else None
        self._on_change(self._value)

    def _say(self, message: str) -> None:
        self.message.value = html.escape(f"⚠ {message}") if message else ""
        if message:
            self.number.add_class("ax-arg-error")
        else:
            self.number.remove_class("ax-arg-error")
