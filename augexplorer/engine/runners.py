"""Small DALI pipelines that each run one step on inputs fed from the cache.

A step runner is a synchronous pipeline (no prefetching) whose inputs are `external_source`
nodes, so the engine can re-run one operator on cached upstream outputs and time it alone.
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping, Sequence
from typing import Any

from ..builder import call_source, call_step
from ..data import SourceData
from ..plan import Step

SYNC_PIPELINE = {"prefetch_queue_depth": 1, "exec_async": False, "exec_pipelined": False}


class StepRunner:
    """Runs one operator step; built once, re-used while the step and its input devices stay."""

    def __init__(
        self,
        step: Step,
        *,
        batch_size: int,
        device_id: int | None,
        num_threads: int,
        input_devices: Sequence[str],
    ) -> None:
        from nvidia.dali import fn, pipeline_def

        self.step = step
        self.input_names = [f"input_{i}" for i in range(len(step.inputs))]
        self.arg_names = sorted(step.arg_inputs)

        options: dict[str, Any] = {
            "batch_size": batch_size,
            "num_threads": num_threads,
            "device_id": device_id,
            "enable_conditionals": step.apply is not None,
            **SYNC_PIPELINE,
        }

        @pipeline_def(**options)
        def one_step() -> Any:
            # (indexing, not zip: DALI's autograph converts this function and its zip has no
            # `strict` argument)
            inputs = [
                fn.external_source(name=name, device=_external_device(input_devices[index]))
                for index, name in enumerate(self.input_names)
            ]
            arg_inputs = {name: fn.external_source(name=f"arg_{name}") for name in self.arg_names}
            predicate = fn.external_source(name="predicate") if step.apply is not None else None
            return tuple(call_step(step, inputs, arg_inputs, predicate))

        self.pipeline = one_step()
        self.pipeline.build()

    def run(
        self, inputs: Sequence[Any], arg_inputs: Mapping[str, Any], predicate: Any = None
    ) -> tuple[list[Any], float]:
        """Feed cached TensorLists, run, and return (outputs, milliseconds)."""
        start = time.perf_counter()
        for name, data in zip(self.input_names, inputs, strict=True):
            self.pipeline.feed_input(name, data)
        for name in self.arg_names:
            self.pipeline.feed_input(f"arg_{name}", arg_inputs[name])
        if predicate is not None:
            self.pipeline.feed_input("predicate", predicate)
        outputs = list(self.pipeline.run())
        return outputs, (time.perf_counter() - start) * 1000.0


class SourceRunner:
    """Reads batches from a data source; keeps its position so "next batch" moves on."""

    def __init__(
        self,
        step: Step,
        data: SourceData,
        *,
        batch_size: int,
        device_id: int | None,
        num_threads: int,
    ) -> None:
        from nvidia.dali import pipeline_def

        self.step = step
        self.data = data
        self.batch_size = batch_size
        self._array_position = 0

        options: dict[str, Any] = {
            "batch_size": batch_size,
            "num_threads": num_threads,
            "device_id": device_id,
            **SYNC_PIPELINE,
        }

        @pipeline_def(**options)
        def source() -> Any:
            return tuple(call_source(step, data))

        self.pipeline = source()
        self.pipeline.build()

    def run(self) -> tuple[list[Any], float]:
        start = time.perf_counter()
        if self.data.kind == "arrays":
            import numpy as np

            count = len(self.data.arrays)
            indices = [(self._array_position + i) % count for i in range(self.batch_size)]
            self._array_position = (self._array_position + self.batch_size) % count
            self.pipeline.feed_input(
                f"{self.step.id}_images", [self.data.arrays[i] for i in indices]
            )
            self.pipeline.feed_input(
                f"{self.step.id}_labels",
                [np.array([self.data.labels[i]], dtype=np.int32) for i in indices],
            )
        outputs = list(self.pipeline.run())
        return outputs, (time.perf_counter() - start) * 1000.0


def _external_device(device: str) -> str:
    return "gpu" if device in ("gpu", "mixed") else "cpu"


_NOISE = re.compile(
    r"(C\+\+ context:.*|Current pipeline object is no longer valid\.?|Stacktrace \(\d+ entries\):.*)",
    re.S,
)


def clean_dali_message(text: str) -> str:
    """The part of a DALI error a person needs: what failed, without C++ context or Python
    tracebacks of the pipeline definition."""
    if "encountered:" in text:
        text = text.split("encountered:", 1)[1]
    text = _NOISE.sub("", text)
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    lines = [line for line in lines if not line.startswith(("File ", "Traceback", "^"))]
    message = " ".join(lines)
    message = re.sub(r"^Error (in|when executing) \w+ operator `[^`]+`[^:]*:?\s*", "", message)
    return message[:600] or "DALI reported an error without a message"
