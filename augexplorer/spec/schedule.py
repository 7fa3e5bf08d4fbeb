"""Values that follow the training run: a schedule over epochs, and what it is bound to.

A :class:`Schedule` gives a number for each epoch of a run of ``epochs`` epochs (curriculum
augmentation: weak early, strong late). A :class:`ScheduleTarget` names the number it drives:
an argument's constant (``rotate.angle``), one parameter of an argument's random draw
(``rotate.angle.high``) or a node's apply probability (``flip.apply``). The graph keeps its
schedules in :attr:`GraphSpec.schedules`; :mod:`augexplorer.schedules` writes their values
into the graph for one epoch. No DALI import.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

Curve = Literal["constant", "linear", "cosine", "warmup", "steps", "table"]
CURVES: tuple[str, ...] = ("constant", "linear", "cosine", "warmup", "steps", "table")
# The parameters of a draw a schedule may drive (its numbers; a choice's values are not one).
BOUNDS: tuple[str, ...] = ("low", "high", "mean", "stddev", "probability")
APPLY = "apply"  # the target word for a node's apply probability: ``flip.apply``


@dataclass(frozen=True)
class Schedule:
    """A number per epoch. Epochs count from 0; a run of `epochs` epochs ends at ``epochs - 1``.

    - ``constant``: `start` at every epoch.
    - ``linear``: `start` at epoch `begin`, `end` at epoch `finish` (the run's last epoch when
      None), a straight line between, flat outside.
    - ``cosine``: as ``linear``, along half a cosine (slow at both ends).
    - ``warmup``: `start` rising in a straight line to `end` over the first `finish` epochs,
      then `end`: ``linear`` with the warm-up's length said outright.
    - ``steps``: `points` ``(epoch, value)``: each value holds from its epoch to the next
      point's (the first value before the first point).
    - ``table``: `points` ``(epoch, value)``, a straight line between neighbours, flat outside.
    """

    curve: Curve
    start: float = 0.0
    end: float = 0.0
    begin: int = 0
    finish: int | None = None
    points: tuple[tuple[int, float], ...] = ()

    _TABLES: ClassVar[tuple[str, ...]] = ("steps", "table")

    @classmethod
    def constant(cls, value: float) -> Schedule:
        return cls("constant", start=float(value), end=float(value))

    @classmethod
    def linear(
        cls, start: float, end: float, *, begin: int = 0, finish: int | None = None
    ) -> Schedule:
        return cls("linear", start=float(start), end=float(end), begin=begin, finish=finish)

    @classmethod
    def cosine(
        cls, start: float, end: float, *, begin: int = 0, finish: int | None = None
    ) -> Schedule:
        return cls("cosine", start=float(start), end=float(end), begin=begin, finish=finish)

    @classmethod
    def warmup(cls, start: float, end: float, epochs: int) -> Schedule:
        return cls("warmup", start=float(start), end=float(end), finish=epochs)

    @classmethod
    def steps(cls, points: Iterable[tuple[int, float]]) -> Schedule:
        return cls("steps", points=_points(points))

    @classmethod
    def table(cls, points: Iterable[tuple[int, float]]) -> Schedule:
        return cls("table", points=_points(points))

    def value_at(self, epoch: int, epochs: int) -> float:
        """The value at `epoch` of a run of `epochs` epochs."""
        if self.curve == "constant":
            return self.start
        if self.curve in self._TABLES:
            return self._table_value(epoch)
        begin, finish = self.span(epochs)
        if finish <= begin:
            return self.end if epoch >= finish else self.start
        t = min(1.0, max(0.0, (epoch - begin) / (finish - begin)))
        if self.curve == "cosine":
            t = (1.0 - math.cos(math.pi * t)) / 2.0
        return self.start + (self.end - self.start) * t

    def span(self, epochs: int) -> tuple[int, int]:
        """The epochs the change runs over, ``(begin, finish)``, for a run of `epochs`."""
        if self.curve == "warmup":
            return 0, self.finish if self.finish is not None else 0
        return self.begin, self.finish if self.finish is not None else max(epochs - 1, 0)

    def turning_epochs(self, epochs: int) -> set[int]:
        """Epochs between which the value only rises or only falls (every curve is monotone
        between them): the smallest and largest values over the run are at these epochs."""
        last = max(epochs - 1, 0)
        found = {0, last}
        if self.curve in self._TABLES:
            found |= {epoch for epoch, _ in self.points}
        elif self.curve != "constant":
            found |= set(self.span(epochs))
        return {min(max(epoch, 0), last) for epoch in found}

    def _table_value(self, epoch: int) -> float:
        points = self.points
        if not points:
            return 0.0
        if epoch <= points[0][0]:
            return points[0][1]
        for (e0, v0), (e1, v1) in itertools.pairwise(points):
            if epoch < e1:
                if self.curve == "steps":
                    return v0
                return v0 + (v1 - v0) * (epoch - e0) / (e1 - e0)
        return points[-1][1]

    def describe(self) -> str:
        """``linear 5 -> 30 over epochs 0-49``; ``steps 0:0.1, 10:0.5``."""
        if self.curve == "constant":
            return f"constant {_num(self.start)}"
        if self.curve in self._TABLES:
            return f"{self.curve} " + ", ".join(f"{e}:{_num(v)}" for e, v in self.points)
        if self.curve == "warmup":
            return f"warmup {_num(self.start)} -> {_num(self.end)} over {self.finish} epochs"
        finish = "the last" if self.finish is None else str(self.finish)
        return (
            f"{self.curve} {_num(self.start)} -> {_num(self.end)} "
            f"from epoch {self.begin} to {finish}"
        )

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"curve": self.curve}
        if self.curve in self._TABLES:
            out["points"] = [[epoch, value] for epoch, value in self.points]
            return out
        out["start"] = self.start
        if self.curve != "constant":
            out["end"] = self.end
        if self.begin and self.curve in ("linear", "cosine"):
            out["begin"] = self.begin
        if self.finish is not None:
            out["finish"] = self.finish
        return out


def _points(points: Iterable[tuple[int, float]]) -> tuple[tuple[int, float], ...]:
    return tuple(sorted((int(epoch), float(value)) for epoch, value in points))


def _num(value: float) -> str:
    return f"{value:g}"


@dataclass(frozen=True)
class ScheduleTarget:
    """The number a schedule drives: node `node`'s argument `arg` (its constant, or with
    `bound` that parameter of its random draw), or with `arg` None the node's apply
    probability. Written ``rotate.angle``, ``rotate.angle.high``, ``flip.apply``."""

    node: str
    arg: str | None = None
    bound: str | None = None

    def __str__(self) -> str:
        if self.arg is None:
            return f"{self.node}.{APPLY}"
        return f"{self.node}.{self.arg}" + (f".{self.bound}" if self.bound else "")

    @classmethod
    def parse(cls, text: str) -> ScheduleTarget:
        """``"rotate.angle"``, ``"rotate.angle.high"`` or ``"flip.apply"``. Node names hold no
        dot (their ids are Python-like names), so the text splits unambiguously."""
        parts = text.split(".")
        if len(parts) == 2 and parts[1] == APPLY:
            return cls(parts[0])
        if len(parts) == 2 and all(parts):
            return cls(parts[0], parts[1])
        if len(parts) == 3 and all(parts) and parts[2] in BOUNDS:
            return cls(parts[0], parts[1], parts[2])
        raise ValueError(
            f"{text!r} is not a schedule target; write 'node.argument' for a constant, "
            f"'node.argument.bound' for a draw's parameter ({', '.join(BOUNDS)}) or "
            f"'node.{APPLY}' for a node's apply probability"
        )

    def with_node(self, node: str) -> ScheduleTarget:
        return ScheduleTarget(node, self.arg, self.bound)
