"""A profile's figures and the ways to show them: a dict for JSON, a text table, a bar chart."""

from __future__ import annotations

import json
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

OVERLAP_NOTE = (
    "DALI overlaps operators inside one pipeline, so the sum of the per-operator times is an "
    "upper bound of the fused pipeline's time; the gap is what fusing saves."
)

# From this share of time spent waiting for a core, a profile's wall-clock times say more about
# the other programs on the machine than about the operators.
SHARED_CORES = 0.1


@dataclass(frozen=True)
class NodeTiming:
    """One user node: its operator, device and the time it took per batch in every repeat.

    A node's samples include its random draws and coin flip (the steps it owns, run in the same
    pipeline as the node), since they are part of what the node costs. Each sample is the node
    pipeline's time less its harness (the same inputs fed to an empty pipeline in the same
    repeat): the fused pipeline does not feed its operators, so that cost is measured and taken
    out, never estimated.
    """

    node: str
    op: str
    device: str
    samples_ms: tuple[float, ...]  # the operator alone: raw time less the harness, per repeat
    steps: tuple[str, ...] = ()
    harness_ms: tuple[float, ...] = ()  # feeding inputs and starting a pipeline, per repeat
    cpu_samples_ms: tuple[float, ...] = ()  # the process's CPU time, less the harness's

    @property
    def median_ms(self) -> float:
        return statistics.median(self.samples_ms)

    @property
    def cpu_median_ms(self) -> float:
        return statistics.median(self.cpu_samples_ms) if self.cpu_samples_ms else 0.0

    @property
    def harness_median_ms(self) -> float:
        return statistics.median(self.harness_ms) if self.harness_ms else 0.0


