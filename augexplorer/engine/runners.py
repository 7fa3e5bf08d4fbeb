"""Small DALI pipelines that each run one step on inputs fed from the cache.

A step runner is a synchronous pipeline (no prefetching) whose inputs are `external_source`
nodes, so the engine can re-run one operator on cached upstream outputs and time it alone.
"""

from __future__ import annotations

import dataclasses
import re
import time
from collections.abc import Mapping, Sequence
from typing import Any

from ..builder import call_source, call_step
from ..data import SourceData
from ..plan import Step

# Synchronous, no prefetching: one run() is one batch through one step, which makes its time
# honest. exec_dynamic must be explicit: without it these settings select DALI's older executor,
# which recycles output buffers on the next run and would silently change cached results.
SYNC_PIPELINE: dict[str, Any] = {
    "prefetch_queue_depth": 1,
    "exec_async": False,
    "exec_pipelined": False,
    "exec_dynamic": True,
}


_FED_DTYPES = {
    "FLOAT": "float32",
    "FLOAT64": "float64",
    "INT32": "int32",
    "INT64": "int64",
    "UINT8": "uint8",
    "UINT32": "uint32",
    "BOOL": "bool",
}


def fed_args(step: Step) -> tuple[str, ...]:
    """Constant arguments the runner feeds at run time instead of baking into the pipeline.

    Per-sample (tensor) arguments can be fed through `external_source` each run, so editing
    their value re-uses the built pipeline: the common case of dragging a slider costs one run,
    not a rebuild.
    """
    if step.info is None:
        return ()
    names = []
    for name, value in step.args.items():
        arg = step.info.arg(name)
        # Scalars only: a vector constant and a per-sample tensor of the same numbers do not
        # always mean the same to DALI (warp_affine reads a fed matrix as 2x3, a constant as 6).
        if arg is None or not arg.per_sample or arg.kind not in _FED_DTYPES or arg.is_vector:
            continue
        if isinstance(value, (list, tuple)):
            continue
        names.append(name)
    return tuple(sorted(names))


def fed_values(step: Step, names: Sequence[str], batch_size: int) -> dict[str, list[Any]]:
    """One array per sample for each fed argument, in the argument's exact DALI dtype."""
    import numpy as np

    assert step.info is not None
    values: dict[str, list[Any]] = {}
    for name in names:
        arg = step.info.arg(name)
        assert arg is not None
        array = np.asarray(step.args[name], dtype=_FED_DTYPES[arg.kind])
        values[name] = [array] * batch_size
    return values


_STRUCTURE_DIGESTS: dict[str, tuple[str, tuple[str, ...]]] = {}


def structure_key(step: Step, input_devices: Sequence[str], batch_size: int) -> tuple[Any, ...]:
    """What a built runner depends on: the step without the values of its fed arguments."""
    known = _STRUCTURE_DIGESTS.get(step.digest)
    if known is None:
        names = fed_args(step)
        structural = dataclasses.replace(
            step, args={k: v for k, v in step.args.items() if k not in names}
        )
        known = (structural.signature(), names)
        if len(_STRUCTURE_DIGESTS) > 4096:  # a bounded memo: drop it all rather than grow
            _STRUCTURE_DIGESTS.clear()
        _STRUCTURE_DIGESTS[step.digest] = known
    return (*known, tuple(input_devices), batch_size)


