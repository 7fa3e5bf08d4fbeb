"""Number boxes outside the argument editor (the run's length, a count of batches), read here as
the argument editor's are (see :mod:`.numbers`): text that is not a number of the kind asked, or
one out of range, stays typed in the box, outlined, with the reason on a line under it, and
nothing is applied; the last good value stays in force until a good one is typed.
"""

from __future__ import annotations

import html
from collections.abc import Callable

import ipywidgets as widgets

from .arg_controls import arrow_step, number_box
from .hover import describe
from .numbers import format_number, parse_finite, parse_in_range


class RefusedLine(widgets.HTML):
    """Why what was typed in a box was not applied, a line a box (hidden while nothing stands
    refused); each such box is outlined. One look across the panel (``ax-refused``,
    graph_view.css); `classes`: this line's own hooks."""

    def __init__(self, *classes: str) -> None:
        super().__init__("", layout={"display": "none"})
        self.add_class("ax-refused")
        for name in classes:
            self.add_class(name)
        self._said: dict[widgets.Text, str] = {}

    def say(self, box: widgets.Text, message: str | None) -> None:
        """Show (or, with None, take back) why the text in `box` was not applied."""
        if message:
            self._said[box] = message
            box.add_class("ax-input-refused")
        else:
            self._said.pop(box, None)
            box.remove_class("ax-input-refused")
        self.value = "<br>".join(
            f"<span class='ax-errors'>⚠ {html.escape(said)}</span>" for said in self._said.values()
        )
        self.layout.display = "" if self._said else "none"

    def said(self, box: widgets.Text) -> str:
        """What this line says of `box` ("" where nothing)."""
        return self._said.get(box, "")


class NumberField:
    """One number typed in :attr:`box` (a :func:`.arg_controls.number_box`): from `low` to
    `high` (a whole number where `integer`), or any finite number where there are no limits.

    :attr:`value` is the number in force: the last good one typed, or the last one shown.
    Setting it shows it (the text, no refusal). `on_value` is called with each new number the
    user types, never with one shown from outside. `what` names the number in the reason a
    typed one is refused ("the number of epochs must be between 1 and 100000").
    """

    def __init__(
        self,
        value: float,
        *,
        description: str,
        what: str,
        line: RefusedLine,
        width: str,
        integer: bool = False,
        low: float | None = None,
        high: float | None = None,
        tooltip: str = "",
        on_value: Callable[[float], None] | None = None,
    ) -> None:
        self.what = what
        self.line = line
        self.integer = integer
        self.limits = None if low is None or high is None else (low, high)
        self.on_value = on_value
        self._value = value
        self._syncing = False
        self.box = number_box(value, width)
        if integer:
            arrow_step(self.box, 1)
        if tooltip:
            describe(self.box, description, tooltip)
        else:
            self.box.description = description
        self.box.observe(self._typed, "value")

    @property
    def value(self) -> float:
        return self._value

    @value.setter
    def value(self, value: float) -> None:
        self.show(value)

    @property
    def refused(self) -> str:
        """Why the text in the box was not applied ("" where it was, or nothing was typed)."""
        return self.line.said(self.box)

    def read(self, text: str) -> float:
        """The number `text` gives; raises ValueError saying why it cannot be used."""
        if self.limits is None:
            return parse_finite(text, self.what)
        number = parse_in_range(text, *self.limits, self.what, self.integer)
        return int(number) if self.integer else float(number)

    def show(self, value: float) -> None:
        """Put `value` in force and in the box; text typed that was refused, and its reason,
        go."""
        self._value = value
        self.line.say(self.box, None)
        self._put(value)

    def follow(self, value: float) -> None:
        """`value` is what the number now is outside (the graph redrawn): shown where it is
        another than the one in force; the same one leaves the box as it is, text refused
        included (a redraw for another reason does not take back what the user is typing)."""
        if value != self._value:
            self.show(value)

    def _put(self, value: float) -> None:
        self._syncing = True
        try:
            self.box.value = format_number(value)
        finally:
            self._syncing = False

    def _typed(self, change: dict[str, object]) -> None:
        if self._syncing:
            return
        try:
            number = self.read(str(change["new"]))
        except ValueError as error:  # the text stays typed, the reason under it
            stays = f"{self.what[:1].upper()}{self.what[1:]} stays {format_number(self._value)}."
            self.line.say(self.box, f"Not applied: {error}. {stays}")
            return
        self.line.say(self.box, None)
        changed = number != self._value
        self._value = number
        self._put(number)  # as the panel writes it: " 25" and "25.0" read 25
        if changed and self.on_value is not None:
            self.on_value(number)
