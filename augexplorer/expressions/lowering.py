"""Expression and constant steps as DALI calls, made by the builder.

The exporter (:mod:`augexplorer.export.expression_source`) writes the same checked expression
as source, so the module computes what the explorer computes: plain DataNode arithmetic.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..plan import Step
from .nodes import CONSTANT, TEXT, constants, parsed
from .syntax import evaluate


def lower(step: Step, inputs: Sequence[Any]) -> list[Any]:
    """The DataNode of an expression or constant step, inside a pipeline being defined;
    `inputs`: the DataNodes of its inputs."""
    if step.op == CONSTANT:
        from nvidia.dali import types

        dtype = types.DALIDataType.__members__[step.args["dtype"]]
        return [
            types.Constant(
                list(step.args["values"]),
                dtype=dtype,
                shape=list(step.args["shape"]),
                layout=step.args.get("layout"),
            )
        ]
    from nvidia.dali import math as dali_math

    checked = parsed(step.args[TEXT])
    # no zip(strict=...): under DALI conditionals autograph runs this, and its zip has none
    bound = {name: inputs[index] for index, name in enumerate(checked.names)}
    return [evaluate(checked, bound, constants(checked, step.args), dali_math)]
