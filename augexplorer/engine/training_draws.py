"""What the random steps draw at a later batch, as training draws it.

A random operator keeps its generator's state from one batch to the next: the exported pipeline's
second batch draws other values than its first. The live engine rebuilds a random step before
each run (so an edit shows only its own effect), which gives the first batch's draws; on a later
batch the session takes the random steps' outputs from here instead: one fused pipeline of the
random steps and everything they read (DALI builds only what its outputs need), run from the
first batch up to the one shown. The pipeline is kept and moves forward with "next batch"; an
edit of anything the random steps read replays it from the first batch.

A noise or crop operator draws as many values as its input asks for, so the replay runs the
steps the random ones read as well: their state at batch k is that of the training pipeline.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..builder import define_graph
from ..data import SourceData
from ..plan import Plan, Step
from .dali_builds import engine_build
from .runners import SYNC_PIPELINE, array_batch, flatten_outputs


def replayed_steps(plan: Plan, is_random: Any) -> tuple[Step, ...]:
    """The steps whose outputs come from the replay on a later batch: each random step, and
    every step of a conditional block holding one (the block runs as one group)."""
    chosen = {step.id for step in plan.steps if is_random(step)}
    for block in plan.blocks.values():
        if any(step.id in chosen for step in block.steps):
            chosen.update(step.id for step in block.steps)
    return tuple(step for step in plan.steps if step.id in chosen)


class TrainingDraws:
    """The replay of one plan's random steps; :meth:`at` gives their outputs at a batch."""

    def __init__(
        self,
        plan: Plan,
        data: Mapping[str, SourceData],
        steps: Sequence[Step],
        *,
        key: Any,
        device_id: int | None,
        num_threads: int,
    ) -> None:
        from nvidia.dali import pipeline_def
        from nvidia.dali.pipeline import do_not_convert

        self.key = key
        self.batch_size = plan.spec.batch_size
        # only the arrays the random steps read (images, labels): DALI leaves out the others,
        # and feeding an input it left out fails
        needed = plan.with_inputs(steps)
        arrays = {s.id for s in needed if s.role == "source" and data[s.id].kind == "arrays"}
        self._fed = {
            (ref.node, ref.output)
            for step in needed
            for ref in step.upstream()
            if ref.node in arrays
        }
        self._arrays = {source_id: data[source_id] for source_id in arrays}
        self._array_steps = {s.id: s for s in needed if s.id in arrays}
        self._counts: list[tuple[str, int]] = []
        options: dict[str, Any] = {
            "batch_size": self.batch_size,
            "num_threads": num_threads,
            "device_id": device_id,
            "enable_conditionals": plan.uses_conditionals,
            **SYNC_PIPELINE,
        }

        @pipeline_def(**options)
        def replay() -> tuple[Any, ...]:
            # only what the random steps read: a python_function elsewhere would run (DALI
            # keeps it for its side effects) and read inputs nobody feeds here
            nodes = define_graph(plan, data, only={step.id for step in needed})
            self._counts.extend((step.id, len(nodes[step.id])) for step in steps)
            # not converted by autograph: a block's inner outputs, made in its branch, are
            # returned as they are (as StepGroupRunner returns them)
            return do_not_convert(flatten_outputs)([nodes[step.id] for step in steps])

        with engine_build():
            self.pipeline = replay()
            self.pipeline.build()
        self.position = 0  # batches run so far
        self._outputs: dict[str, list[Any]] = {}

    def at(self, batch_index: int) -> dict[str, list[Any]] | None:
        """The replayed steps' outputs, by step id, at batch `batch_index`; None when the replay
        has already gone past it (build a new one)."""
        if batch_index < self.position - 1:
            return None
        while self.position <= batch_index:
            self._run_once()
        return self._outputs

    def _run_once(self) -> None:
        for source_id, data in self._arrays.items():
            images, labels = array_batch(
                data, self.batch_size, self.position, self._array_steps[source_id]
            )
            if (source_id, 0) in self._fed:
                self.pipeline.feed_input(f"{source_id}_images", images)
            if (source_id, 1) in self._fed:
                self.pipeline.feed_input(f"{source_id}_labels", labels)
        outputs = list(self.pipeline.run())
        self._outputs, position = {}, 0
        for step_id, count in self._counts:
            self._outputs[step_id] = outputs[position : position + count]
            position += count
        self.position += 1


def replay_key(plan: Plan, steps: Sequence[Step], extra: Any) -> Any:
    """What a replay depends on: which steps it gives, and they and everything they read
    (compared by value; an unchanged step is the same object from one plan to the next), plus
    `extra`."""
    return (
        tuple(step.id for step in steps),
        plan.with_inputs(steps),
        plan.spec.batch_size,
        extra,
    )
