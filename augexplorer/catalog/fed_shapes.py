"""How an argument must be shaped when the live engine feeds it per sample.

DALI reads most per-sample arguments fed through ``external_source`` as the same constant would
be: a scalar as a 0-D tensor, a vector (``crop``, ``size``, ``mean`` of crop_mirror_normalize,
``fill_value``, ``rel_start``, ...) as a 1-D tensor of its values. A few operators want another
shape per sample, where the same constant is reshaped or broadcast for them (measured on DALI
2.4; ``tests/test_fed_arguments.py`` checks every per-sample argument, scalar and vector, of the
image operators against a plain DALI pipeline). Keys are (`fn` name, argument name).
"""

from __future__ import annotations

from typing import Any, Literal

# Fed as a tensor of the input's rank with every extent 1: a scalar broadcast over the sample.
InputRank = Literal["input_rank"]
INPUT_RANK: InputRank = "input_rank"

# A shape such as (2, 3): a vector fed as that matrix (its values in row-major order).
FedShape = InputRank | tuple[int, ...]

FED_SHAPES: dict[tuple[str, str], FedShape] = {
    ("normalize", "mean"): INPUT_RANK,
    ("normalize", "stddev"): INPUT_RANK,
    # a constant matrix is its 6 or 9 values; a per-sample one must be 2x3 or 3x3
    ("warp_affine", "matrix"): (2, 3),
    ("experimental.warp_perspective", "matrix"): (3, 3),
}

# Never fed: DALI reads a fed value of these differently from the same constant (a constant
# `mask` of 0 still applies sphere and water, a fed 0 skips the sample), or does not see it fed
# (squeeze: "Missing argument axes or axis_names", measured on DALI 2.4, where a training
# script's `fn.squeeze(labels, axes=[0])` runs), so the live engine passes them as constants,
# as the exported module does.
NOT_FED: frozenset[tuple[str, str]] = frozenset(
    {("sphere", "mask"), ("water", "mask"), ("squeeze", "axes")}
)

# Not fed while they hold one value: DALI broadcasts a one-value constant over the spatial axes
# (`fn.resize(size=256)`, which DALI's own ResNet-50 example writes and serializes as [256.0])
# but refuses the same value fed as a 1-element tensor ("cannot describe a 2D shape").
# Measured on DALI 2.4 against every per-sample vector argument of the image operators.
NOT_FED_ONE_VALUE: frozenset[tuple[str, str]] = frozenset(
    {
        ("resize", "size"),
        ("resize", "roi_start"),
        ("resize", "roi_end"),
        ("slice", "start"),
        ("slice", "end"),
        ("slice", "shape"),
        ("slice", "rel_start"),
        ("slice", "rel_end"),
        ("slice", "rel_shape"),
        ("pad", "shape"),
        ("pad", "align"),
        ("transforms.rotation", "center"),
        ("transforms.scale", "center"),
        ("transforms.shear", "center"),
        ("experimental.warp_perspective", "size"),
        ("experimental.warp_perspective", "matrix"),
    }
)

# Fed only while another argument of the same call does not hold the value given: normalize
# refuses mean and stddev as per-sample inputs when batch=True ("Batch normalization cannot be
# used with parameters specified as TensorList inputs"), and takes the same constants baked.
NOT_FED_WITH: dict[tuple[str, str], tuple[str, Any]] = {
    ("normalize", "mean"): ("batch", True),
    ("normalize", "stddev"): ("batch", True),
}
