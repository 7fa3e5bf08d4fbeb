"""Small DALI pipelines that each run one step on inputs fed from the cache.

A step runner is a synchronous pipeline (no prefetching) whose inputs are `external_source`
nodes, so the engine can re-run one operator on cached upstream outputs and time it alone.
"""

from __future__ import annotations

import dataclasses
import math
import re
import time
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from ..blocks import Block
from ..builder import call_block, call_source, call_step
from ..catalog.fed_shapes import (
    FED_SHAPES,
    INPUT_RANK,
    NOT_FED,
    NOT_FED_ONE_VALUE,
    NOT_FED_WITH,
)
from ..data import SourceData
from ..errors import DataError
from ..plan import Step
from ..spec import Ref
from .dali_builds import engine_build
from .epoch_padding import array_samples, array_shard

# Synchronous, no prefetching: one run() is one batch through one step, which makes its time
# honest. exec_dynamic must be explicit: without it these settings select DALI's older executor,
# which recycles output buffers on the next run and would silently change cached results.
SYNC_PIPELINE: dict[str, Any] = {
    "prefetch_queue_depth": 1,
    "exec_async": False,
    "exec_pipelined": False,
    "exec_dynamic": True,
}


# The DALI types a fed argument can have, and NumPy's name for each (the exported module's
# scheduled values are fed the same way).
FED_DTYPES: dict[str, str] = {
    "FLOAT": "float32",
    "FLOAT64": "float64",
    "INT32": "int32",
    "INT64": "int64",
    "UINT8": "uint8",
    "UINT32": "uint32",
    "BOOL": "bool",
}


_UNSET = object()


def fed_args(step: Step) -> tuple[str, ...]:
    """Constant arguments the runner feeds at run time instead of baking into the pipeline.

    Per-sample (tensor) arguments can be fed through `external_source` each run, so editing
    their value re-uses the built pipeline: the common case of dragging a slider costs one run,
    not a rebuild. Scalars and vectors of numbers both are, each in the shape the operator
    expects (:data:`~augexplorer.catalog.fed_shapes.FED_SHAPES`).
    """
    if step.info is None:
        return ()
    return tuple(sorted(name for name in step.args if feedable(step, name)))


def feedable(step: Step, name: str) -> bool:
    """Whether argument `name` of `step`, with the value the step holds, is fed."""
    arg = step.info.arg(name) if step.info is not None else None
    if arg is None or not arg.per_sample or arg.kind not in FED_DTYPES:
        return False
    if (step.op, name) in NOT_FED:
        return False
    unless = NOT_FED_WITH.get((step.op, name))
    if unless is not None and step.args.get(unless[0]) == unless[1]:
        return False
    value = step.args.get(name)
    if not arg.is_vector:
        return not isinstance(value, (list, tuple))
    # an empty vector stays a constant (DALI reads "no values" as "not given"); a matrix is fed
    # only whole, as the shape it is reshaped to needs
    count = len(value) if isinstance(value, (list, tuple)) else 1
    if count == 1 and (step.op, name) in NOT_FED_ONE_VALUE:
        return False
    shape = FED_SHAPES.get((step.op, name))
    return count > 0 and not (isinstance(shape, tuple) and math.prod(shape) != count)


def fed_source(index: int, name: str) -> str:
    """The external source feeding argument `name` of the group's step number `index`."""
    return f"value_{index}_{name}"


