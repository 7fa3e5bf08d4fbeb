"""Valid ranges and string choices that DALI's schemas do not state, for a clear error at the edge
instead of a DALI failure at run time. Keys are (`fn` name or "*", argument name)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

from ..spec import DISTRIBUTIONS

_WINDOWED = ("slice", "decoders.image_slice")

# Every probability: a coin's argument, a coin flip drawn, a node's apply probability.
PROBABILITY = (0.0, 1.0)

LIMITS: dict[tuple[str, str], tuple[float, float]] = {
    ("*", "probability"): PROBABILITY,
    ("*", "crop_pos_x"): (0.0, 1.0),
    ("*", "crop_pos_y"): (0.0, 1.0),
    ("*", "crop_pos_z"): (0.0, 1.0),
    ("*", "resize_x"): (0.0, 16384.0),
    ("*", "resize_y"): (0.0, 16384.0),
    ("*", "resize_shorter"): (0.0, 16384.0),
    ("*", "resize_longer"): (0.0, 16384.0),
    ("*", "crop_h"): (0.0, 16384.0),
    ("*", "crop_w"): (0.0, 16384.0),
    ("*", "crop"): (0.0, 16384.0),
    ("*", "size"): (0.0, 16384.0),
    ("*", "num_attempts"): (1.0, 10000.0),
    ("*", "num_threads"): (1.0, 1024.0),
    ("python_function", "num_outputs"): (1.0, 64.0),
    ("jpeg_compression_distortion", "quality"): (1.0, 100.0),
    ("noise.salt_and_pepper", "prob"): (0.0, 1.0),
    ("noise.salt_and_pepper", "salt_vs_pepper"): (0.0, 1.0),
    ("noise.gaussian", "stddev"): (0.0, 1e6),
    ("gaussian_blur", "sigma"): (0.0, 1e3),
    ("gaussian_blur", "window_size"): (0.0, 1025.0),
    ("grid_mask", "ratio"): (0.0, 1.0),
    # 0 tiles kills the process (a division by zero in DALI 2.4); a negative count fails
    ("clahe", "tiles_x"): (1.0, 256.0),
    ("clahe", "tiles_y"): (1.0, 256.0),
    # a window outside the input fails (reshape's rel_shape, a factor of each extent, is not one)
    **{(op, arg): (0.0, 1.0) for op in _WINDOWED for arg in ("rel_start", "rel_shape", "rel_end")},
    # the high end of the [low, high] pair may be more (PAIR_HIGH_LIMITS)
    ("random_resized_crop", "random_area"): (0.0, 1.0),
    ("decoders.image_random_crop", "random_area"): (0.0, 1.0),
    ("saturation", "saturation"): (0.0, 1e3),
    ("brightness", "brightness"): (0.0, 1e3),
    ("contrast", "contrast"): (0.0, 1e3),
}

# Ranges above that DALI does not hold the argument to: a value outside runs (measured on DALI
# 2.4: brightness -0.5 and 1500 give a picture), so they only keep constants and uniform bounds
# sensible. A normal draw, which has no bounds, is taken there (DALI's own examples jitter
# brightness with fn.random.normal); on any other range its far draws fail the batch.
TAKEN_OUTSIDE: frozenset[tuple[str, str]] = frozenset(
    {("brightness", "brightness"), ("contrast", "contrast"), ("saturation", "saturation")}
)


# The range of the high end of a [low, high] pair where it is wider than LIMITS' (which then holds
# a lone value and the low end). DALI's ResNet-50 examples write random_area=[0.08, 1.25]: an area
# drawn larger than the image is drawn again (measured on DALI 2.4: a high end of 1.25, 3 or 100
# runs), whereas a low end above 1 fails the batch (the decoder's crop window is garbage,
# random_resized_crop kills the process).
PAIR_HIGH_LIMITS: dict[tuple[str, str], tuple[float, float]] = {
    ("random_resized_crop", "random_area"): (0.0, 100.0),
    ("decoders.image_random_crop", "random_area"): (0.0, 100.0),
}


def element_limits(
    op: str, arg: str, index: int, count: int, args: Mapping[str, object] | None = None
) -> tuple[float, float] | None:
    """The range of element `index` of a constant of `count` values of argument `arg` of
    operator `op`: :func:`limits_of`'s, but for the high end of a pair in
    :data:`PAIR_HIGH_LIMITS`."""
    if count == 2 and index == 1 and (op, arg) in PAIR_HIGH_LIMITS:
        return PAIR_HIGH_LIMITS[(op, arg)]
    return limits_of(op, arg, args)


# Ranges another argument of the node lifts: slice pads or trims a window reaching outside its
# input when its out_of_bounds_policy says so (measured on DALI 2.4: rel_start [-0.25, -0.5]
# with rel_shape [1.5, 2] pads), and fails with the default, "error".
LIFTED_BY: dict[tuple[str, str], tuple[str, frozenset[str]]] = {
    ("slice", arg): ("out_of_bounds_policy", frozenset({"pad", "trim_to_shape"}))
    for arg in ("rel_start", "rel_shape", "rel_end")
}


def limits_of(
    op: str, arg: str, args: Mapping[str, object] | None = None
) -> tuple[float, float] | None:
    """The range LIMITS gives argument `arg` of operator `op` (its own, else every operator's),
    None where the node's other arguments `args` lift it (:data:`LIFTED_BY`)."""
    lifted = LIFTED_BY.get((op, arg))
    if lifted is not None and args is not None and args.get(lifted[0]) in lifted[1]:
        return None
    return LIMITS.get((op, arg)) or LIMITS.get(("*", arg))


STRING_CHOICES: dict[tuple[str, str], tuple[str, ...]] = {
    ("experimental.warp_perspective", "border_mode"): (
        "constant",
        "replicate",  # DALI 2.4's doc and kernel: "clamp" is refused when the pipeline runs
        "reflect",
        "reflect_101",
        "wrap",
    ),
    ("pad", "axis_names"): ("H", "W", "C", "HW", "WH", "HWC"),
    ("experimental.warp_perspective", "pixel_origin"): ("corner", "center"),
    # erase with no axis named kills the process (a division by zero in DALI 2.4)
    ("erase", "axis_names"): ("H", "W", "C", "HW", "WH", "HWC"),
}

# String arguments that become part of a file name: dump_image writes
# "<iteration>-<suffix>-<sample>.ppm" into the current folder, so a "/" in its suffix names a
# folder (one that climbs out with "..", or one that does not exist: DALI fails to open it).
FILE_NAME_PARTS = frozenset({("dump_image", "suffix")})

# The [low, high] ranges a random crop window is drawn from: one value, or a pair whose low end
# is at most its high end (measured on DALI 2.4: none or three values fail when the pipeline is
# built, "expects either a single value or a list of 2 elements"; a reversed pair too, "Provided
# empty range").
RANGE_PAIRS: frozenset[tuple[str, str]] = frozenset(
    (op, arg)
    for op in ("random_resized_crop", "decoders.image_random_crop", "random_crop_generator")
    for arg in ("random_area", "random_aspect_ratio")
)

# [low, high) ranges a draw node takes: two values, high above low in float32 (measured on DALI
# 2.4: one value, [5, 5] and [30, -30] fail when the pipeline runs, "Invalid range"; none or
# three, "expected shape 2").
OPEN_RANGES: frozenset[tuple[str, str]] = frozenset({("random.uniform", "range")})

# How many values a vector argument takes for images, where the schemas say only "a list"
# (measured against DALI 2.4 on HWC images: any other length fails when the pipeline runs).
VECTOR_LENGTHS: dict[tuple[str, str], tuple[int, ...]] = {
    ("crop", "crop"): (2, 3),
    ("crop_mirror_normalize", "crop"): (2, 3),
    ("resize_crop_mirror", "crop"): (2, 3),
    ("resize", "size"): (1, 2),
    ("resize_crop_mirror", "size"): (1, 2),
    ("random_resized_crop", "size"): (1, 2),
    ("rotate", "size"): (2,),
    ("warp_affine", "size"): (2,),
    ("experimental.warp_perspective", "size"): (2,),  # and one, as a constant (below)
    ("warp_affine", "matrix"): (6,),
    # one value for every channel, or one per channel (images have 1 to 4); none kills the
    # process (DALI 2.4)
    ("crop_mirror_normalize", "mean"): (1, 2, 3, 4),
    ("crop_mirror_normalize", "std"): (1, 2, 3, 4),
    ("experimental.warp_perspective", "matrix"): (9,),
    # one value, or the [low, high] range DALI draws from (RANGE_PAIRS)
    **{key: (1, 2) for key in RANGE_PAIRS},
    ("random.uniform", "range"): (2,),
}

# Vector arguments DALI also takes as one constant value, repeated into every element it expects
# (measured on DALI 2.4: warp_perspective(size=[224]) gives 224x224 images, matrix=[2.0] is a
# 3x3 matrix of 2.0), but never one value per sample: a one-value draw or fed tensor fails
# ("Expected uniform shape for argument size"). warp_affine and rotate refuse one value outright.
ONE_VALUE_CONSTANTS: frozenset[tuple[str, str]] = frozenset(
    {("experimental.warp_perspective", "size"), ("experimental.warp_perspective", "matrix")}
)


def constant_lengths(op: str, arg: str) -> tuple[int, ...] | None:
    """How many values a constant of argument `arg` of operator `op` may hold (None: any); a
    per-sample draw takes only :data:`VECTOR_LENGTHS`."""
    lengths = VECTOR_LENGTHS.get((op, arg))
    if lengths is not None and (op, arg) in ONE_VALUE_CONSTANTS:
        return (1, *lengths)
    return lengths


# Vector arguments a per-sample draw cannot stand in for: DALI reads a per-sample matrix as a
# 2-D tensor (2x3, 3x3), and a draw is a flat vector. Value: how to get a random transform.
NOT_DRAWN: dict[tuple[str, str], str] = {
    ("warp_affine", "matrix"): (
        "make the transform with transforms.rotation / transforms.shear / transforms.scale "
        "nodes (their arguments can be random) and connect it as the warp's second input"
    ),
    ("experimental.warp_perspective", "matrix"): (
        "build the 3x3 matrix in a node and connect it as the warp's second input"
    ),
}

# The argument types a coin flip can be drawn for: DALI's random.coin_flip draws bool, uint8 or
# int32 and refuses float, uint32 and int64 when the pipeline runs (DALI 2.4, measured).
COIN_FLIP_KINDS = frozenset({"BOOL", "UINT8", "INT32"})


def distributions_for(kind: str | None) -> tuple[str, ...]:
    """The distributions an argument of DALI type `kind` can be drawn from (all when unknown)."""
    if kind is None or kind in COIN_FLIP_KINDS:
        return DISTRIBUTIONS
    return tuple(d for d in DISTRIBUTIONS if d != "coin_flip")


_OUTPUT_SIZE = ("resize_x", "resize_y", "resize_z", "resize_shorter", "resize_longer", "size")


def value_counts(lengths: tuple[int, ...]) -> str:
    """``(2, 3)`` -> ``"2 or 3"``, as messages and listings say it."""
    return " or ".join(map(str, lengths))


class Needs(NamedTuple):
    """Arguments of which an operator fails at run time unless given at least one."""

    args: tuple[str, ...]
    input: int | None  # the positional input (1-based) that does instead, if any
    what: str  # what is missing, in words
    fix: str  # how to give it


# Operators that need one of some optional arguments (or, for the warps, their matrix as a
# second input).
NEEDS_ONE_OF: dict[str, Needs] = {
    "resize": Needs(
        _OUTPUT_SIZE,
        None,
        "an output size",
        "set resize_shorter to keep the aspect ratio, or size for an exact [height, width]",
    ),
    "resize_crop_mirror": Needs(
        _OUTPUT_SIZE,
        None,
        "an output size",
        "set resize_shorter to keep the aspect ratio, or size for an exact [height, width]",
    ),
    "warp_affine": Needs(
        ("matrix",),
        2,
        "a transform",
        "set matrix to 6 values (a 2x3 matrix; [1, 0, 0, 0, 1, 0] leaves the image as it is)",
    ),
    "experimental.warp_perspective": Needs(
        ("matrix",),
        2,
        "a transform",
        "set matrix to 9 values (a 3x3 matrix; the identity leaves the image as it is)",
    ),
}
