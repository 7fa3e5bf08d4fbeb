"""Values an operator draws inside itself, recorded per sample where DALI lets them be known.

What DALI 2.4 exposes (read from its schemas and checked on pixels):

- ``random_bbox_crop`` returns its window: outputs 0 and 1 are the anchor ``[x, y]`` and shape
  ``[w, h]`` (fractions of the image; pixels with a fixed ``crop_shape``), read as they are.
- ``random_resized_crop`` (and ``decoders.image_random_crop``) returns only the crop. Its window comes from DALI's
  ``RandomCropGenerator``, the same code as ``fn.random_crop_generator`` (same arguments:
  ``random_area``, ``random_aspect_ratio``, ``num_attempts``, ``seed``), one generator per sample
  position seeded from the operator's seed. Run with the node's seed and batch size on the node's
  inputs, ``fn.random_crop_generator`` gives back the windows the node drew, as long as both
  start from their first draw (the first batch; a later batch replays the training pipeline,
  whose generators have moved on). A window is claimed only where DALI's own ``fn.resize`` of
  that window, with the node's resampling arguments, gives the node's output exactly (for the
  decoder: the window sliced from the image ``fn.decoders.image`` decodes with its arguments):
  measured identical on every bundled sample, and a window one pixel off fails the check.
- DALI's ``auto_aug`` policies return only images; what they chose is recovered apart, by
  running the policy again (:mod:`.policy_draws`), for the large view and statistics.
- Every other random operator (``noise.*``, ``jitter``, ...) draws internally: the panel says so
  instead of "nothing random".
- Operators whose output *is* the draw (``random.*``, ``random_crop_generator``,
  ``roi_random_crop``, ``segmentation.random_*``, ``batch_permutation``) show it as their output.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..spec import Ref

if TYPE_CHECKING:
    from ..plan import Step
    from .result import RunResult

RECOVERED = "random_resized_crop"
DECODER = "decoders.image_random_crop"
FROM_OUTPUTS = "random_bbox_crop"
# operators whose window DALI's generator draws again (checked on pixels)
REDRAWN = (RECOVERED, DECODER)
WINDOW_OPS = (*REDRAWN, FROM_OUTPUTS)  # operators that draw a crop window
# random_resized_crop's arguments that draw the window (fn.random_crop_generator takes them) and
# those that resample it (fn.resize takes them, with the same meaning)
GENERATOR_ARGS = ("random_area", "random_aspect_ratio", "num_attempts")
RESAMPLING_ARGS = (
    "interp_type",
    "mag_filter",
    "min_filter",
    "antialias",
    "dtype",
    "minibatch_size",
    "temp_buffer_hint",
)
# decoders.image_random_crop's arguments that decide the decoded pixels (fn.decoders.image
# takes them, with the same meaning)
DECODING_ARGS = ("output_type", "dtype", "adjust_orientation", "jpeg_fancy_upsampling")
# Operators whose outputs are what they drew: seen as outputs, not hidden inside.
DRAWS_AS_OUTPUT = (
    "random.",
    "random_crop_generator",
    "roi_random_crop",
    "segmentation.random_",
    "batch_permutation",
)
# Recovered windows kept for the outputs they explain (a cached node keeps its output object).
_KEPT = 16


@dataclass(frozen=True)
class Window:
    """A crop window: its top-left corner and size, in pixels of the node's input (or, with
    `relative`, in fractions of the image)."""

    x: float
    y: float
    width: float
    height: float
    relative: bool = False

    def caption(self) -> str:
        # Which number is which, in words: the shape beside it in the large view is height
        # first (HWC), a size is usually written width first.
        if self.relative:
            return (
                f"{self.width:.2f} wide, {self.height:.2f} high (of the image) at "
                f"x {self.x:.2f}, y {self.y:.2f}"
            )
        return f"{self.width:.0f} wide, {self.height:.0f} high at x {self.x:.0f}, y {self.y:.0f}"

    def to_json(self) -> dict[str, Any]:
        return {
            "x": self.x,
            "y": self.y,
            "width": self.width,
            "height": self.height,
            "relative": self.relative,
        }


@dataclass(frozen=True)
class NodeWindows:
    """The windows one node drew, per sample of the batch (None where not known: a sample the
    node did not run on, or a window that could not be recovered), and how they were known."""

    node: str
    op: str
    windows: tuple[Window | None, ...]
    how: str  # "recovered" (DALI's generator, checked on pixels) or "output"
    # a decoder's whole decoded images, per sample (the picture its windows were cut from,
    # which the graph itself never holds); empty for other operators
    wholes: tuple[np.ndarray | None, ...] = ()

    @property
    def known(self) -> int:
        return sum(w is not None for w in self.windows)


def draws_internally(step: Step) -> bool:
    """Whether `step` (a user's operator) draws random values that are no output of its own."""
    if step.role != "node" or step.info is None or not step.info.random:
        return False
    return not step.op.startswith(DRAWS_AS_OUTPUT)


def node_windows(result: RunResult, step: Step) -> NodeWindows | None:
    """The crop windows `step` drew in `result`, where DALI exposes them; None for an operator
    that draws no window or where none could be known."""
    if step.op == FROM_OUTPUTS:
        return _bbox_crop_windows(result, step)
    if step.op in REDRAWN:
        return _recovered_windows(result, step)
    return None


# ---- random_bbox_crop: its outputs ------------------------------------------------------------
def _bbox_crop_windows(result: RunResult, step: Step) -> NodeWindows | None:
    # DALI returns the anchor as [x, y] and the shape as [w, h] whatever the boxes' layout:
    # fractions of the image, or pixels where a fixed crop_shape is given
    relative = not step.args.get("crop_shape")
    outputs = result.steps[step.id].outputs
    held = result.sample_indices(Ref(step.id))
    anchors, shapes = _host(outputs[0]), _host(outputs[1])
    windows: list[Window | None] = [None] * result.plan.spec.batch_size
    for position, sample in enumerate(held):
        anchor, shape = anchors[position].reshape(-1), shapes[position].reshape(-1)
        if anchor.size != 2 or shape.size != 2:
            return None  # a 3-D crop: no window on a picture
        x, y, w, h = (float(v) for v in (*anchor, *shape))
        windows[sample] = Window(x, y, w, h, relative=relative)
    return NodeWindows(step.origin, step.op, tuple(windows), "output")


# ---- random_resized_crop: DALI's own generator, checked on pixels -------------------------------
_recovered: OrderedDict[int, tuple[Any, NodeWindows | None]] = OrderedDict()


def _recovered_windows(result: RunResult, step: Step) -> NodeWindows | None:
    if result.batch_index != 0 or step.seed is None or not step.inputs:
        return None  # a later batch: the node's generators have moved on since their first draw
    if step.arg_inputs:
        return None  # arguments drawn per sample: the generator here would not be fed them
    output = result.steps[step.id].outputs[0]
    kept = _recovered.get(id(output))
    if kept is not None and kept[0] is output:
        _recovered.move_to_end(id(output))
        return kept[1]
    windows = _recover(result, step, output)
    _recovered[id(output)] = (output, windows)  # holding the output keeps its id its own
    while len(_recovered) > _KEPT:
        _recovered.popitem(last=False)
    return windows


def _recover(result: RunResult, step: Step, output: Any) -> NodeWindows | None:
    ran = _samples_run(result, step)
    source, made_by = result.plan.first_input(step), Ref(step.id)
    if source is None:
        return None
    at_input = [result.position_of(source, sample) for sample in ran]
    at_output = [result.position_of(made_by, sample) for sample in ran]
    if None in at_input or None in at_output:
        return None
    inputs = _host(result.output(source))
    images = [np.ascontiguousarray(inputs[p]) for p in at_input if p is not None]
    wanted = 1 if step.op == DECODER else 3  # encoded bytes, or HWC images
    if not images or any(image.ndim != wanted for image in images):
        return None
    outputs = _host(output)
    made = [outputs[p] for p in at_output if p is not None]
    try:
        # the node's generators serve the samples it ran on, in order, from the first
        generator = WindowGenerator(step, result.plan.spec.batch_size)
        anchors, shapes, resized = generator.draw(images)
    except Exception:  # a window we cannot recover is one we do not show
        return None
    count = result.plan.spec.batch_size
    windows: list[Window | None] = [None] * count
    wholes: list[np.ndarray | None] = [None] * count
    for position, sample in enumerate(ran):
        same = resized[position].shape == made[position].shape and np.array_equal(
            resized[position], made[position]
        )
        if same:  # only a window that gives the node's very pixels is claimed
            (y, x), (h, w) = anchors[position][:2], shapes[position][:2]
            windows[sample] = Window(float(x), float(y), float(w), float(h))
            if generator.wholes:
                wholes[sample] = generator.wholes[position]
    kept = tuple(wholes) if step.op == DECODER else ()
    nodes = NodeWindows(step.origin, step.op, tuple(windows), "recovered", kept)
    return nodes if nodes.known else None


def _samples_run(result: RunResult, step: Step) -> list[int]:
    """The samples of the batch `step` ran on, in the order its output holds them."""
    held = result.sample_indices(Ref(step.id))
    ran = result.samples_run.get(step.id)
    return held if ran is None else [sample for sample in held if sample in ran]


class WindowGenerator:
    """DALI's crop-window generator set up as `step` draws: each :meth:`draw` is the node's next
    batch, as long as it is fed the images the node ran on, in the same order (statistics keep
    one for a whole run). The window's pixels are made as the node makes them: resized with its
    resampling arguments (``random_resized_crop``), or cut from the image decoded as it decodes
    (``decoders.image_random_crop``)."""

    def __init__(self, step: Step, batch_size: int) -> None:
        from nvidia.dali import fn, types
        from nvidia.dali.pipeline import Pipeline

        from ..builder import step_kwargs
        from .runners import SYNC_PIPELINE

        kwargs = step_kwargs(step)  # the node's arguments as its own call takes them
        generator = {name: kwargs[name] for name in GENERATOR_ARGS if name in kwargs}
        pipeline = Pipeline(batch_size=batch_size, num_threads=1, device_id=None, **SYNC_PIPELINE)
        with pipeline:
            if step.op == DECODER:
                encoded = fn.external_source(name="images", dtype=types.DALIDataType.UINT8)
                decoding = {name: kwargs[name] for name in DECODING_ARGS if name in kwargs}
                image = fn.decoders.image(encoded, **decoding)
            else:
                image = fn.external_source(name="images", layout="HWC")
            anchor, shape = fn.random_crop_generator(image.shape(), seed=step.seed, **generator)
            made: Any
            if step.op == DECODER:
                made = fn.slice(image, anchor, shape, axis_names="HW")
            else:
                resampling = {k: kwargs[k] for k in (*RESAMPLING_ARGS, "size") if k in kwargs}
                start = fn.cast(anchor, dtype=types.DALIDataType.FLOAT)
                end = fn.cast(anchor + shape, dtype=types.DALIDataType.FLOAT)
                made = fn.resize(
                    image, roi_start=start, roi_end=end, roi_relative=False, **resampling
                )
            outputs = [anchor, shape, made] + ([image] if step.op == DECODER else [])
            pipeline.set_outputs(*outputs)
        pipeline.build()
        self._pipeline = pipeline
        self.wholes: list[np.ndarray] = []  # a decoder's whole images of the last draw

    def draw(
        self, images: Sequence[np.ndarray]
    ) -> tuple[list[np.ndarray], list[np.ndarray], list[np.ndarray]]:
        self._pipeline.feed_input("images", [np.ascontiguousarray(i) for i in images])
        anchors, shapes, crops, *whole = self._pipeline.run()
        self.wholes = _host(whole[0]) if whole else []
        return _host(anchors), _host(shapes), _host(crops)


def _host(tensors: Any) -> list[np.ndarray]:
    from .result import to_host

    return [np.asarray(t) for t in to_host(tensors)]