class FedValues:
    """The arrays fed for a group's per-sample constants: each value for every sample, as one
    array whose first dimension is the batch, in the argument's exact DALI dtype and with the
    shape the operator expects per sample (:data:`~augexplorer.catalog.fed_shapes.FED_SHAPES`:
    0-D for a scalar, 1 in every dimension of the input, the vector's values, or those values
    as a matrix). An array is filled again only when its value changes (a slider drag edits one
    argument at a time), and made anew when its shape does (a vector of another length)."""

    def __init__(self, steps: Sequence[Step], fed: Sequence[tuple[str, ...]], batch_size: int):
        import numpy as np

        self.batch_size = batch_size
        # (step index, argument, source name, dtype, its FED_SHAPES entry, the input whose rank
        # it takes or None, whether it is a vector)
        self._inputs: list[tuple[int, str, str, str, Any, Ref | None, bool]] = []
        self._values: list[Any] = []
        for index, (step, names) in enumerate(zip(steps, fed, strict=True)):
            for name in names:
                arg = step.info.arg(name) if step.info is not None else None
                assert arg is not None, f"{step.id}: fed argument {name!r} is not in its schema"
                shape = FED_SHAPES.get((step.op, name))
                rank_of = step.inputs[0] if shape == INPUT_RANK else None
                dtype = FED_DTYPES[arg.kind]
                source = fed_source(index, name)
                self._inputs.append((index, name, source, dtype, shape, rank_of, arg.is_vector))
                self._values.append(_UNSET)
        self.fed = [
            (source, np.empty(batch_size, dtype)) for _, _, source, dtype, *_ in self._inputs
        ]

    def arrays(
        self, steps: Sequence[Step], feeds: Mapping[Ref, Any] | None = None
    ) -> list[tuple[str, Any]]:
        """(source name, array) for every fed argument, filled with the values `steps` hold;
        `feeds` (the group's fed inputs, by reference) give the rank of an input where an
        argument takes it.

        DALI copies what it is fed, so the same arrays are filled again for the next run."""
        values = self._values
        for position, entry in enumerate(self._inputs):
            index, name, source, dtype, shape, rank_of, vector = entry
            value = steps[index].args[name]
            if vector:
                value = tuple(value) if isinstance(value, (list, tuple)) else (value,)
                sample = shape if isinstance(shape, tuple) else (len(value),)
            elif rank_of is not None:
                assert feeds is not None and rank_of in feeds, f"{name}: no input to take a rank"
                sample = (1,) * _rank(feeds[rank_of])
            else:
                sample = ()
            if self.fed[position][1].shape[1:] != sample:
                import numpy as np

                self.fed[position] = (source, np.empty((self.batch_size, *sample), dtype))
                values[position] = _UNSET
            if value is values[position] or (vector and value == values[position]):
                continue
            array = self.fed[position][1]
            if vector:
                array[...] = _as_array(value, dtype).reshape(sample)
            else:
                array.fill(value)
            values[position] = value
        return self.fed


def _as_array(values: Sequence[Any], dtype: str) -> Any:
    import numpy as np

    return np.asarray(values, dtype=dtype)


def _rank(batch: Any) -> int:
    """The number of dimensions of the samples of a fed batch (a TensorList or arrays)."""
    shapes = batch.shape() if callable(getattr(batch, "shape", None)) else [s.shape for s in batch]
    return len(shapes[0]) if len(shapes) else 0


Structure = tuple[str, tuple[str, ...]]  # (signature without fed values, fed argument names)

# Structures worked out so far, by step object; each entry holds its step, so the id stays its.
_STRUCTURES: dict[int, tuple[Step, Structure]] = {}


def _remember_structure(step: Step, structure: Structure) -> None:
    if len(_STRUCTURES) > 4096:  # a bounded memo: drop it all rather than grow
        _STRUCTURES.clear()
    _STRUCTURES[id(step)] = (step, structure)


def _structure(step: Step) -> Structure:
    entry = _STRUCTURES.get(id(step))
    if entry is not None and entry[0] is step:
        return entry[1]
    names = fed_args(step)
    structural = dataclasses.replace(
        step, args={k: v for k, v in step.args.items() if k not in names}
    )
    structure = (structural.signature(), names)
    _remember_structure(step, structure)
    return structure


def share_structure(old: Step, new: Step, changed: Collection[str] | None = None) -> bool:
    """Note that `new` is `old` with new values of fed arguments only, so it re-uses `old`'s
    built pipeline without working its structure out again (the slider-drag case). Returns
    False, noting nothing, when anything else differs. `changed`: the arguments whose values
    differ, where the caller made `new` from `old` by setting them (saves comparing)."""
    structure = _structure(old)
    if changed is None:
        changed = {
            name
            for name in old.args.keys() | new.args.keys()
            if old.args.get(name) != new.args.get(name)
        }
        same_call = (old.op, old.device, old.inputs, old.arg_inputs, old.apply, old.seed) == (
            new.op,
            new.device,
            new.inputs,
            new.arg_inputs,
            new.apply,
            new.seed,
        )
        if not same_call:
            return False
    # a new value keeps an argument fed unless it changes its kind (a vector emptied)
    if not all(name in structure[1] and feedable(new, name) for name in changed):
        return False
    _remember_structure(new, structure)
    return True


