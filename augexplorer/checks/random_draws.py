"""Arguments drawn at random per sample: which arguments can be drawn, and whether a draw's
distribution, shape, weights and seed are ones DALI's ``fn.random.*`` accept."""

from __future__ import annotations

import math
import struct

from ..catalog import ArgInfo
from ..catalog.limits import COIN_FLIP_KINDS, NOT_DRAWN, VECTOR_LENGTHS, value_counts
from ..spec import Node, Random
from .context import CheckContext

CHOICE_WEIGHT_TOLERANCE = 5e-5


def _chance(value: Random) -> float:
    """A coin flip's probability, put in [0, 1] for a fix to suggest."""
    return min(max(value.probability, 0.0), 1.0)


def check_random_binding(ctx: CheckContext, node: Node, arg: ArgInfo, value: Random) -> None:
    """Problems of argument `arg` of `node` drawn as `value`."""
    instead = NOT_DRAWN.get((node.op, arg.name))
    if instead is not None:
        ctx.problem(
            "a per-sample draw is a flat list of numbers; DALI reads this argument per "
            "sample as a matrix",
            node.id,
            arg.name,
            fix=instead,
        )
        return
    if not arg.per_sample:
        ctx.problem(
            "this argument takes one value per batch; it cannot be random per sample",
            node.id,
            arg.name,
            fix="give it a constant",
        )
        return
    if arg.kind not in ("FLOAT", "INT32", "INT64", "BOOL", "UINT8", "UINT32"):
        ctx.problem(
            f"a {arg.kind.lower()} argument cannot be drawn at random",
            node.id,
            arg.name,
            fix="give it a constant",
        )
        return
    numbers = [
        value.low,
        value.high,
        value.mean,
        value.stddev,
        value.probability,
        *value.values,
        *value.p,
    ]
    if any(
        not isinstance(x, (int, float)) or isinstance(x, bool) or not math.isfinite(x)
        for x in numbers
    ):
        ctx.problem(
            f"{value.dist} parameters must be finite numbers",
            node.id,
            arg.name,
            fix="replace NaN/inf/non-numbers",
        )
        return
    if value.dist == "uniform" and value.low > value.high:
        ctx.problem(
            f"uniform range is reversed ({value.low} > {value.high})",
            node.id,
            arg.name,
            fix="swap low and high",
        )
    elif value.dist == "uniform" and _as_float32(value.low) >= _as_float32(value.high):
        # DALI draws in float32 from [low, high): a range empty there fails at run time.
        ctx.problem(
            f"uniform range {value.low}..{value.high} is empty",
            node.id,
            arg.name,
            fix="make high greater than low, or give the argument a constant",
        )
    if value.dist == "normal" and value.stddev < 0:
        ctx.problem(
            "normal stddev must be >= 0", node.id, arg.name, fix="use a non-negative stddev"
        )
    if value.dist == "coin_flip" and arg.kind not in COIN_FLIP_KINDS:
        ctx.problem(
            f"a coin flip draws 0 or 1 as bool, uint8 or int32; DALI cannot draw it for a "
            f"{arg.kind.lower()} argument",
            node.id,
            arg.name,
            fix=f"draw it with choice: values 0, 1 and weights {1 - _chance(value):g}, "
            f"{_chance(value):g}",
        )
    elif value.dist == "coin_flip" and not 0 <= value.probability <= 1:
        ctx.problem(
            "coin flip probability must be in [0, 1]",
            node.id,
            arg.name,
            fix="use a value from 0 to 1",
        )
    if value.dist == "choice" and not value.values:
        ctx.problem(
            "choice needs at least one value",
            node.id,
            arg.name,
            fix="list the values to choose from",
        )
    elif value.dist == "choice" and value.p:
        _check_weights(ctx, node, arg, value)
    if arg.is_vector and value.shape is None:
        ctx.problem(
            "this argument is a vector: the random draw needs a shape",
            node.id,
            arg.name,
            fix="set shape to the vector's length",
        )
    if not arg.is_vector and value.shape not in (None, 1):
        ctx.problem(
            "this argument is a scalar: the random draw cannot have a shape",
            node.id,
            arg.name,
            fix="remove shape",
        )
    if value.shape is not None and not 1 <= value.shape <= 64:
        ctx.problem("shape must be 1..64", node.id, arg.name, fix="use the vector's length")
    lengths = VECTOR_LENGTHS.get((node.op, arg.name))
    if arg.is_vector and value.shape is not None and lengths and value.shape not in lengths:
        ctx.problem(
            f"this argument takes {value_counts(lengths)} values; the draw has shape {value.shape}",
            node.id,
            arg.name,
            fix=f"set shape to {value_counts(lengths)}",
        )
    ctx.check_seed(value.seed, node.id, arg.name)


def _check_weights(ctx: CheckContext, node: Node, arg: ArgInfo, value: Random) -> None:
    """Choice weights as DALI's random.choice takes them: one per value, none negative,
    summing to 1 (DALI allows 1e-4; we keep inside that)."""
    weights, count = value.p, len(value.values)
    if len(weights) != count:
        ctx.problem(
            f"choice has {count} value(s) but {len(weights)} weight(s)",
            node.id,
            arg.name,
            fix="give one weight per value, or no weights for equal chances",
        )
    elif any(w < 0 for w in weights):
        ctx.problem(
            "choice weights cannot be negative",
            node.id,
            arg.name,
            fix="use weights from 0 to 1 that sum to 1",
        )
    elif abs(math.fsum(weights) - 1.0) > CHOICE_WEIGHT_TOLERANCE:
        total = math.fsum(weights)
        scaled = ", ".join(f"{w / total:.4g}" for w in weights) if total > 0 else None
        ctx.problem(
            f"choice weights sum to {total:g}, not 1",
            node.id,
            arg.name,
            fix=f"scale them to sum to 1: {scaled}" if scaled else "give some value a weight",
        )


def _as_float32(value: float) -> float:
    return float(struct.unpack("f", struct.pack("f", value))[0])
