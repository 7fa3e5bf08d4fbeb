"""One rule and one wording for every probability: a coin's argument, a coin flip drawn for an
argument, a node's apply probability. Each is refused as any argument past its range is
(``1.5 is out of range [0, 1]``, fix ``use a value in [0, 1]``), by the graph's checks and, before
a value reaches the graph, by the panel's controls asking those checks."""

from __future__ import annotations

import math

from ..catalog.limits import PROBABILITY
from .numbers import in_range_fix, out_of_range, shown_number

PROBABILITY_FIX = in_range_fix(PROBABILITY)


def probability_refused(p: object) -> str | None:
    """Why `p` is no probability, or None where it is one."""
    if isinstance(p, bool) or not isinstance(p, int | float) or not math.isfinite(p):
        return f"{shown_number(p)} is not a finite number"
    if not PROBABILITY[0] <= p <= PROBABILITY[1]:
        return out_of_range(p, PROBABILITY)
    return None