def structure_key(step: Step, input_devices: Sequence[str], batch_size: int) -> tuple[Any, ...]:
    """What a built runner depends on: the step without the values of its fed arguments."""
    return (*_structure(step), tuple(input_devices), batch_size)


class StepGroupRunner:
    """Runs a few steps of a plan (in plan order) in one synchronous pipeline.

    What the steps read from outside the group comes in through `external_source` nodes, fed
    each run with cached upstream outputs; what they read from each other stays inside the
    pipeline, as in the fused one. A user node with its random draws and coin flip is such a
    group; so is one step alone (:class:`StepRunner`).

    ``feed_scalars=True`` feeds per-sample constants (scalars and vectors) at run time
    (:func:`fed_args`), so an edited value re-uses the built pipeline; ``False`` bakes every constant into the DALI call
    exactly as the fused pipeline does, which is what a timing of the fused graph's operators
    needs. ``empty=True`` builds the group's harness instead: the same external sources, fed the
    same way, returned untouched; its time is what feeding and starting the pipeline costs.
    `blocks`: conditional blocks (:class:`~augexplorer.blocks.Block`) whose steps are all in
    the group; each runs under one ``if`` on its first step's predicate
    (:func:`~augexplorer.builder.call_block`), the other steps' own predicates not read.
    """

    def __init__(
        self,
        steps: Sequence[Step],
        *,
        batch_size: int,
        device_id: int | None,
        num_threads: int,
        input_devices: Mapping[str, str],
        feed_scalars: bool = True,
        empty: bool = False,
        blocks: Sequence[Block] = (),
    ) -> None:
        from nvidia.dali import fn, pipeline_def
        from nvidia.dali.pipeline import do_not_convert

        self.batch_size = batch_size
        self.steps = tuple(steps)
        inside = {step.id for step in self.steps}
        # One external source per (outside output, device): positional inputs arrive on their
        # producer's device, argument inputs and predicates on the CPU (DALI requires it).
        self.external: dict[tuple[Ref, str], str] = {}
        inner = {step.id for block in blocks for step in block.steps[1:]}
        for step in self.steps:
            if step.id in inner:
                step = dataclasses.replace(step, apply=None)  # the block's predicate is the first's
            for ref, device in _reads(step, input_devices):
                if ref.node not in inside and (ref, device) not in self.external:
                    self.external[(ref, device)] = f"fed_{len(self.external)}"
        self.fed = [fed_args(step) if feed_scalars and not empty else () for step in self.steps]
        self.fed_values = FedValues(self.steps, self.fed, batch_size)
        structural = [
            dataclasses.replace(step, args={k: v for k, v in step.args.items() if k not in fed})
            for step, fed in zip(self.steps, self.fed, strict=True)
        ]
        if empty and not self.external:
            raise ValueError("an empty group needs at least one input to feed")
        external = list(self.external.items())
        self.empty = empty
        self.output_counts: list[int] = []  # per step, filled when the pipeline is defined

        options: dict[str, Any] = {
            "batch_size": batch_size,
            "num_threads": num_threads,
            "device_id": device_id,
            "enable_conditionals": not empty and any(s.uses_conditionals for s in self.steps),
            **SYNC_PIPELINE,
        }

        @pipeline_def(**options)
        def group() -> Any:
            nodes = {key: fn.external_source(name=name, device=key[1]) for key, name in external}
            if empty:
                return tuple(nodes.values())
            made = _call_group(structural, self.fed, nodes, input_devices, blocks)
            self.output_counts.extend(len(outputs) for outputs in made)
            # not converted by DALI's autograph: it would take the inner outputs of a block
            # (made in its branch) for values read outside it and fail
            return do_not_convert(flatten_outputs)(made)

        with engine_build():
            self.pipeline = group()
            self.pipeline.build()
        self._options = options
        self._built: bytes | None = None  # the pipeline as built, for fresh copies

    def keep_built_state(self) -> bool:
        """Keep the pipeline as built, before any run, so that :meth:`fresh_copy` can start
        from it again; False where DALI cannot serialize it (Python code in the group)."""
        try:
            self._built = self.pipeline.serialize()
        except Exception:  # DALI raises RuntimeError for python_function, maybe others
            self._built = None
        return self._built is not None

    def fresh_copy(self) -> StepGroupRunner:
        """A runner whose pipeline starts again from its built state: random operators draw
        their first values anew, as a new build's do. Made from the pipeline kept by
        :meth:`keep_built_state`: an auto_aug policy takes 0.2-0.3 s to build and ~30 ms to load."""
        from nvidia.dali import Pipeline

        assert self._built is not None, "keep_built_state() first"
        copy: StepGroupRunner = object.__new__(StepGroupRunner)
        copy.__dict__.update(self.__dict__)
        copy.pipeline = Pipeline.deserialize(serialized_pipeline=self._built, **self._options)
        copy.pipeline.build()
        return copy

    def run(
        self, feeds: Mapping[Ref, Any], steps: Sequence[Step] | None = None
    ) -> tuple[dict[str, list[Any]], float]:
        """Feed the outside outputs the group reads (`feeds`, by reference) and, when constants are
        fed, the argument values of `steps` (the group's steps as now edited; by default the
        ones it was built from); run. Returns each step's outputs (the fed inputs, by name, for
        an empty group) and the milliseconds of feeding and running."""
        current = self.steps if steps is None else tuple(steps)
        values = self.fed_values.arrays(current, feeds)
        # timed: DALI's work alone, from taking the inputs to handing back the outputs
        start = time.perf_counter()
        for (ref, _device), name in self.external.items():
            self.pipeline.feed_input(name, feeds[ref])
        for name, samples in values:
            self.pipeline.feed_input(name, samples)
        outputs = list(self.pipeline.run())
        elapsed = (time.perf_counter() - start) * 1000.0
        if self.empty:  # what was fed, by external source name
            return dict(zip(self.external.values(), ([o] for o in outputs), strict=True)), elapsed
        by_step: dict[str, list[Any]] = {}
        position = 0
        for step, count in zip(current, self.output_counts, strict=True):
            by_step[step.id] = outputs[position : position + count]
            position += count
        return by_step, elapsed


