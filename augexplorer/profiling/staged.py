"""The two ways a profile runs a graph: step by step (one synchronous DALI pipeline per step, each
timed alone) and fused (the whole graph as one DALI pipeline, as an exported module runs it).

Both read the same batches in the same order: the staged graph's source runners and the fused
pipeline's readers are built from the same plan and seeds, and array sources are fed from the
same position, so the two timings cover the same images.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

import numpy as np

from ..builder import build_pipeline
from ..data import SourceData
from ..engine.runners import SYNC_PIPELINE, SourceRunner
from ..plan import Plan
from .runner import ProfileRunner


class StagedGraph:
    """Every step of a plan as its own synchronous pipeline, built once and re-run.

    Random steps are built once too: the engine rebuilds them to replay the same draws, but a
    profile only needs their cost, which does not depend on the values drawn. Each step that
    reads inputs has a harness twin (see :mod:`.runner`) that measures what feeding costs.
    """

    def __init__(
        self,
        plan: Plan,
        data: Mapping[str, SourceData],
        *,
        device_id: int | None,
        num_threads: int,
    ) -> None:
        self.plan = plan
        batch_size = plan.spec.batch_size
        self.sources: dict[str, SourceRunner] = {}
        self.runners: dict[str, ProfileRunner] = {}
        self.harnesses: dict[str, ProfileRunner] = {}
        for step in plan.steps:
            if step.role == "source":
                self.sources[step.id] = SourceRunner(
                    step,
                    data[step.id],
                    batch_size=batch_size,
                    device_id=device_id,
                    num_threads=num_threads,
                )
                continue
            options: dict[str, Any] = {
                "batch_size": batch_size,
                "device_id": device_id,
                "num_threads": num_threads,
                "input_devices": tuple(plan.step(ref.node).device for ref in step.inputs),
            }
            self.runners[step.id] = ProfileRunner(step, **options)
            if step.upstream():  # a step that reads nothing has nothing fed to measure
                self.harnesses[step.id] = ProfileRunner(step, harness=True, **options)

    def run(self) -> tuple[dict[str, float], dict[str, float]]:
        """Run the next batch through every step; returns each step's milliseconds, and the
        milliseconds of its harness (the same inputs fed to an empty pipeline, run right after).

        `Pipeline.run()` without a CUDA stream returns host-synchronous outputs, so a GPU step's
        time includes the completion of its work.
        """
        outputs: dict[str, list[Any]] = {}
        times: dict[str, float] = {}
        harness: dict[str, float] = {}
        for step in self.plan.steps:
            if step.role == "source":
                outputs[step.id], times[step.id] = self.sources[step.id].run()
                continue
            inputs = [outputs[ref.node][ref.output] for ref in step.inputs]
            arg_inputs = {
                name: outputs[ref.node][ref.output] for name, ref in step.arg_inputs.items()
            }
            predicate = outputs[step.apply.node][step.apply.output] if step.apply else None
            outputs[step.id], times[step.id] = self.runners[step.id].run(
                inputs, arg_inputs, predicate
            )
            empty = self.harnesses.get(step.id)
            harness[step.id] = empty.run(inputs, arg_inputs, predicate)[1] if empty else 0.0
        return times, harness


class FusedGraph:
    """The whole plan as one DALI pipeline from :func:`~augexplorer.builder.build_pipeline`.

    Run synchronously (no prefetching, no asynchronous or pipelined execution) so one call of
    :meth:`run` is the time of exactly one batch, comparable with :meth:`StagedGraph.run`.
    """

    def __init__(
        self,
        plan: Plan,
        data: Mapping[str, SourceData],
        *,
        device_id: int | None,
        num_threads: int,
        synchronous: bool = True,
    ) -> None:
        self.plan = plan
        self.data = data
        self.batch_size = plan.spec.batch_size
        options = dict(SYNC_PIPELINE) if synchronous else {}
        self.pipeline = build_pipeline(
            plan, data, device_id=device_id, num_threads=num_threads, **options
        )
        self.pipeline.build()
        self._positions = {step.id: 0 for step in plan.steps if step.role == "source"}

    def run(self) -> float:
        """Run one batch; returns milliseconds (array feeding included, as in the staged run)."""
        start = time.perf_counter()
        for step in self.plan.steps:
            if step.role == "source" and self.data[step.id].kind == "arrays":
                self._feed(step.id)
        self.pipeline.run()
        return (time.perf_counter() - start) * 1000.0

    def _feed(self, step_id: str) -> None:
        # the same batches, in the same order, as SourceRunner feeds
        data = self.data[step_id]
        count = len(data.arrays)
        start = self._positions[step_id]
        indices = [(start + i) % count for i in range(self.batch_size)]
        self._positions[step_id] = (start + self.batch_size) % count
        self.pipeline.feed_input(f"{step_id}_images", [data.arrays[i] for i in indices])
        self.pipeline.feed_input(
            f"{step_id}_labels", [np.array([data.labels[i]], dtype=np.int32) for i in indices]
        )
