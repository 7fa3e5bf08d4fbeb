"""A synchronous one-step pipeline for profiling, and its empty twin that measures the harness.

Unlike the live engine's runner (which feeds per-sample argument values at run time so an edit
needs no rebuild), this runner makes exactly the DALI call the fused pipeline makes, constants
and all, so the operator costs what it costs in the fused pipeline. Its twin (`harness=True`) has
the same external sources, fed the same data, and returns them untouched: its time is what
feeding inputs and starting a pipeline costs, which the fused pipeline does not pay per operator.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

from ..builder import call_step
from ..engine.runners import SYNC_PIPELINE
from ..plan import Step


class ProfileRunner:
    def __init__(
        self,
        step: Step,
        *,
        batch_size: int,
        device_id: int | None,
        num_threads: int,
        input_devices: Sequence[str],
        harness: bool = False,
    ) -> None:
        from nvidia.dali import fn, pipeline_def

        self.input_names = [f"input_{i}" for i in range(len(step.inputs))]
        self.arg_names = sorted(step.arg_inputs)
        self.has_predicate = step.apply is not None
        devices = ["gpu" if d in ("gpu", "mixed") else "cpu" for d in input_devices]

        options: dict[str, Any] = {
            "batch_size": batch_size,
            "num_threads": num_threads,
            "device_id": device_id,
            "enable_conditionals": self.has_predicate and not harness,
            **SYNC_PIPELINE,
        }

        @pipeline_def(**options)
        def one_step() -> Any:
            inputs = [
                fn.external_source(name=name, device=devices[index])
                for index, name in enumerate(self.input_names)
            ]
            arg_inputs = {name: fn.external_source(name=f"arg_{name}") for name in self.arg_names}
            predicate = fn.external_source(name="predicate") if self.has_predicate else None
            if harness:
                fed = [*inputs, *arg_inputs.values()]
                if predicate is not None:
                    fed.append(predicate)
                return tuple(fed)
            return tuple(call_step(step, inputs, arg_inputs, predicate))

        self.pipeline = one_step()
        self.pipeline.build()

    def run(
        self, inputs: Sequence[Any], arg_inputs: Mapping[str, Any], predicate: Any = None
    ) -> tuple[list[Any], float]:
        """Feed, run, and return (outputs, milliseconds). `Pipeline.run()` without a CUDA stream
        returns host-synchronous outputs, so the time covers a GPU operator's completion."""
        start = time.perf_counter()
        for name, data in zip(self.input_names, inputs, strict=True):
            self.pipeline.feed_input(name, data)
        for name in self.arg_names:
            self.pipeline.feed_input(f"arg_{name}", arg_inputs[name])
        if self.has_predicate:
            self.pipeline.feed_input("predicate", predicate)
        outputs = list(self.pipeline.run())
        return outputs, (time.perf_counter() - start) * 1000.0