def flatten_outputs(made: Sequence[Sequence[Any]]) -> tuple[Any, ...]:
    """Every step's outputs in one tuple, step after step."""
    return tuple(output for outputs in made for output in outputs)


def _call_group(
    steps: Sequence[Step],
    fed: Sequence[tuple[str, ...]],
    external: Mapping[tuple[Ref, str], Any],
    input_devices: Mapping[str, str],
    blocks: Sequence[Block] = (),
) -> list[list[Any]]:
    """Make the DALI calls of `steps` inside a pipeline being defined; each step's outputs.

    Outside outputs come from `external` (DataNodes by reference and device), per-sample constants
    named in `fed` from their own `external_source`; each of `blocks` runs as one at its last
    step.
    """
    from nvidia.dali import fn

    made: dict[str, list[Any]] = {}
    position = {steps[index].id: index for index in range(len(steps))}
    block_of = {step.id: block for block in blocks for step in block.steps}
    for index in range(len(steps)):  # indexing: autograph's zip has no `strict`
        step = steps[index]
        block = block_of.get(step.id)
        if block is not None:
            if step.id == block.last.id:
                members = [position[member.id] for member in block.steps]
                _call_block_in_group(
                    members, steps, fed, made, external, input_devices, block.split
                )
            continue
        reads = dict(_reads(step, input_devices))
        inputs = [_node(made, external, reads, ref) for ref in step.inputs]
        arg_inputs = {
            name: _node(made, external, reads, ref) for name, ref in step.arg_inputs.items()
        }
        for name in fed[index]:
            arg_inputs[name] = fn.external_source(name=fed_source(index, name))
        predicate = None
        if step.apply is not None:
            predicate = _node(made, external, reads, step.apply)
        made[step.id] = call_step(step, inputs, arg_inputs, predicate)
    return [made[step.id] for step in steps]


