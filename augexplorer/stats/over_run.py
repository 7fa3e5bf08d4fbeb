"""Statistics across a training run: a graph with schedules counted at several epochs.

Each epoch is counted as :func:`~augexplorer.stats.collect_stats` counts one (same seeds, same
data), so the figures differ from epoch to epoch only as the schedules say: per epoch, the range
the random arguments drew over and how often each apply-with-probability ran, beside the values
the schedules declare there.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..catalog import load_catalog
from ..schedules import check_epoch, epoch_count, rounded_targets, scheduled_values
from ..spec import GraphSpec
from .report import Stats
from .runner import CancelFlag, collect_stats

DEFAULT_POINTS = 5  # epochs counted when none are named: first, last and three between


@dataclass(frozen=True)
class DrawRange:
    """What `node`.`argument` drew at one epoch: its smallest, mean and largest value."""

    node: str
    argument: str
    low: float
    mean: float
    high: float


@dataclass(frozen=True)
class EpochFigures:
    """The figures of one epoch: draws' ranges, rates (node -> ran share) and the values the
    schedules declare there (target text -> value)."""

    epoch: int
    draws: tuple[DrawRange, ...]
    rates: dict[str, float]
    scheduled: dict[str, float]
    stats: Stats = field(repr=False, compare=False)

    def draw(self, node: str, argument: str) -> DrawRange:
        for found in self.draws:
            if (found.node, found.argument) == (node, argument):
                return found
        raise KeyError(f"no draws of {node}.{argument} at epoch {self.epoch}")


@dataclass(frozen=True)
class RunStats:
    """A graph's figures at several epochs of its run."""

    name: str
    epochs: int  # the run's length
    figures: tuple[EpochFigures, ...]

    def at(self, epoch: int) -> EpochFigures:
        return next(f for f in self.figures if f.epoch == epoch)

    def summary(self) -> str:
        """One line per epoch and draw or rate: ``epoch 9: rotate.angle drew -39.8..39.6``."""
        lines = [f"{self.name}: {len(self.figures)} epochs of a run of {self.epochs}"]
        for figures in self.figures:
            parts = [f"{d.node}.{d.argument} {d.low:.3g}..{d.high:.3g}" for d in figures.draws]
            parts += [f"{node} ran {share:.0%}" for node, share in figures.rates.items()]
            lines.append(f"  epoch {figures.epoch}: " + "; ".join(parts))
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "epochs": self.epochs,
            "figures": [
                {
                    "epoch": f.epoch,
                    "draws": [
                        {
                            "node": d.node,
                            "argument": d.argument,
                            "low": d.low,
                            "mean": d.mean,
                            "high": d.high,
                        }
                        for d in f.draws
                    ],
                    "rates": f.rates,
                    "scheduled": f.scheduled,
                }
                for f in self.figures
            ],
        }

    def save_json(self, path: str | Path, *, overwrite: bool = False) -> Path:
        path = Path(path)
        if path.exists() and not overwrite:
            raise FileExistsError(f"{path} exists; pass overwrite=True to replace it")
        path.write_text(json.dumps(self.to_json(), indent=2) + "\n")
        return path


def spread_epochs(spec: GraphSpec, points: int = DEFAULT_POINTS) -> list[int]:
    """`points` epochs spread evenly over the run, its first and last included."""
    last = epoch_count(spec) - 1
    if points <= 1 or last == 0:
        return [0]
    return sorted({round(i * last / (points - 1)) for i in range(points)})


def stats_over_run(
    spec: GraphSpec,
    data: Any = None,
    *,
    epochs: Sequence[int] | None = None,
    batches: int = 4,
    device_id: int | str | None = "auto",
    num_threads: int | None = None,
    cancel: CancelFlag | None = None,
) -> RunStats:
    """`spec` counted over `batches` batches at each of `epochs` (default: five spread over the
    run). Raises :class:`~augexplorer.errors.EpochError` for an epoch the run lacks, before
    anything runs, and what :func:`collect_stats` raises."""
    chosen = list(epochs) if epochs is not None else spread_epochs(spec)
    for epoch in chosen:
        check_epoch(spec, epoch)
    figures = []
    for epoch in chosen:
        if cancel is not None and cancel.is_set():
            break
        stats = collect_stats(
            spec,
            data,
            batches=batches,
            device_id=device_id,
            num_threads=num_threads,
            cancel=cancel,
            epoch=epoch,
        )
        figures.append(_figures(spec, epoch, stats))
    return RunStats(spec.name, epoch_count(spec), tuple(figures))


def _figures(spec: GraphSpec, epoch: int, stats: Stats) -> EpochFigures:
    draws = tuple(
        DrawRange(
            d.node,
            d.argument,
            float(d.moments.min[0]),
            float(d.moments.mean[0]),
            float(d.moments.max[0]),
        )
        for d in stats.draws
        if d.moments.channels
    )
    rates = {
        rate.node: rate.rate
        for rate in stats.rates
        if rate.argument == "probability" and not rate.together_with
    }
    # as the graph ran: a value of an integer argument rounded (augexplorer.schedules)
    rounded = rounded_targets(spec, load_catalog())
    scheduled = {
        str(v.target): round(v.value) if v.target in rounded else v.value
        for v in scheduled_values(spec, epoch)
    }
    return EpochFigures(epoch, draws, rates, scheduled, stats)
