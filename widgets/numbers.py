"""Numbers typed as text, read on the Python side so that a value that is not applied says why.

The browser's number inputs (ipywidgets' IntText / FloatText) drop text they cannot read and
clamp bounded values before the kernel sees them, so the user is never told. The panel's number
boxes are text boxes instead: the text stays as typed, and the reason shows beside it.
"""

from __future__ import annotations

import math

from augexplorer.checks.numbers import shown_number

# Longer than any number a control takes; int() of thousands of digits is slow, then refused.
MAX_CHARS = 40


class Unreadable(ValueError):
    """Text that is no number of the kind asked for. `reason` says what was wrong, without the
    hint on what to type instead (a box with limits names those instead)."""

    def __init__(self, reason: str, hint: str = "") -> None:
        super().__init__(f"{reason}; {hint}" if hint else reason)
        self.reason = reason


def parse_number(text: str, integer: bool) -> int | float:
    """``"2.5"`` -> 2.5; raises ValueError saying what was wrong and what to type instead."""
    typed = text.strip().replace("_", "")
    kind = "a whole number" if integer else "a number"
    if not typed:
        raise Unreadable("the box is empty", f"type {kind}")
    if len(typed) > MAX_CHARS:
        raise Unreadable(f"{_short(text)} is too long to be {kind}")
    try:
        return int(typed)
    except ValueError:
        pass
    try:
        value = float(typed)
    except ValueError:
        raise Unreadable(f"{_short(text)} is not {kind}") from None
    if integer:
        if not math.isfinite(value) or not value.is_integer():
            raise Unreadable(
                f"{_short(text)} is not a whole number", f"type e.g. {_nearest(value)}"
            )
        return int(value)
    return value


def parse_in_range(text: str, low: float, high: float, what: str, integer: bool) -> int | float:
    """A number from `low` to `high`; raises ValueError saying why, naming `what` and the range,
    whatever was wrong with the text (``'abc' is not a whole number; the number of draws must be
    between 2 and 64``): a box with limits always says what it takes."""
    allowed = f"{what} must be between {format_number(low)} and {format_number(high)}"
    try:
        value = parse_number(text, integer)
    except Unreadable as error:
        raise ValueError(f"{error.reason}; {allowed}") from None
    if not low <= value <= high:
        raise ValueError(f"{allowed}, not {format_number(value)}")
    return value


def parse_finite(text: str, what: str) -> float:
    """Any finite number (``"-2.5"``, ``"1e-3"``); raises ValueError saying why, naming `what`
    where the text reads as a number that is not finite (``inf``, ``nan``)."""
    value = float(parse_number(text, integer=False))
    if not math.isfinite(value):
        raise ValueError(f"{what} must be a finite number, not {format_number(value)}")
    return value


def parse_bounded_int(text: str, low: int, high: int, what: str) -> int:
    """A whole number in [low, high]; raises ValueError naming `what` and the allowed range."""
    value = parse_number(text, integer=True)
    assert isinstance(value, int)
    if value < low:
        raise ValueError(f"{what} must be at least {low}, not {value}")
    if value > high:
        raise ValueError(f"{what} can be at most {high} here, not {value}")
    return value


def format_number(value: float | int) -> str:
    """The text a box shows for `value`: exact (no rounding), without a needless ``.0``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    return shown_number(value)  # as the engine's refusals write numbers


def _nearest(value: float) -> str:
    return str(round(value)) if math.isfinite(value) else "8"


def _short(text: str) -> str:
    return repr(text if len(text) <= MAX_CHARS else text[:MAX_CHARS] + "…")