@dataclass(frozen=True)
class Profile:
    """Per-operator times of one graph, and the whole graph's time as one fused pipeline.

    Every time is for one batch of `batch_size` images, measured after `warmup` unmeasured runs
    and summarised by the median of `repeats` runs. Wall-clock times are the headline; CPU times
    (the process's, all threads) sit beside them: on a machine whose cores other programs share,
    wall time includes waiting for a core and CPU time does not. CPU time leaves out work done
    on a GPU.
    """

    name: str
    device: str  # "cpu", "gpu" or "mixed" placement that was profiled
    batch_size: int
    num_threads: int
    repeats: int
    warmup: int
    rows: tuple[NodeTiming, ...]
    fused_samples_ms: tuple[float, ...]
    extra: dict[str, Any] = field(default_factory=dict)
    fused_cpu_samples_ms: tuple[float, ...] = ()
    attempts: int = 1  # runs of each batch per side; each sample is the fastest of them
    # share of the timed runs' runnable thread time spent waiting for a core (None: not known)
    waited_for_cpu: float | None = None
    # share of the cores' time the hypervisor gave to other machines meanwhile (None: not known)
    stolen_by_host: float | None = None

    # ---- figures ----------------------------------------------------------------------------
    @property
    def operator_sum_ms(self) -> float:
        """Sum of the nodes' median times: one batch with every operator run on its own."""
        return sum(row.median_ms for row in self.rows)

    @property
    def fused_ms(self) -> float:
        return statistics.median(self.fused_samples_ms)

    @property
    def images_per_s(self) -> float:
        """Throughput of the fused pipeline run synchronously (no prefetching)."""
        return self.batch_size * 1000.0 / self.fused_ms

    @property
    def harness_ms(self) -> float:
        """Median per batch of the harness cost subtracted from the steps, all steps together."""
        return sum(row.harness_median_ms for row in self.rows)

    @property
    def operator_sums_ms(self) -> list[float]:
        """Per repeat: every node's time summed (the staged run of that repeat's batch)."""
        return [sum(row.samples_ms[i] for row in self.rows) for i in range(self.repeats)]

    @property
    def sum_to_fused(self) -> float:
        """Median over repeats of (operators summed) / (fused pipeline), each repeat pairing the
        staged and the fused run of the same batch, so batch-to-batch and machine noise cancel."""
        pairs = zip(self.operator_sums_ms, self.fused_samples_ms, strict=True)
        return statistics.median(total / fused for total, fused in pairs)

    @property
    def operator_cpu_sum_ms(self) -> float:
        return sum(row.cpu_median_ms for row in self.rows)

    @property
    def fused_cpu_ms(self) -> float:
        return statistics.median(self.fused_cpu_samples_ms) if self.fused_cpu_samples_ms else 0.0

    @property
    def cpu_sum_to_fused(self) -> float:
        """:attr:`sum_to_fused` on the CPU-time clock: how far the nodes' work, measured one by
        one, is from the fused pipeline's work on the same batch, whatever else the machine
        runs (NaN when no CPU times were taken)."""
        if not self.fused_cpu_samples_ms:
            return float("nan")
        sums = [sum(row.cpu_samples_ms[i] for row in self.rows) for i in range(self.repeats)]
        pairs = zip(sums, self.fused_cpu_samples_ms, strict=True)
        return statistics.median(total / fused for total, fused in pairs if fused > 0)

    def share(self, row: NodeTiming) -> float:
        """A node's part of the per-operator total (0-1)."""
        total = self.operator_sum_ms
        return row.median_ms / total if total > 0 else 0.0

    def row(self, node: str) -> NodeTiming:
        for row in self.rows:
            if row.node == node:
                return row
        raise KeyError(f"no node {node!r} in the profile; nodes: {', '.join(self.nodes)}")

    @property
    def nodes(self) -> list[str]:
        return [row.node for row in self.rows]

    # ---- output -----------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        """Everything measured, JSON-typed (samples included, so figures can be re-derived)."""
        return {
            "format": "augexplorer.profile",
            "version": 1,
            "graph": self.name,
            "device": self.device,
            "batch_size": self.batch_size,
            "num_threads": self.num_threads,
            "repeats": self.repeats,
            "warmup": self.warmup,
            "attempts": self.attempts,
            "nodes": [
                {
                    "node": row.node,
                    "op": row.op,
                    "device": row.device,
                    "steps": list(row.steps),
                    "median_ms": row.median_ms,
                    "share": self.share(row),
                    "samples_ms": list(row.samples_ms),
                    "harness_ms": list(row.harness_ms),
                    "cpu_median_ms": row.cpu_median_ms,
                    "cpu_samples_ms": list(row.cpu_samples_ms),
                }
                for row in self.rows
            ],
            "operator_sum_ms": self.operator_sum_ms,
            "fused": {
                "median_ms": self.fused_ms,
                "samples_ms": list(self.fused_samples_ms),
                "images_per_s": self.images_per_s,
                "cpu_median_ms": self.fused_cpu_ms,
                "cpu_samples_ms": list(self.fused_cpu_samples_ms),
                "mode": "one pipeline from build_pipeline, synchronous (no prefetch)",
            },
            "operator_sums_ms": self.operator_sums_ms,
            "harness_ms": self.harness_ms,
            "sum_to_fused": self.sum_to_fused,
            "operator_cpu_sum_ms": self.operator_cpu_sum_ms,
            "cpu_sum_to_fused": self.cpu_sum_to_fused,
            "waited_for_cpu": self.waited_for_cpu,
            "stolen_by_host": self.stolen_by_host,
            "note": OVERLAP_NOTE,
            **self.extra,
        }

    def dumps(self) -> str:
        return json.dumps(self.to_json(), indent=2) + "\n"

    def table(self) -> str:
        """A plain-text table: operator, device, ms per batch, share of total."""
        header = ("node", "operator", "device", "ms/batch", "share", "cpu ms")
        body = [
            (
                row.node,
                row.op,
                row.device,
                f"{row.median_ms:.2f}",
                f"{100 * self.share(row):.1f}%",
                f"{row.cpu_median_ms:.2f}",
            )
            for row in self.rows
        ]
        footer = [
            (
                "sum of operators",
                "",
                "",
                f"{self.operator_sum_ms:.2f}",
                "100.0%",
                f"{self.operator_cpu_sum_ms:.2f}",
            ),
            (
                "fused pipeline",
                "build_pipeline",
                self.device,
                f"{self.fused_ms:.2f}",
                "",
                f"{self.fused_cpu_ms:.2f}",
            ),
            (
                "sum / fused",
                "(median of per-batch ratios)",
                "",
                f"{self.sum_to_fused:.2f}",
                "",
                f"{self.cpu_sum_to_fused:.2f}",
            ),
        ]
        rows = [header, *body, *footer]
        widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
        right = {3, 4, 5}

        def line(cells: tuple[str, ...]) -> str:
            return "  ".join(
                cell.rjust(widths[i]) if i in right else cell.ljust(widths[i])
                for i, cell in enumerate(cells)
            ).rstrip()

        rule = "  ".join("-" * w for w in widths)
        title = (
            f"{self.name}: batch of {self.batch_size}, {self.num_threads} threads, "
            f"median of {self.repeats} runs after {self.warmup} warm-up"
            + (f", each the fastest of {self.attempts}" if self.attempts > 1 else "")
        )
        lines = [title, line(header), rule, *map(line, body), rule, *map(line, footer)]
        lines.append(f"fused pipeline: {self.images_per_s:.1f} images/s (synchronous, no prefetch)")
        lines.append(
            f"each node ran in its own pipeline, with its random draws; feeding it and starting "
            f"the pipeline ({self.harness_ms:.2f} ms per batch in all, measured with empty "
            f"pipelines on the same inputs) is subtracted."
        )
        lines.append(
            "cpu ms: the process's CPU time (all threads), steadier than wall time when other "
            "programs share the cores; it leaves out work done on a GPU."
        )
        if self.waited_for_cpu is not None and self.waited_for_cpu >= SHARED_CORES:
            lines.append(
                f"the threads waited for a core {100 * self.waited_for_cpu:.0f}% of the time "
                f"they were ready to run (other programs, or more threads than cores), so wall "
                f"times are inflated; compare cpu ms."
            )
        if self.stolen_by_host is not None and self.stolen_by_host >= SHARED_CORES:
            lines.append(
                f"the host gave {100 * self.stolen_by_host:.0f}% of the cores' time to other "
                f"virtual machines, so wall times are inflated; compare cpu ms."
            )
        lines.append(OVERLAP_NOTE)
        return "\n".join(lines)

    def chart(self) -> Any:
        """A horizontal bar chart of the nodes' times (a matplotlib Figure)."""
        from .chart import profile_chart

        return profile_chart(self)

    def save_chart(self, path: str | Path, *, overwrite: bool = False) -> Path:
        """Write the chart as a PNG."""
        from ..files import atomic_write_bytes
        from .chart import figure_png

        return atomic_write_bytes(Path(path), figure_png(self.chart()), overwrite=overwrite)
