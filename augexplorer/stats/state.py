"""The running state of a statistics accumulator, as processes of a ``torchrun`` job combine it.

Each accumulator says what its state is (:meth:`Tally.state`) as a list of leaves, and takes the
combined leaves back in the same order (:meth:`Tally.load_state`):

- :class:`Summed`: an array every process holds, combined element by element (a sum of counts, a
  minimum, a maximum): exact for integers, whatever the order the samples were read in;
- a :class:`~augexplorer.stats.moments.RunningMoments`: combined from sums over every process
  (counts and totals, then squared deviations about the combined mean), never by averaging means;
- :class:`Gathered`: what is not a sum (the first layout seen, counts keyed by label): every
  process's value comes back as a list in rank order, for the accumulator to merge.

Nothing here imports torch: :mod:`augexplorer.stats.reduce` does the exchange.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Protocol

import numpy as np

from .moments import RunningMoments

Op = Literal["sum", "min", "max"]


@dataclass
class Summed:
    """An array combined element by element with `op`. Its leading axis may be longer on some
    processes (channels first seen there): shorter ones are padded with `op`'s identity, which
    accumulators treat as nothing counted (a count of 0, a minimum of +inf)."""

    values: np.ndarray
    op: Op = "sum"


@dataclass
class Gathered:
    """A picklable value that is not a sum; combined, `value` is the list of every process's
    value in rank order."""

    value: Any


Leaf = Summed | Gathered | RunningMoments


class Tally(Protocol):
    """An accumulator whose running state can be combined over processes."""

    def state(self) -> list[Leaf]: ...

    def load_state(self, combined: list[Leaf]) -> None: ...


def ints(*values: int) -> Summed:
    """Whole-number running counts, summed."""
    return Summed(np.array(values, dtype=np.int64))


def summed(leaf: Leaf) -> np.ndarray:
    assert isinstance(leaf, Summed), f"expected a summed array, got {type(leaf).__name__}"
    return leaf.values


def gathered(leaf: Leaf) -> list[Any]:
    assert isinstance(leaf, Gathered), f"expected gathered values, got {type(leaf).__name__}"
    return list(leaf.value)


def moments_of(leaf: Leaf) -> RunningMoments:
    assert isinstance(leaf, RunningMoments), f"expected moments, got {type(leaf).__name__}"
    return leaf
