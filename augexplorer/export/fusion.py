"""Fused decoders for exported modules: ``decoders.image`` and the crop right after it become one
DALI call that decodes only the region that is kept.

What each fusion gives was measured on DALI 2.4 (CPU), array for array, on JPEG (baseline,
progressive, 4:4:4, 4:2:2, grayscale, CMYK, EXIF-rotated), PNG, BMP, TIFF, WebP and JPEG 2000:

- ``decoders.image`` + ``crop`` -> ``decoders.image_crop``: identical (also with random anchors).
- ``decoders.image`` + ``slice`` -> ``decoders.image_slice``: identical (arguments or anchor/shape
  inputs).
- ``decoders.image`` + ``crop_mirror_normalize`` with a crop -> ``decoders.image_crop`` +
  ``crop_mirror_normalize`` without one: identical.
- ``decoders.image`` + ``random_resized_crop`` -> ``decoders.image_random_crop`` + ``resize``:
  the same seed draws the same crop windows, but ``random_resized_crop`` resamples with pixels
  from outside its window and a separate ``resize`` cannot; pixels along the borders differ
  (up to 21 of 255 on the bundled samples). Applied only when asked for (``"all"``).

The mixed (GPU) decoders are the same operators with DALI's ROI decoding on nvJPEG; the test
suite compares them with the live engine on a GPU machine.

A pair is fused only when the decoder feeds nothing but that one operator, both run on the same
side (cpu + cpu, or mixed + gpu), neither is applied with a probability, and every argument has
the same meaning in the fused call; otherwise the graph is written as it is.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any, Literal

from ..catalog import Catalog, load_catalog
from ..plan import Plan, Step
from ..spec import Ref

FuseMode = Literal["exact", "all", "none"]
FUSE_MODES: tuple[FuseMode, ...] = ("exact", "all", "none")

DECODER = "decoders.image"

# Arguments of `crop` and `crop_mirror_normalize` that place the window; `decoders.image_crop`
# takes them with the same meaning.
CROP_WINDOW = frozenset(
    {"crop", "crop_h", "crop_w", "crop_d", "crop_pos_x", "crop_pos_y", "crop_pos_z", "rounding"}
)
# The same for `slice` -> `decoders.image_slice`.
SLICE_WINDOW = frozenset(
    {
        "axes",
        "axis_names",
        "start",
        "shape",
        "end",
        "rel_start",
        "rel_shape",
        "rel_end",
        "normalized_anchor",
        "normalized_shape",
    }
)
# Arguments of `random_resized_crop` that draw the window (-> `decoders.image_random_crop`) and
# that resample it (-> `resize`).
RANDOM_WINDOW = frozenset({"num_attempts", "random_area", "random_aspect_ratio"})
RESAMPLING = frozenset(
    {
        "antialias",
        "dtype",
        "interp_type",
        "mag_filter",
        "min_filter",
        "minibatch_size",
        "temp_buffer_hint",
    }
)


@dataclass(frozen=True)
class Fusion:
    """One decoder fused with the operator after it."""

    decoder: Step  # as planned
    consumer: Step  # as planned
    steps: tuple[Step, ...]  # what replaces the two, written where the consumer was
    difference: str  # how the outputs differ from the explorer's; "" when they are identical

    @property
    def exact(self) -> bool:
        return not self.difference

    @property
    def calls(self) -> str:
        """The DALI calls that replace the pair, e.g. ``decoders.image_crop``."""
        return " + ".join(f"fn.{step.op}" for step in self.steps)


def fuse_decoders(plan: Plan, mode: FuseMode) -> tuple[tuple[Step, ...], tuple[Fusion, ...]]:
    """The plan's steps with decoders fused where `mode` allows, and the fusions applied.

    ``"exact"`` applies only fusions with identical outputs, ``"all"`` also the others,
    ``"none"`` none. Step ids stay those of the plan, so every reference still resolves.
    """
    if mode not in FUSE_MODES:
        raise ValueError(f"fuse_decoders must be one of {', '.join(FUSE_MODES)}; got {mode!r}")
    if mode == "none":
        return plan.steps, ()
    catalog = load_catalog(gpu=True)
    fusions: dict[str, Fusion] = {}  # by consumer id
    for decoder, consumer in _candidate_pairs(plan):
        rule = RULES.get(consumer.op)
        if rule is None or (rule.difference and mode != "all"):
            continue
        replacement = rule.rewrite(decoder, consumer, catalog)
        if replacement is not None:
            fusions[consumer.id] = Fusion(decoder, consumer, replacement, rule.difference)
    fused_decoders = {fusion.decoder.id for fusion in fusions.values()}
    written: list[Step] = []
    for step in plan.steps:
        if step.id in fused_decoders:
            continue  # written with its consumer, whose other inputs are defined by then
        fusion = fusions.get(step.id)
        written.extend(fusion.steps if fusion is not None else (step,))
    return tuple(written), tuple(fusions.values())


# ---- which pairs may be fused ---------------------------------------------------------------


def _candidate_pairs(plan: Plan) -> list[tuple[Step, Step]]:
    """(decoder, consumer) pairs where the decoder's output goes to that consumer's first input
    and nowhere else, on one side of the device boundary, with no conditionals involved."""
    uses: dict[str, list[tuple[Step | None, Ref]]] = {}
    for step in plan.steps:
        for ref in step.upstream():
            uses.setdefault(ref.node, []).append((step, ref))
    for ref in plan.outputs.values():
        uses.setdefault(ref.node, []).append((None, ref))
    pairs = []
    for decoder in plan.steps:
        if decoder.role != "node" or decoder.op != DECODER or decoder.apply is not None:
            continue
        users = uses.get(decoder.id, [])
        if len(users) != 1:
            continue
        consumer, _ = users[0]
        if (
            consumer is None
            or consumer.role != "node"
            or consumer.apply is not None
            or not consumer.inputs
            or consumer.inputs[0] != Ref(decoder.id)
            or (decoder.device, consumer.device) not in {("cpu", "cpu"), ("mixed", "gpu")}
        ):
            continue
        pairs.append((decoder, consumer))
    return pairs


# ---- rules ------------------------------------------------------------------------------------

Rewrite = Callable[[Step, Step, Catalog], tuple[Step, ...] | None]


@dataclass(frozen=True)
class Rule:
    rewrite: Rewrite
    difference: str = ""  # how the outputs differ from the unfused pair's; "" when identical


def _split(
    values: Mapping[str, Any], moved: frozenset[str]
) -> tuple[dict[str, Any], dict[str, Any]]:
    return (
        {k: v for k, v in values.items() if k in moved},
        {k: v for k, v in values.items() if k not in moved},
    )


def _out_of_bounds_is_error(args: Mapping[str, Any]) -> bool:
    """The fused decoders reject a window outside the image, as these operators do by default;
    padding or trimming it instead has no fused equivalent."""
    return args.get("out_of_bounds_policy", "error") == "error"


def _fused_decoder(
    decoder: Step,
    consumer: Step,
    catalog: Catalog,
    op: str,
    *,
    step_id: str,
    args: Mapping[str, Any],
    arg_inputs: Mapping[str, Ref],
    inputs: tuple[Ref, ...] = (),
    seed: int | None = None,
) -> Step | None:
    """The decoder as `op`, with the consumer's window arguments added; None when the decoder
    uses an argument `op` does not take."""
    info = catalog.get(op)
    if info is None:
        return None
    all_args = {**decoder.args, **args}
    all_arg_inputs = {**decoder.arg_inputs, **arg_inputs}
    if set(decoder.args) & set(args) or set(decoder.arg_inputs) & set(arg_inputs):
        return None
    if any(info.arg(name) is None for name in [*all_args, *all_arg_inputs]):
        return None
    return replace(
        decoder,
        id=step_id,
        op=op,
        origin=consumer.origin,
        inputs=decoder.inputs + inputs,
        args=all_args,
        arg_inputs=all_arg_inputs,
        seed=seed,
        info=info,
    )


def _absorb(window: frozenset[str], op: str) -> Rewrite:
    """`crop`/`slice`: the whole consumer becomes the fused decoder (under the consumer's id)."""

    def rewrite(decoder: Step, consumer: Step, catalog: Catalog) -> tuple[Step, ...] | None:
        moved, rest = _split(consumer.args, window)
        moved_inputs, rest_inputs = _split(consumer.arg_inputs, window)
        if rest_inputs or not _out_of_bounds_is_error(consumer.args):
            return None
        # With the "error" policy nothing is ever filled: fill_values has no effect.
        if set(rest) - {"out_of_bounds_policy", "fill_values"}:
            return None  # e.g. dtype: crop casts, the decoder would rescale
        fused = _fused_decoder(
            decoder,
            consumer,
            catalog,
            op,
            step_id=consumer.id,
            args=moved,
            arg_inputs=moved_inputs,
            inputs=consumer.inputs[1:],  # slice's anchor and shape inputs
        )
        return None if fused is None else (fused,)

    return rewrite


def _crop_then_normalize(
    decoder: Step, consumer: Step, catalog: Catalog
) -> tuple[Step, ...] | None:
    """`crop_mirror_normalize` with a crop: the decoder takes the crop, the rest stays."""
    moved, rest = _split(consumer.args, CROP_WINDOW)
    moved_inputs, rest_inputs = _split(consumer.arg_inputs, CROP_WINDOW)
    if not {"crop", "crop_h", "crop_w"} & set(moved) or not _out_of_bounds_is_error(rest):
        return None
    fused = _fused_decoder(
        decoder,
        consumer,
        catalog,
        "decoders.image_crop",
        step_id=decoder.id,
        args=moved,
        arg_inputs=moved_inputs,
    )
    if fused is None:
        return None
    return fused, replace(consumer, args=rest, arg_inputs=rest_inputs)


def _random_crop_then_resize(
    decoder: Step, consumer: Step, catalog: Catalog
) -> tuple[Step, ...] | None:
    """`random_resized_crop`: the decoder draws the window with the same seed, `resize` scales."""
    resize = catalog.get("resize")
    size = consumer.args.get("size")
    if resize is None or consumer.arg_inputs or not isinstance(size, list) or len(size) != 2:
        return None
    moved, rest = _split(consumer.args, RANDOM_WINDOW)
    if set(rest) - RESAMPLING - {"size"}:
        return None
    fused = _fused_decoder(
        decoder,
        consumer,
        catalog,
        "decoders.image_random_crop",
        step_id=decoder.id,
        args=moved,
        arg_inputs={},
        seed=consumer.seed,
    )
    if fused is None:
        return None
    resize_args = {**rest, "size": [float(extent) for extent in size]}
    scaled = replace(consumer, op="resize", args=resize_args, seed=None, info=resize)
    return fused, scaled


# By the operator that follows the decoder.
RULES: dict[str, Rule] = {
    "crop": Rule(_absorb(CROP_WINDOW, "decoders.image_crop")),
    "slice": Rule(_absorb(SLICE_WINDOW, "decoders.image_slice")),
    "crop_mirror_normalize": Rule(_crop_then_normalize),
    "random_resized_crop": Rule(
        _random_crop_then_resize,
        difference="the same seed draws the same crop windows, but random_resized_crop "
        "resamples with pixels from outside its window and resize cannot, so pixels along the "
        "borders differ",
    ),
}
