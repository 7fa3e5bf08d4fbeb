"""The figures of one statistics run, as a summary for a terminal and as JSON."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .boxes import BoxFlow
from .draws import DrawHistogram
from .fill import FillStats
from .findings import StatsWarning, is_near_unit
from .labels import LabelCounts
from .pixels import OutputStats
from .policies import PolicyStats
from .provenance import Provenance
from .rates import Rate
from .windows import WindowStats


@dataclass
class Stats:
    """What a graph did over `batches` batches of `batch_size` samples."""

    name: str
    batch_size: int
    batches: int  # batches counted (fewer than requested when cancelled)
    requested: int
    seconds: float = 0.0
    cancelled: bool = False
    draws: list[DrawHistogram] = field(default_factory=list)
    rates: list[Rate] = field(default_factory=list)
    outputs: list[OutputStats] = field(default_factory=list)
    fills: list[FillStats] = field(default_factory=list)
    labels: list[LabelCounts] = field(default_factory=list)
    boxes: list[BoxFlow] = field(default_factory=list)  # per geometric node of annotated graphs
    windows: list[WindowStats] = field(default_factory=list)  # crop windows random crops drew
    policies: list[PolicyStats] = field(default_factory=list)  # what auto_aug policies applied
    warnings: list[StatsWarning] = field(default_factory=list)
    # the graph and the data these figures were counted on (None: made by hand, e.g. in tests)
    provenance: Provenance | None = None
    # a whole-dataset run: every image of the source once, the last batch partial, over this
    # many processes (each its shard); None for a run of whole batches
    processes: int | None = None
    # samples counted, where a batch was partial (a whole-dataset run's last, or the reader's
    # padding at an epoch's end left out)
    counted: int | None = None
    # what the sources left out and why (files skipped as bad, folders the folder rule does not
    # read): "every image once" is every image of these
    data_notes: list[str] = field(default_factory=list)

    @property
    def samples(self) -> int:
        return self.counted if self.counted is not None else self.batches * self.batch_size

    @property
    def whole_dataset(self) -> bool:
        return self.processes is not None

    # ---- look-ups -----------------------------------------------------------------------------
    def output(self, ref: str) -> OutputStats | None:
        return next((o for o in self.outputs if o.ref == ref), None)

    def rate(self, node: str, argument: str = "probability", *, nested: bool = False) -> Rate:
        """The rate of `node`'s apply-with-probability (or of a coin-flip argument); with
        `nested`, the rate at which it ran together with the conditional nodes before it."""
        for rate in self.rates:
            if (rate.node, rate.argument, bool(rate.together_with)) == (node, argument, nested):
                return rate
        raise KeyError(f"no rate for node {node!r}, argument {argument!r}")

    def draw(self, node: str, argument: str) -> DrawHistogram:
        for draw in self.draws:
            if (draw.node, draw.argument) == (node, argument):
                return draw
        raise KeyError(f"no random draws for node {node!r}, argument {argument!r}")

    def fill(self, node: str) -> FillStats | None:
        return next((f for f in self.fills if f.node == node), None)

    # ---- output -------------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        return _clean(
            {
                "name": self.name,
                "batch_size": self.batch_size,
                "batches": self.batches,
                "batches_requested": self.requested,
                "samples": self.samples,
                "whole_dataset": self.whole_dataset,
                "processes": self.processes,
                "data_notes": self.data_notes,
                "cancelled": self.cancelled,
                "seconds": self.seconds,
                "warnings": [w.to_json() for w in self.warnings],
                "draws": [d.to_json() for d in self.draws],
                "rates": [r.to_json() for r in self.rates],
                "outputs": [{**o.to_json(), "near_unit": is_near_unit(o)} for o in self.outputs],
                "fill": [f.to_json() for f in self.fills],
                "labels": [c.to_json() for c in self.labels],
                "boxes": [b.to_json() for b in self.boxes],
                "windows": [w.to_json() for w in self.windows],
                "policies": [p.to_json() for p in self.policies],
                **(self.provenance.to_json() if self.provenance is not None else {}),
            }
        )

    def summary(self, warnings: bool = True) -> str:
        """A few lines per section, for a terminal (the warnings left out where they are
        shown apart)."""
        data = f" on {self.provenance.data}" if self.provenance is not None else ""
        counted = f"{self.batches} batches of {self.batch_size}"
        if self.counted is not None and self.processes is None:
            # training's loader drops them on one rank
            counted += ", less the reader's padding at an epoch's end"
        if self.processes is not None:
            over = f" over {self.processes} processes" if self.processes > 1 else ""
            counted = f"every image once{over}, batches of {self.batch_size}"
        lines = [
            f"{self.name}{data}: {self.samples:,} samples ({counted})"
            + (f", cancelled after {self.batches} of {self.requested}" if self.cancelled else "")
        ]
        lines += [f"  data: {note}" for note in self.data_notes]
        if self.warnings and warnings:
            lines.append("warnings:")
            lines += [f"  - {w}" for w in self.warnings]
        if self.rates:
            lines.append("how often it ran (95% interval):")
            for rate in self.rates:
                low, high = rate.interval()
                expected = "" if rate.expected is None else f", declared {rate.expected:g}"
                lines.append(
                    f"  {rate.what}: {rate.successes:,}/{rate.trials:,} = {rate.rate:.3f} "
                    f"[{low:.3f}, {high:.3f}]{expected}"
                )
        if self.draws:
            lines.append("random arguments (drawn mean, std; declared):")
            for draw in self.draws:
                lines.append(
                    f"  {draw.node}.{draw.argument}: mean {_g(draw.moments.mean)}, "
                    f"std {_g(draw.moments.std)}; {draw.declared.describe()}"
                )
        lines += [w.describe() for w in self.windows]
        lines += [p.describe() for p in self.policies]
        lines.append("node outputs (per-channel mean / std, min..max):")
        for output in self.outputs:
            moments = output.moments
            size = ""
            if output.is_image:
                size = (
                    f" {output.heights.mean[0]:.0f}x{output.widths.mean[0]:.0f} "
                    f"(h {output.heights.min[0]:.0f}..{output.heights.max[0]:.0f}, "
                    f"w {output.widths.min[0]:.0f}..{output.widths.max[0]:.0f})"
                )
            lines.append(
                f"  {output.ref} [{output.dtype}{size}]: {_g(moments.mean)} / {_g(moments.std)}, "
                f"{_g(moments.min)}..{_g(moments.max)}" + _clipped(output) + _unit(output)
            )
        for fill in self.fills:
            line = (
                f"  fill after {fill.node}: {fill.mean_share:.1%} on average, "
                f"{fill.mostly_fill} of {fill.samples} samples more than half fill"
            )
            if fill.passed_on() is not None:
                line += (
                    f"; at {fill.reaches}, where the graph passes it on, "
                    f"{fill.reached_mean_share:.1%} on average, {fill.reached_mostly_fill} "
                    "more than half"
                )
            lines.append(line)
        for counts in self.labels:
            for index, column in enumerate(counts.columns):
                shown = ", ".join(
                    f"{counts.name(label)} {count}" for label, count in sorted(column.items())
                )
                prefix = f"column {index}: " if len(counts.columns) > 1 else ""
                noun = "objects" if counts.per_box else "labels"  # a COCO source: per box
                lines.append(f"{noun} ({counts.source}) {prefix}{shown}")
        for flow in self.boxes:
            lines.append(
                f"boxes through {flow.node} ({flow.op}): {flow.boxes_in} in, {flow.boxes_out} "
                f"out ({flow.dropped} dropped), {flow.clipped} clipped by the image border"
            )
        return "\n".join(lines)

    def save_json(self, path: str | Path, *, overwrite: bool = False) -> Path:
        import json

        from ..files import atomic_write_text

        text = json.dumps(self.to_json(), indent=2) + "\n"
        return atomic_write_text(Path(path), text, overwrite=overwrite)

    def save_plot(self, path: str | Path, *, overwrite: bool = False) -> Path:
        """Write the statistics plot (matplotlib, imported only here) as a PNG."""
        from ..files import atomic_write_bytes
        from .plot import figure_png, stats_figure

        return atomic_write_bytes(Path(path), figure_png(stats_figure(self)), overwrite=overwrite)


def _g(values: Any) -> str:
    items = [float(v) for v in values]
    return (
        "[" + ", ".join(f"{v:.3g}" for v in items) + "]" if len(items) != 1 else f"{items[0]:.3g}"
    )


def _clipped(output: OutputStats) -> str:
    low, high = output.low_share, output.high_share
    if low is None or high is None:
        return ""
    return f"; at the ends {low:.1%} / {high:.1%}"


def _unit(output: OutputStats) -> str:
    near = is_near_unit(output)
    if near is None:
        return ""
    return (
        "; normalized: mean near 0, std near 1"
        if near
        else "; NOT normalized: mean or std far from 0 and 1"
    )


def _clean(value: Any) -> Any:
    """JSON without NaN or infinities (strict parsers refuse them): None instead."""
    if isinstance(value, float):
        return None if math.isnan(value) or math.isinf(value) else value
    if isinstance(value, dict):
        return {key: _clean(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(item) for item in value]
    return value