def _call_block_in_group(
    positions: Sequence[int],
    steps: Sequence[Step],
    fed: Sequence[tuple[str, ...]],
    made: dict[str, list[Any]],
    external: Mapping[tuple[Ref, str], Any],
    input_devices: Mapping[str, str],
    split: int | None = None,
) -> None:
    """Make the DALI calls of the block whose steps are `steps` at `positions`, into `made`
    (`split`: where its ``else`` side begins, if it has one)."""
    from nvidia.dali import fn

    members = [steps[index] for index in positions]
    devices = {ref: device for step in members for ref, device in _reads(step, input_devices)}

    def read(ref: Ref) -> Any:
        return made[ref.node][ref.output] if ref.node in made else external[(ref, devices[ref])]

    fed_nodes = [
        {name: fn.external_source(name=fed_source(index, name)) for name in fed[index]}
        for index in positions
    ]
    assert members[0].apply is not None, f"{members[0].id}: a block runs under a predicate"
    outputs = call_block(members, read(members[0].apply), read, fed_nodes, split)
    for index in range(len(members)):  # indexing: autograph's zip has no `strict`
        made[members[index].id] = outputs[index]


def _node(
    made: Mapping[str, list[Any]],
    external: Mapping[tuple[Ref, str], Any],
    reads: Mapping[Ref, str],
    ref: Ref,
) -> Any:
    if ref.node in made:
        return made[ref.node][ref.output]
    return external[(ref, reads[ref])]


def _reads(step: Step, input_devices: Mapping[str, str]) -> list[tuple[Ref, str]]:
    """Each output `step` reads, with the device it arrives on."""
    reads = [(ref, _external_device(input_devices.get(ref.node, "cpu"))) for ref in step.inputs]
    reads += [(ref, "cpu") for ref in step.arg_inputs.values()]
    if step.apply is not None:
        reads.append((step.apply, "cpu"))
    return reads


class StepRunner:
    """Runs one operator step; built once, re-used while its structure and input devices stay
    (a random step runs a fresh copy each time: :meth:`fresh_copy`).

        A one-step :class:`StepGroupRunner`; `input_devices` are the devices of `step.inputs`.
    """

    def __init__(
        self,
        step: Step,
        *,
        batch_size: int,
        device_id: int | None,
        num_threads: int,
        input_devices: Sequence[str],
        feed_scalars: bool = True,
    ) -> None:
        self.step = step
        self.group = StepGroupRunner(
            [step],
            batch_size=batch_size,
            device_id=device_id,
            num_threads=num_threads,
            input_devices={
                ref.node: device for ref, device in zip(step.inputs, input_devices, strict=True)
            },
            feed_scalars=feed_scalars,
        )
        self.pipeline = self.group.pipeline

    def keep_built_state(self) -> bool:
        return self.group.keep_built_state()

    def fresh_copy(self) -> StepRunner:
        """This runner with a pipeline started anew (see :meth:`StepGroupRunner.fresh_copy`)."""
        copy: StepRunner = object.__new__(StepRunner)
        copy.step, copy.group = self.step, self.group.fresh_copy()
        copy.pipeline = copy.group.pipeline
        return copy

    def run(
        self,
        step: Step,
        inputs: Sequence[Any],
        arg_inputs: Mapping[str, Any],
        predicate: Any = None,
    ) -> tuple[list[Any], float]:
        """Feed cached TensorLists and `step`'s argument values, run; (outputs, milliseconds)."""
        built = self.step  # `step` has this structure; its argument values may differ
        feeds: dict[Ref, Any] = dict(zip(built.inputs, inputs, strict=True))
        feeds.update({ref: arg_inputs[name] for name, ref in built.arg_inputs.items()})
        if built.apply is not None and predicate is not None:
            feeds[built.apply] = predicate
        outputs, elapsed = self.group.run(feeds, [step])
        return outputs[step.id], elapsed


