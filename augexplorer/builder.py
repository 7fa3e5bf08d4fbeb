"""The one place a plan turns into DALI calls.

:func:`call_step` makes the DALI call of one step; the live engine uses it inside small
per-node pipelines, :func:`build_pipeline` uses it for the whole graph as one fused pipeline, and
the exporter writes the same calls as source text (its tests check the outputs are identical).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

from .annotations.keypoints import KeypointTable
from .catalog import ArgInfo
from .catalog.auto_aug import is_auto_aug, policy_function
from .catalog.readers import EPOCH_WHOLE
from .data import SourceData
from .expressions import GRAPH_OPS
from .plan import Plan, Step
from .spec import PythonCode, Ref

_ENUMS = {
    "DATA_TYPE": "DALIDataType",
    "IMAGE_TYPE": "DALIImageType",
    "INTERP_TYPE": "DALIInterpType",
}


def resolve_fn(op: str) -> Callable[..., Any]:
    """``"decoders.image"`` -> ``nvidia.dali.fn.decoders.image``."""
    from nvidia.dali import fn

    if is_auto_aug(op):  # a policy of nvidia.dali.auto_aug, not an `fn` operator
        return policy_function(op)
    target: Any = functools.reduce(getattr, op.split("."), fn)
    return target


def dali_value(arg: ArgInfo | None, value: Any) -> Any:
    """A JSON-typed constant as DALI wants it: enum names become DALI enums, vectors lists."""
    if arg is None:
        return value
    if arg.kind in _ENUMS:
        from nvidia.dali import types

        enum = getattr(types, _ENUMS[arg.kind])
        if arg.is_vector:
            return [enum.__members__[v] for v in value]
        return enum.__members__[value]
    if arg.is_vector:
        items = value if isinstance(value, (list, tuple)) else [value]
        return [_scalar(arg, v) for v in items]
    return _scalar(arg, value)


def _scalar(arg: ArgInfo, value: Any) -> Any:
    if arg.kind == "BOOL":
        return bool(value)
    if arg.is_integer:
        return int(value)
    if arg.is_numeric:
        return float(value)
    return value


# A weighted choice (see ``validate.random_call``) is a `random.choice` step that carries the
# values to draw from and their DALI type as the arguments below: random.choice takes the values
# as its positional input and has no dtype argument (its output has the input's type).
WEIGHTED_CHOICE = "random.choice"
CHOICE_DATA = frozenset({"values", "dtype"})


def choice_values(step: Step) -> tuple[list[Any], str] | None:
    """For a weighted choice step: its values, typed as the argument they feed, and that DALI
    type's name (``"FLOAT"``, ``"INT32"``, ...); None for any other step."""
    if step.op != WEIGHTED_CHOICE or step.role != "random":  # not a random.choice node's
        return None
    dtype = str(step.args.get("dtype", "FLOAT"))
    if dtype == "BOOL":
        return [bool(v) for v in step.args["values"]], dtype
    if dtype in ("FLOAT", "FLOAT64", "FLOAT16"):
        return [float(v) for v in step.args["values"]], dtype
    return [int(v) for v in step.args["values"]], dtype


def step_kwargs(step: Step) -> dict[str, Any]:
    """The constant keyword arguments of a step's DALI call (no inputs, no argument inputs).

    Python code becomes its function here, and only if the user trusts it
    (:func:`augexplorer.trust.to_callable` refuses it otherwise).
    """
    from .trust import to_callable

    info = step.info
    kwargs = {
        name: to_callable(value, step.origin)
        if isinstance(value, PythonCode)
        else dali_value(info.arg(name) if info else None, value)
        for name, value in step.args.items()
        if not (step.op == WEIGHTED_CHOICE and name in CHOICE_DATA)
    }
    if step.seed is not None and step.role != "source":
        kwargs["seed"] = step.seed
    if step.device != "cpu":
        kwargs["device"] = step.device
    return kwargs


def call_step(
    step: Step, inputs: Sequence[Any], arg_inputs: Mapping[str, Any], predicate: Any = None
) -> list[Any]:
    """Make the DALI call of an operator step, inside a pipeline being defined.

    `inputs` and `arg_inputs` are DataNodes; with a `predicate` (a per-sample boolean DataNode)
    the call runs through DALI conditionals and samples where it is false pass through unchanged.
    The pipeline must then be built with ``enable_conditionals=True``.
    """
    if is_auto_aug(step.op):
        from .auto_aug_calls import call_policy

        return call_policy(step, inputs, arg_inputs, predicate)
    if step.op in GRAPH_OPS:
        from .expressions.lowering import lower

        if predicate is None:
            return lower(step, inputs)
        return [_apply_if(predicate, lambda *data: lower(step, data)[0], list(inputs), {})]
    op = resolve_fn(step.op)
    kwargs = {**step_kwargs(step), **arg_inputs}
    choice = choice_values(step)
    if choice is not None:
        from nvidia.dali import types

        values, dtype = choice
        inputs = [types.Constant(values, dtype=types.DALIDataType.__members__[dtype]), *inputs]
    if predicate is None:
        return _as_list(op(*inputs, **kwargs))
    return [_apply_if(predicate, op, list(inputs), kwargs)]


