"""The two ways a profile runs a graph: node by node (one synchronous DALI pipeline per user node,
each timed alone) and fused (the whole graph as one DALI pipeline, as an exported module runs it).

Both read the same batches in the same order: the staged graph's source runners and the fused
pipeline's readers are built from the same plan and seeds, and array sources are fed from the
same position, so the two timings cover the same images.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from functools import partial
from typing import Any, NamedTuple, TypeVar

import numpy as np

from ..builder import build_pipeline
from ..data import SourceData
from ..engine.dali_builds import engine_build
from ..engine.runners import SYNC_PIPELINE, SourceRunner, StepGroupRunner
from ..plan import Plan, Step

Result = TypeVar("Result")


class Clocks(NamedTuple):
    """One timed run: wall-clock milliseconds, and the process's CPU milliseconds (all its
    threads; DALI's CPU operators run on the pipeline's worker threads). On a machine whose
    cores other programs share, the wall time includes waiting for a core; the CPU time does
    not, so it is the steadier measure of a CPU operator's work."""

    wall_ms: float
    cpu_ms: float


def clocked(run: Callable[[], tuple[Result, float]]) -> tuple[Result, Clocks]:
    """Call `run` (which returns its result and its own wall milliseconds) and add the CPU time
    the process spent meanwhile."""
    start = time.process_time()
    result, wall_ms = run()
    return result, Clocks(wall_ms, (time.process_time() - start) * 1000.0)


class StagedGraph:
    """Every user node of a plan as its own synchronous pipeline, built once and re-run.

    A node's pipeline holds the node's own steps, its random draws and coin flip with it (they
    are part of what the node costs, and a pipeline per tiny draw would add a pipeline's fixed
    cost per draw), with every constant baked in as in the fused pipeline. What the node reads
    from other nodes is fed from the outputs they produced in the same run. Each node that reads
    inputs has a harness twin (an empty pipeline fed the same inputs) that measures what feeding
    and starting the pipeline costs, which the fused pipeline does not pay per node.
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
        devices = {step.id: step.device for step in plan.steps}
        self.sources: dict[str, SourceRunner] = {}
        self.nodes: dict[str, StepGroupRunner] = {}
        self.harnesses: dict[str, StepGroupRunner] = {}
        for origin, steps in node_groups(plan).items():
            if steps[0].role == "source":
                self.sources[origin] = SourceRunner(
                    steps[0],
                    data[steps[0].id],
                    batch_size=batch_size,
                    device_id=device_id,
                    num_threads=num_threads,
                )
                continue
            options: dict[str, Any] = {
                "batch_size": batch_size,
                "device_id": device_id,
                "num_threads": num_threads,
                "input_devices": devices,
            }
            ids = {step.id for step in steps}
            blocks = tuple({id(b): b for b in plan.blocks.values() if b.last.id in ids}.values())
            node = StepGroupRunner(steps, feed_scalars=False, blocks=blocks, **options)
            self.nodes[origin] = node
            if node.external:  # a node that reads nothing has nothing fed to measure
                self.harnesses[origin] = StepGroupRunner(
                    steps, empty=True, blocks=blocks, **options
                )

    def run(self) -> tuple[dict[str, Clocks], dict[str, Clocks]]:
        """Run the next batch through every node; returns each node's times, and the times of
        its harness (the same inputs fed to an empty pipeline, run right after).

        `Pipeline.run()` without a CUDA stream returns host-synchronous outputs, so a GPU node's
        wall time includes the completion of its work.
        """
        outputs: dict[str, list[Any]] = {}
        times: dict[str, Clocks] = {}
        harness: dict[str, Clocks] = {}
        for origin in node_groups(self.plan):
            if origin in self.sources:
                outputs[origin], times[origin] = clocked(self.sources[origin].run)
                harness[origin] = Clocks(0.0, 0.0)
                continue
            node = self.nodes[origin]
            feeds = {ref: outputs[ref.node][ref.output] for ref, _device in node.external}
            made, times[origin] = clocked(partial(node.run, feeds))
            outputs.update(made)
            empty = self.harnesses.get(origin)
            harness[origin] = (
                clocked(partial(empty.run, feeds))[1] if empty is not None else Clocks(0.0, 0.0)
            )
        return times, harness


def node_groups(plan: Plan) -> dict[str, list[Step]]:
    """The plan's steps by user node (their `origin`), in the order the nodes can run: a node
    comes after every node it reads from (its last step, the node's own call, is placed after
    all of them in the plan). The nodes of a conditional block (:mod:`augexplorer.blocks`) are
    one group, under its last node: DALI runs them as one ``if``."""
    in_block = {
        step.origin: block.last.origin for block in plan.blocks.values() for step in block.steps
    }
    groups: dict[str, list[Step]] = {}
    for step in plan.steps:
        groups.setdefault(in_block.get(step.origin, step.origin), []).append(step)
    last = {origin: plan.steps.index(steps[-1]) for origin, steps in groups.items()}
    return {origin: groups[origin] for origin in sorted(groups, key=last.__getitem__)}


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
        with engine_build():  # as the staged runners build (their runners' own)
            self.pipeline = build_pipeline(
                plan, data, device_id=device_id, num_threads=num_threads, **options
            )
            self.pipeline.build()
        self._positions = {step.id: 0 for step in plan.steps if step.role == "source"}

    def run(self) -> Clocks:
        """Run one batch; returns its times (array feeding included, as in the staged run)."""
        return clocked(self._run)[1]

    def _run(self) -> tuple[None, float]:
        start = time.perf_counter()
        for step in self.plan.steps:
            if step.role == "source" and self.data[step.id].kind == "arrays":
                self._feed(step.id)
        self.pipeline.run()
        return None, (time.perf_counter() - start) * 1000.0

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