def array_batch(
    data: SourceData, batch_size: int, index: int, step: Step
) -> tuple[list[Any], list[Any]]:
    """The images and labels of batch `index` of the arrays source `step` reads, on its shard
    (a rank's preview), as the exported module's ``ArrayBatches`` feeds them
    (:func:`.epoch_padding.array_samples`)."""
    import numpy as np

    shard = array_shard(step)
    picked, _ = array_samples(len(data.arrays), batch_size, index, **shard)
    if not picked:
        count, ranks = len(data.arrays), shard["num_shards"]
        raise DataError(
            f"shard {shard['shard_id']} of {ranks} holds no array: {count} arrays for {ranks} "
            "ranks, so this rank would read nothing",
            fix=f"preview a rank below {count}, or give at least as many arrays as ranks",
        )
    images = [data.arrays[i] for i in picked]
    labels = [np.array([data.labels[i]], dtype=np.int32) for i in picked]
    return images, labels


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
        self._batches = 0  # batches read so far

        options: dict[str, Any] = {
            "batch_size": batch_size,
            "num_threads": num_threads,
            "device_id": device_id,
            **SYNC_PIPELINE,
        }

        @pipeline_def(**options)
        def source() -> Any:
            return tuple(call_source(step, data))

        with engine_build():
            self.pipeline = source()
            self.pipeline.build()

    def run(self) -> tuple[list[Any], float]:
        start = time.perf_counter()
        if self.data.kind == "arrays":
            images, labels = array_batch(self.data, self.batch_size, self._batches, self.step)
            self.pipeline.feed_input(f"{self.step.id}_images", images)
            self.pipeline.feed_input(f"{self.step.id}_labels", labels)
        self._batches += 1
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
# An exception in the user's Python code (python_function): DALI quotes it with the stack.
_PYTHON_FAILURE = re.compile(
    r"(?:DLTensor)?PythonFunction error: (?P<error>.*?)\s*At:\s*"
    r"(?:<python_function \w+>\((?P<line>\d+)\))?.*",
    re.S,
)
# DALI's words for two arguments that go together, or that exclude each other (crop's window)
_TOGETHER = re.compile(
    r"`(?P<first>\w+)` and `(?P<second>\w+)` arguments must be provided together"
)
_NOT_WITH = re.compile(
    r"`(?P<one>\w+)` argument is not compatible with (?P<others>`\w+`(?:, `\w+`)*)"
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
    text = _PYTHON_FAILURE.sub(
        lambda m: (
            f"the Python function raised {m.group('error').strip()}"
            + (f" (line {m.group('line')} of its code)" if m.group("line") else "")
        ),
        text,
    )
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


def failed_step(steps: Sequence[Step], text: str) -> Step | None:
    """The one step of a fused pipeline's `steps` whose operator DALI's error `text` names
    ("Error in CPU operator `nvidia.dali.fn.crop`"); None when none or several run it."""
    named = [step for step in steps if f"fn.{step.op}`" in text]
    return named[0] if len(named) == 1 else None


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
    together = _TOGETHER.search(text)
    if together is not None:
        return f"give {together['first']} and {together['second']} a value each"
    apart = _NOT_WITH.search(text)
    if apart is not None:
        return (
            f"set either {apart['one']} or {apart['others'].replace('`', '')}, not both: "
            f"leave {apart['one']} out to use the others"
        )
    if "out of bounds with current policy" in text:
        return (
            "crop no more than the smallest image, or set out_of_bounds_policy to 'pad' (fills "
            "with fill_values) or 'trim_to_shape'"
        )
    if "must be provided" in text:
        return "give the argument the error names a value"
    if "Found distinct layouts" in text:
        return (
            "a node applied with a probability must keep its input's layout; for python_function "
            "set output_layouts to it (e.g. 'HWC')"
        )
    if "Divergent data" in text:
        # DALI merges at the end of a block: nodes under one condition, each reading the one
        # before, may change the type in between (augexplorer.blocks)
        return (
            "a node under a condition, or the last of a chain of nodes under the same condition, "
            "must give its input's type and number of dimensions where it runs (elsewhere its "
            "input passes through), and the two sides of an if/else must end on one type: "
            "keep the type inside the branch, or change it (fn.cast) before the condition or "
            "after it, on every sample"
        )
    return None
