"""Is the model starved? A loader's rate against a training step's, each measured alone, and the
two together as a training loop runs them.

A loader matters only while the model waits for it: if a training step consumes images faster
than the loader delivers them, the difference is time the model (the GPU, in a real job) sits
idle. Measured apart, the two rates say which one limits; measured together they say how much
the two overlap on this machine (on a CPU-only machine they share the same cores).
"""

from __future__ import annotations

import dataclasses
import os
import statistics
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..spec import GraphSpec

Step = Callable[[Any, Any], None]  # one training step on (images, labels) tensors


@dataclass(frozen=True)
class Rate:
    """Images per second from timed batches (a warm-up not counted)."""

    batch_size: int
    batch_ms: tuple[float, ...]  # each timed batch, in the order measured

    @property
    def median_ms(self) -> float:
        return statistics.median(self.batch_ms)

    @property
    def images_per_s(self) -> float:
        return 1000.0 * self.batch_size / self.median_ms

    @property
    def spread(self) -> tuple[float, float]:
        """The slowest and the fastest batch, in images per second."""
        per_ms = 1000.0 * self.batch_size
        return per_ms / max(self.batch_ms), per_ms / min(self.batch_ms)

    def describe(self) -> str:
        slowest, fastest = self.spread
        return f"{self.images_per_s:8.1f} images/s (batches {slowest:.1f} to {fastest:.1f})"


@dataclass(frozen=True)
class Starvation:
    """The loader alone, the training step alone, and both in one loop, in images per second."""

    loader: Rate
    step: Rate
    together: Rate
    device: str  # where all three ran: "cpu" here

    @property
    def waiting_share(self) -> float:
        """The share of the time the step would wait for data with perfect overlap (the loader
        preparing the next batch while the step runs): 0 when the loader keeps up."""
        return max(0.0, 1.0 - self.loader.images_per_s / self.step.images_per_s)

    @property
    def overlapped_images_per_s(self) -> float:
        """Both sides running at once, each at its own rate: the slower one sets the pace."""
        return min(self.loader.images_per_s, self.step.images_per_s)

    @property
    def serial_images_per_s(self) -> float:
        """One side after the other, no overlap at all: the times per image add up."""
        return 1.0 / (1.0 / self.loader.images_per_s + 1.0 / self.step.images_per_s)

    def summary(self) -> str:
        l_rate, s_rate = self.loader.images_per_s, self.step.images_per_s
        (l_low, l_high), (s_low, s_high) = self.loader.spread, self.step.spread
        if l_low <= s_high and s_low <= l_high:  # the batches' ranges overlap: no verdict
            limit = (
                "too close to call: the two sides' batches overlap (loader "
                f"{l_low:.1f} to {l_high:.1f}, step {s_low:.1f} to {s_high:.1f} images/s); "
                "measure more batches, or on a quieter machine"
            )
        elif l_rate < s_rate:
            limit = (
                f"the step waits for data {self.waiting_share:.0%} of the time: the loader limits"
            )
        else:
            limit = "the loader keeps up: the step limits"
        return "\n".join(
            [
                f"measured on the {self.device.upper()}, batches of {self.loader.batch_size}, "
                "medians",
                f"loader alone:        {self.loader.describe()}",
                f"training step alone: {self.step.describe()}",
                f"  {limit}",
                f"both in one loop:    {self.together.describe()}",
                f"  if they overlapped fully: {self.overlapped_images_per_s:8.1f} images/s "
                "(the slower one's rate)",
                f"  one after the other:      {self.serial_images_per_s:8.1f} images/s",
            ]
        )

    def overlap(self) -> str:
        """Which bound the measured loop is nearer to, or that it lies outside both (the
        machine's load changed between the measurements)."""
        together = self.together.images_per_s
        fast, slow = self.overlapped_images_per_s, self.serial_images_per_s
        if together > 1.1 * fast or together < slow / 1.1:
            return (
                f"the loop ran at {together:.1f} images/s, outside both bounds ({slow:.1f} to "
                f"{fast:.1f}): the machine's load changed between the measurements (see the "
                "batches' spread); run it again"
            )
        nearer = (
            "overlapped" if abs(together - fast) < abs(together - slow) else "one after the other"
        )
        return f"the loop ran at {together:.1f} images/s, nearer to the '{nearer}' bound"


