"""How a scalar argument must be shaped when the live engine feeds it per sample.

DALI reads most per-sample arguments fed through ``external_source`` as 0-D tensors, the same as
a constant. A few operators want per-sample parameters with the rank of their input, where a
constant scalar is broadcast for them (measured on DALI 2.4; ``tests/test_fed_arguments.py``
checks every per-sample argument of the image operators against a plain DALI pipeline).
Keys are (`fn` name, argument name).
"""

from __future__ import annotations

from typing import Literal

FedShape = Literal["input_rank"]

# Fed as a tensor of the input's rank with every extent 1: a scalar broadcast over the sample.
INPUT_RANK: FedShape = "input_rank"

FED_SHAPES: dict[tuple[str, str], FedShape] = {
    ("normalize", "mean"): INPUT_RANK,
    ("normalize", "stddev"): INPUT_RANK,
}

# Never fed: DALI reads a fed value of these differently from the same constant (a constant
# `mask` of 0 still applies sphere and water, a fed 0 skips the sample), so the live engine
# passes them as constants, as the exported module does.
NOT_FED: frozenset[tuple[str, str]] = frozenset({("sphere", "mask"), ("water", "mask")})