class StepRunner:
    """Runs one operator step; built once, re-used while its structure and input devices stay."""

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

        self.batch_size = batch_size
        self.input_names = [f"input_{i}" for i in range(len(step.inputs))]
        self.arg_names = sorted(step.arg_inputs)
        self.fed = fed_args(step)
        structural = dataclasses.replace(
            step, args={k: v for k, v in step.args.items() if k not in self.fed}
        )

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
            for name in self.fed:
                arg_inputs[name] = fn.external_source(name=f"value_{name}")
            predicate = fn.external_source(name="predicate") if step.apply is not None else None
            return tuple(call_step(structural, inputs, arg_inputs, predicate))

        self.pipeline = one_step()
        self.pipeline.build()

    def run(
        self,
        step: Step,
        inputs: Sequence[Any],
        arg_inputs: Mapping[str, Any],
        predicate: Any = None,
    ) -> tuple[list[Any], float]:
        """Feed cached TensorLists and `step`'s argument values, run; (outputs, milliseconds)."""
        start = time.perf_counter()
        for name, data in zip(self.input_names, inputs, strict=True):
            self.pipeline.feed_input(name, data)
        for name in self.arg_names:
            self.pipeline.feed_input(f"arg_{name}", arg_inputs[name])
        for name, values in fed_values(step, self.fed, self.batch_size).items():
            self.pipeline.feed_input(f"value_{name}", values)
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
# A line of a Python traceback that DALI quotes from the pipeline definition (not a DALI message
# that happens to start with "File", such as "File mapping failed: <path>").
_TRACEBACK_LINE = re.compile(r'^(File ".*", line \d+|Traceback \(most recent call last\)|\^+$)')
_ASSERT = re.compile(r'Assert on "[^"]*" failed:\s*')
_TYPE_MISMATCH = re.compile(
    r"Calling type does not match buffer data type, requested type: (\w+) current buffer type: "
    r"(\w+)\.?( To set type for the Buffer [^\n]*?first\.)?"
)
_CODEC_FAILURE = re.compile(r"nvImageCodec failure: '#(\d+)'")
# nvImageCodec's status codes (nvimgcodecStatus_t) that a bad file or a full device produces.
_CODEC_STATUS = {
    2: "the data is not an image (invalid parameter)",
    3: "the image data is corrupt (bad code stream)",
    4: "the data is not an image format DALI can decode",
    5: "out of memory while decoding",
    13: "the image data is corrupt (bad code stream)",
    14: "the data is not an image format DALI can decode",
    15: "out of memory while decoding",
    19: "the image data is truncated",
}
_OUT_OF_MEMORY = re.compile(
    r"CUDA allocation failed|Can't allocate \d+ bytes on device|out of memory|"
    r"CUDA_ERROR_OUT_OF_MEMORY|cudaErrorMemoryAllocation|ALLOCATOR_FAILURE|std::bad_alloc|"
    r"nvImageCodec failure: '#(5|15)'",
    re.I,
)


def clean_dali_message(text: str) -> str:
    """The part of a DALI error a person needs: what failed, without C++ context or Python
    tracebacks of the pipeline definition."""
    if "encountered:" in text:
        text = text.split("encountered:", 1)[1]
    text = _NOISE.sub("", text)
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    lines = [line for line in lines if not _TRACEBACK_LINE.match(line)]
    message = " ".join(lines)
    message = re.sub(r"^Error (in|when executing) \w+ operator `[^`]+`[^:]*:?\s*", "", message)
    message = _ASSERT.sub("", message)
    message = _TYPE_MISMATCH.sub(
        lambda m: f"got {m.group(2)} data where {m.group(1)} is expected", message
    )
    message = _CODEC_FAILURE.sub(
        lambda m: _CODEC_STATUS.get(int(m.group(1)), f"image decoding failed (code {m.group(1)})"),
        message,
    )
    return message[:600] or "DALI reported an error without a message"


def is_out_of_memory(text: str) -> bool:
    """Whether a DALI error says that a (GPU or host) allocation failed."""
    return bool(_OUT_OF_MEMORY.search(text))


def suggest_fix(text: str, *, batch_size: int) -> str | None:
    """What to do about a DALI run error, when its message says (None when it does not)."""
    if is_out_of_memory(text):
        if batch_size > 1:
            smaller = max(1, batch_size // 2)
            return (
                f"the batch of {batch_size} does not fit in memory: lower the batch size to "
                f"{smaller} (session.set_batch_size({smaller})), or use smaller images"
            )
        return "one image does not fit in memory: resize the images first, or run on the CPU"
    if "data where" in text and "is expected" in text:
        return "feed this argument from a node whose output has the expected type"
    if "should have" in text and "elements" in text:
        return "give the argument as many values as the error says"
    if "must be provided" in text:
        return "give the argument the error names a value"
    return None
