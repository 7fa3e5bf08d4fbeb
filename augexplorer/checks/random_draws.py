"""Arguments drawn at random per sample: which arguments can be drawn, and whether a draw's
distribution, shape, weights and seed are ones DALI's ``fn.random.*`` accept."""

from __future__ import annotations

import math

from ..catalog import ArgInfo
from ..catalog.limits import (
    COIN_FLIP_KINDS,
    NOT_DRAWN,
    ONE_VALUE_CONSTANTS,
    TAKEN_OUTSIDE,
    VECTOR_LENGTHS,
    limits_of,
    value_counts,
)
from ..spec import Node, Random
from .context import CheckContext
from .numbers import as_float32, out_of_range, shown_number, shown_range
from .probabilities import PROBABILITY_FIX, probability_refused

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
            f"uniform range is reversed ({shown_number(value.low)} > {shown_number(value.high)})",
            node.id,
            arg.name,
            fix="swap low and high",
        )
    elif value.dist == "uniform" and as_float32(value.low) >= as_float32(value.high):
        # DALI draws in float32 from [low, high): a range empty there fails at run time.
        ctx.problem(
            f"uniform range {shown_number(value.low)}..{shown_number(value.high)} is empty",
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
    elif value.dist == "coin_flip" and (refused := probability_refused(value.probability)):
        ctx.problem(
            f"the coin flip's probability {refused}", node.id, arg.name, fix=PROBABILITY_FIX
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
        # DALI repeats one value into the whole vector for a constant only, never per sample
        constant_only = (
            " (one value only as a constant)"
            if value.shape == 1 and (node.op, arg.name) in ONE_VALUE_CONSTANTS
            else ""
        )
        ctx.problem(
            f"this argument takes {value_counts(lengths)} values per sample{constant_only}; "
            f"the draw has shape {value.shape}",
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


def check_draw_range(
    ctx: CheckContext, node: Node, op: str, arg: ArgInfo, value: Random, drawer: str | None = None
) -> None:
    """Whether every value `value` can draw for argument `arg` of `node` (operator `op`) lies in
    the range a constant must (:data:`~augexplorer.catalog.limits.LIMITS`), as the constant is
    checked: DALI checks each drawn value only when a batch draws it, so a draw that reaches past
    the range fails some later batch, or the training loader. `drawer`: the plain draw node the
    argument reads (whose draw `value` is), named in the problem and its fix."""
    limits = limits_of(op, arg.name, node.args)
    if limits is None:
        return
    low, high = limits
    where = f"node {drawer!r} draws it: " if drawer else ""
    if value.dist == "uniform":
        # DALI draws from [low, high), rounded to whole numbers for an integer argument: with
        # both bounds in the (closed) range every drawn value is, as a constant equal to either
        # bound would be; an integer argument's range has whole ends, which rounding keeps.
        outside = [
            (name, bound) for name, bound in value.params().items() if _outside(bound, limits)
        ]
        if not outside:
            return
        named = " and ".join(f"{name} {shown_number(bound)}" for name, bound in outside)
        verb = "are" if len(outside) > 1 else "is"
        ctx.problem(
            f"{where}the uniform draw's {named} {verb} out of range {shown_range(limits)}",
            node.id,
            arg.name,
            fix=_range_fix(value, limits, drawer, max(value.low, low), min(value.high, high)),
        )
    elif value.dist in ("choice", "coin_flip"):
        drawn: tuple[object, ...] = value.values
        if value.dist == "coin_flip":
            drawn = tuple(v for v, p in ((0, 1 - value.probability), (1, value.probability)) if p)
        bad = [v for v in dict.fromkeys(drawn) if _outside(v, limits)]
        if not bad:
            return
        shown = ", ".join(shown_number(v) for v in bad)
        what = "coin flip's value" if value.dist == "coin_flip" else "choice's value"
        verb = "are" if len(bad) > 1 else "is"
        ctx.problem(
            f"{where}the {what}{'s' if len(bad) > 1 else ''} {shown} {verb} out of range "
            f"{shown_range(limits)}",
            node.id,
            arg.name,
            fix=f"choose among values inside {shown_range(limits)}: change or drop {shown}",
        )
    elif value.dist == "normal":
        if value.stddev == 0:  # every draw is the mean
            if _outside(value.mean, limits):
                ctx.problem(
                    f"{where}the normal draw's mean {out_of_range(value.mean, limits)}",
                    node.id,
                    arg.name,
                    fix=f"use a mean in {shown_range(limits)}",
                )
            return
        if (op, arg.name) in TAKEN_OUTSIDE:
            return  # DALI takes the far draws there (see TAKEN_OUTSIDE)
        share = _normal_outside(value.mean, value.stddev, limits)
        ctx.problem(
            f"{where}a normal draw has no bounds: "
            f"N({shown_number(value.mean)}, {shown_number(value.stddev)}) leaves "
            f"range {shown_range(limits)} on {_share(share)}, and DALI fails the batch "
            "that draws one",
            node.id,
            arg.name,
            fix=_range_fix(
                value,
                limits,
                drawer,
                max(value.mean - 2 * value.stddev, low),
                min(value.mean + 2 * value.stddev, high),
            )
            + f", the mean ± 2 stddev kept in range; or clamp the draw: an expression node "
            f"math.clamp(draw, {shown_number(low)}, {shown_number(high)}) between a "
            "random.normal node and the argument",
        )


def _outside(value: object, limits: tuple[float, float]) -> bool:
    return isinstance(value, (int, float)) and not limits[0] <= value <= limits[1]


def _range_fix(
    value: Random, limits: tuple[float, float], drawer: str | None, start: float, end: float
) -> str:
    """Draw from `start`..`end` (the draw's range cut to `limits`), or from all of `limits` where
    nothing of the draw's range is left."""
    low, high = limits
    if not start < end:
        start, end = low, high
    if drawer:
        return f"give {drawer!r} a range inside {shown_range(limits)}: range=[{start:g}, {end:g}]"
    shape = f", shape={value.shape}" if value.shape is not None else ""
    return (
        f"draw from a range inside {shown_range(limits)}: Random.uniform({start:g}, {end:g}{shape})"
    )


def _normal_outside(mean: float, stddev: float, limits: tuple[float, float]) -> float:
    """The share of N(mean, stddev)'s draws outside `limits`."""
    below = 0.5 * math.erfc((mean - limits[0]) / (stddev * math.sqrt(2)))
    above = 0.5 * math.erfc((limits[1] - mean) / (stddev * math.sqrt(2)))
    return below + above


def _share(share: float) -> str:
    """`share` of the samples, in words."""
    if share >= 0.001:
        return f"{share:.1%} of samples"
    if share > 0:
        return f"1 in {round(1 / share):,} samples"
    return "a share of samples too small to print, but not none"