def call_block(
    steps: Sequence[Step],
    predicate: Any,
    read: Callable[[Ref], Any],
    fed: Sequence[Mapping[str, Any]] = (),
    split: int | None = None,
) -> list[list[Any]]:
    """Make the DALI calls of a conditional block (:class:`~augexplorer.blocks.Block`'s steps)
    under one ``if``, inside a pipeline being defined; each step's outputs.

    DALI splits the batch once before the steps and merges once after them, as in user code,
    so the steps in between may change the type or layout. `read` gives what the steps read
    from outside the block (DataNodes by reference), `fed` per step extra argument inputs.
    With a `split`, ``steps[split:]`` are the ``else`` side, run where `predicate` is false on
    the input the block reads (the graph has them read the ``if`` side's last output, which
    there is that input); without, the last step's output is merged with the block's input
    where `predicate` is false. Other steps' outputs hold only the samples of their side (in
    order). The pipeline must be built with ``enable_conditionals=True``.
    """
    made: dict[str, list[Any]] = {}
    end = len(steps) if split is None else split

    def get(ref: Ref) -> Any:
        return made[ref.node][ref.output] if ref.node in made else read(ref)

    def chain(first: int, last: int, passed: Any) -> Any:
        # the outputs are kept in `made` by the side: DALI merges only the `if`'s result
        for index in range(first, last):  # indexing: autograph's zip has no `strict`
            step = steps[index]
            arg_inputs = {name: get(ref) for name, ref in step.arg_inputs.items()}
            if index < len(fed):
                arg_inputs.update(fed[index])
            inputs = [get(ref) for ref in step.inputs]
            if index == first:
                inputs[0] = passed
            made[step.id] = call_step(step, inputs, arg_inputs)
        return made[steps[last - 1].id][0]

    passed = read(steps[0].inputs[0])
    if split is None:
        output = _apply_if(predicate, lambda data: chain(0, end, data), [passed], {})
    else:
        output = _apply_if_else(
            predicate,
            lambda data: chain(0, end, data),
            lambda data: chain(end, len(steps), data),
            passed,
        )
    return [*(made[step.id] for step in steps[:-1]), [output]]


def _apply_if(
    predicate: Any, op: Callable[..., Any], inputs: list[Any], kwargs: dict[str, Any]
) -> Any:
    # DALI's autograph turns this `if` on a DataNode into a per-sample split and merge;
    # it must stay an `if` statement (a conditional expression is not converted).
    output = inputs[0]
    if predicate:
        output = op(*inputs, **kwargs)
    return output


def _apply_if_else(
    predicate: Any,
    when_true: Callable[[Any], Any],
    when_false: Callable[[Any], Any],
    passed: Any,
) -> Any:
    # as _apply_if: one split, one merge of the two sides' outputs; an `if` statement, which
    # autograph converts (a conditional expression it leaves alone)
    if predicate:  # noqa: SIM108
        output = when_true(passed)
    else:
        output = when_false(passed)
    return output


def _as_list(outputs: Any) -> list[Any]:
    return list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]


def reader_kwargs(
    step: Step, data: SourceData, *, shard_id: int = 0, num_shards: int = 1
) -> dict[str, Any]:
    """Arguments of the `fn.readers.file` call that reads a folder or file list source."""
    assert step.source is not None
    # Always the explicit list: DALI's own folder listing (file_root=) counts hidden folders as
    # classes, and the exported module passes the same files and labels.
    kwargs: dict[str, Any] = {"file_list": data.reader_list}
    if data.reader_list is None:  # else the same files and labels, as a DALI file list: a
        # million-entry `files` argument costs DALI's build about a second per 200,000 entries
        kwargs = {"files": list(data.files), "labels": list(data.labels)}
    kwargs["random_shuffle"] = step.source.shuffle
    kwargs["seed"] = step.seed
    kwargs.update(reader_args_as_called(step.source.reader_args, step.source.kind))
    if num_shards > 1:
        kwargs.update(shard_id=shard_id, num_shards=num_shards)
    kwargs["name"] = step.id
    return kwargs


def reader_arg_values(reader_args: Mapping[str, Any], kind: str = "folder") -> dict[str, Any]:
    """A source's reader arguments typed as the reader's schema says (as :func:`dali_value`)."""
    if not reader_args:
        return {}
    from .catalog import load_catalog
    from .catalog.readers import reader_of

    reader = reader_of(kind)
    info = load_catalog().get(reader)
    assert info is not None, f"{reader} is not in the catalog"
    return {name: dali_value(info.arg(name), value) for name, value in reader_args.items()}


def reader_args_as_called(reader_args: Mapping[str, Any], kind: str = "folder") -> dict[str, Any]:
    """The reader arguments a source's reader is called with, the live engine's and the exported
    module's alike: whole epochs (:data:`EPOCH_WHOLE`) unless the graph's own arguments say
    otherwise, those typed as :func:`reader_arg_values` types them."""
    return {**EPOCH_WHOLE, **reader_arg_values(reader_args, kind)}