def fused_cpu_batches(
    spec: GraphSpec, *, images: int, batch_size: int, threads: int | None = None
) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """The graph's fused DALI pipeline on the CPU, as a training loader runs it (asynchronous,
    prefetching), over `images` of its source's files (looped over as needed); yields each
    batch's (images, labels) as arrays, without end."""
    from ..data import open_source
    from ..engine.session import Session
    from .dali_loaders import fused_pipeline
    from .suite import pipeline_batches

    session = Session(dataclasses.replace(spec, batch_size=batch_size))
    plan = session.plan
    source = next(s for s in plan.steps if s.role == "source" and s.source is not None)
    opened = open_source(source.source, session.arrays)  # type: ignore[arg-type]
    if opened.kind == "arrays":
        raise ValueError("a loader reads image files; in-memory arrays have no files")
    count = max(batch_size, images)
    files = [opened.files[i % len(opened.files)] for i in range(count)]
    labels = [opened.labels[i % len(opened.labels)] for i in range(count)]
    pipeline = fused_pipeline(
        plan,
        files,
        labels,
        batch_size=batch_size,
        num_threads=threads or os.cpu_count() or 1,
        device_id=None,
    )
    for outputs in pipeline_batches(pipeline):
        yield np.asarray(outputs[0].as_array()), np.asarray(outputs[1].as_array()).reshape(-1)


def time_batches(batches: Iterator[Any], count: int, batch_size: int, warmup: int = 1) -> Rate:
    """Pull `warmup` batches untimed, then time `count` more one by one."""
    for _ in range(warmup):
        next(batches)
    times = []
    for _ in range(count):
        start = time.perf_counter()
        next(batches)
        times.append(1000.0 * (time.perf_counter() - start))
    return Rate(batch_size, tuple(times))


def time_steps(step: Step, images: Any, labels: Any, count: int, warmup: int = 3) -> Rate:
    """`step` on one batch already in memory, as if the loader cost nothing. A framework's
    first steps are slow (memory allocated, kernels picked): `warmup` steps are not timed."""
    for _ in range(warmup):
        step(images, labels)
    times = []
    for _ in range(count):
        start = time.perf_counter()
        step(images, labels)
        times.append(1000.0 * (time.perf_counter() - start))
    return Rate(len(images), tuple(times))


def time_fed_steps(
    step: Step,
    batches: Iterator[Any],
    to_tensors: Callable[[Any], Any],
    count: int,
    warmup: int = 3,
) -> Rate:
    """A training loop: each batch pulled from the loader, made tensors, and stepped on."""
    for _ in range(warmup):
        images, labels = to_tensors(next(batches))
        step(images, labels)
    times = []
    for _ in range(count):
        start = time.perf_counter()
        images, labels = to_tensors(next(batches))
        step(images, labels)
        times.append(1000.0 * (time.perf_counter() - start))
    return Rate(len(images), tuple(times))


def measure_starvation(
    spec: GraphSpec,
    step: Step,
    to_tensors: Callable[[Any], Any],
    *,
    batch_size: int = 8,
    batches: int = 6,
    warmup: int = 3,
) -> Starvation:
    """The loader of `spec` alone, `step` alone on one of its batches, and the two in one loop,
    each over `batches` timed batches after `warmup` untimed ones, all on the CPU."""
    loader = fused_cpu_batches(
        spec, images=batch_size * (2 * batches + 2 * warmup + 1), batch_size=batch_size
    )
    loader_rate = time_batches(loader, batches, batch_size, warmup)
    images, labels = to_tensors(next(loader))
    step_rate = time_steps(step, images, labels, batches, warmup)
    together = time_fed_steps(step, loader, to_tensors, batches, warmup)
    return Starvation(loader_rate, step_rate, together, device="cpu")