def coco_reader_kwargs(
    step: Step, data: SourceData, *, shard_id: int = 0, num_shards: int = 1
) -> dict[str, Any]:
    """Arguments of the `fn.readers.coco` call that reads a COCO source. The images are listed
    only when the source left some out (skip_bad): otherwise DALI reads the file's own list."""
    assert step.source is not None
    kwargs: dict[str, Any] = {
        "annotations_file": data.annotations_file,
        "file_root": data.file_root,
    }
    if data.skipped:
        kwargs["images"] = list(data.coco_images)
    kwargs["random_shuffle"] = step.source.shuffle
    kwargs["seed"] = step.seed
    kwargs.update(reader_args_as_called(step.source.reader_args, "coco"))
    if step.source.keypoints:
        kwargs["image_ids"] = True  # the keypoints are looked up by image id
    if num_shards > 1:
        kwargs.update(shard_id=shard_id, num_shards=num_shards)
    kwargs["name"] = step.id
    return kwargs


def source_keypoints(step: Step, data: SourceData) -> KeypointTable:
    """The keypoint tables of a COCO source read with keypoints."""
    from .annotations.keypoints import keypoint_table

    assert step.source is not None and data.coco is not None
    kept = set(data.coco_images)
    images = [image for image in data.coco.images if image.file_name in kept]
    return keypoint_table(images, ratio=bool(step.source.reader_args.get("ratio")))


def call_source(
    step: Step, data: SourceData, *, shard_id: int = 0, num_shards: int = 1
) -> list[Any]:
    """The DALI calls of a data source step: [images, labels], or a COCO reader's outputs."""
    from nvidia.dali import fn, types

    if data.kind == "coco":
        outputs = _as_list(
            fn.readers.coco(
                **coco_reader_kwargs(step, data, shard_id=shard_id, num_shards=num_shards)
            )
        )
        if step.source is not None and step.source.keypoints:
            from .annotations.keypoints import call_keypoints

            outputs += call_keypoints(outputs[-1], source_keypoints(step, data))
        return outputs

    if data.kind == "arrays":
        images = fn.external_source(
            name=f"{step.id}_images", dtype=types.DALIDataType.UINT8, layout="HWC"
        )
        labels = fn.external_source(name=f"{step.id}_labels", dtype=types.DALIDataType.INT32)
        return [images, labels]
    images, labels = fn.readers.file(
        **reader_kwargs(step, data, shard_id=shard_id, num_shards=num_shards)
    )
    return [images, labels]


def define_graph(
    plan: Plan,
    data: Mapping[str, SourceData],
    *,
    shard_id: int = 0,
    num_shards: int = 1,
    only: Collection[str] | None = None,
) -> dict[str, list[Any]]:
    """Call every step of `plan` (of `only`, by id, when given: steps and everything they read,
    blocks whole) inside a pipeline definition; returns each step's DataNodes (a conditional
    block's inner steps hold only the samples where the block runs)."""
    nodes: dict[str, list[Any]] = {}

    def get(ref: Ref) -> Any:
        return nodes[ref.node][ref.output]

    for step in plan.steps:
        if only is not None and step.id not in only:
            continue
        if step.role == "source":
            nodes[step.id] = call_source(
                step, data[step.id], shard_id=shard_id, num_shards=num_shards
            )
            continue
        block = plan.blocks.get(step.id)
        if block is not None:
            # a conditional block is called whole at its last step: everything it reads from
            # outside comes before that in plan order, and nothing outside reads its inner steps
            if step is block.last:
                made = call_block(block.steps, get(block.predicate), get, split=block.split)
                for index in range(len(made)):  # indexing: autograph's zip has no `strict`
                    nodes[block.steps[index].id] = made[index]
            continue
        nodes[step.id] = call_step(
            step,
            [get(ref) for ref in step.inputs],
            {name: get(ref) for name, ref in step.arg_inputs.items()},
            get(step.apply) if step.apply is not None else None,
        )
    return nodes


def build_pipeline(
    plan: Plan,
    data: Mapping[str, SourceData],
    *,
    outputs: Sequence[Ref] | None = None,
    batch_size: int | None = None,
    device_id: int | None = None,
    num_threads: int = 2,
    shard_id: int = 0,
    num_shards: int = 1,
    **pipeline_kwargs: Any,
) -> Any:
    """The whole plan as one fused DALI pipeline (not yet built).

    `outputs` default to the plan's named outputs. Array sources must be fed with
    `pipe.feed_input` before each run.
    """
    from nvidia.dali import pipeline_def

    wanted = list(outputs) if outputs is not None else list(plan.outputs.values())

    options: dict[str, Any] = {
        "batch_size": batch_size or plan.spec.batch_size,
        "num_threads": num_threads,
        "device_id": device_id,
        "enable_conditionals": plan.uses_conditionals,
        **pipeline_kwargs,
    }

    @pipeline_def(**options)
    def fused() -> tuple[Any, ...]:
        nodes = define_graph(plan, data, shard_id=shard_id, num_shards=num_shards)
        return tuple(nodes[ref.node][ref.output] for ref in wanted)

    return fused()
