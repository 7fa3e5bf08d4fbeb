"""Integers no DALI argument can hold, found before any other check reads them.

A spec made through the Python API (``session.set_arg(node, arg, 10**400)``) may hold integers of
any size. DALI holds 64-bit integers and float64 numbers, so such a value can only be refused;
refusing it first keeps the other checks from meeting it (``math.isfinite(10**400)`` raises
OverflowError, and ``repr`` of an integer of more than 4,300 digits raises ValueError).
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from typing import Any

from ..catalog.limits import PROBABILITY
from ..errors import Problem
from ..spec import GraphSpec, Node, Random, Source
from ..spec.schema import INT_MAX, INT_MIN

# What a 64-bit integer argument holds; past this even a float64 holds no exact whole number.
HELD = (INT_MIN, INT_MAX)


def is_held(value: int) -> bool:
    """Whether integer `value` fits an int64 or a uint64, as DALI holds integers."""
    return INT_MIN <= value <= INT_MAX


def shown_integer(value: int) -> str:
    """`value` described short enough for a message, without ever asking Python for all of its
    digits (more than 4,300 of them raise ValueError)."""
    if -(10**20) < value < 10**20:
        return f"the number {value}"
    digits = int(value.bit_length() * 0.30103) + 1  # log10(2): the count, give or take one
    sign = "a negative" if value < 0 else "an"
    return f"{sign} integer of about {digits:,} digits"


def shown_number(value: object) -> str:
    """A number as a person types it, exact and without a needless ``.0`` (-5, 16384, 0.25), as
    the panel's boxes show numbers; anything else as Python writes it."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return repr(value)
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return repr(value)


def shown_range(limits: tuple[float, float]) -> str:
    """``[low, high]``, each end as `shown_number` writes it."""
    return f"[{shown_number(limits[0])}, {shown_number(limits[1])}]"


def out_of_range(value: object, limits: tuple[float, float]) -> str:
    """``1.5 is out of range [0, 1]``: one wording for a value past its range, whichever check
    or control refuses it."""
    return f"{shown_number(value)} is out of range {shown_range(limits)}"


def in_range_fix(limits: tuple[float, float]) -> str:
    """The fix for a value :func:`out_of_range` refused."""
    return f"use a value in {shown_range(limits)}"


def too_large(value: Any) -> int | None:
    """The first integer in `value` (a constant, a list of them, or a draw's parameters) that no
    DALI argument holds; None when there is none."""
    for number in _integers(value):
        if not is_held(number):
            return number
    return None


def _integers(value: Any) -> Iterator[int]:
    if isinstance(value, bool):
        return
    if isinstance(value, int):
        yield value
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _integers(item)
    elif isinstance(value, Random):
        for item in (value.low, value.high, value.mean, value.stddev, value.probability):
            yield from _integers(item)
        yield from _integers(value.values)
        yield from _integers(value.p)
        yield from _integers(value.shape)
        yield from _integers(value.seed)


def out_of_range_message(number: int) -> str:
    bound = f"less than {INT_MIN}" if number < 0 else f"more than {INT_MAX}"
    return (
        f"{shown_integer(number)} is out of range: DALI holds 64-bit integers and float64 "
        f"numbers, and this is {bound}"
    )


def unheld_numbers(spec: GraphSpec) -> list[Problem]:
    """A problem for each setting of `spec` holding an integer no DALI argument holds."""
    problems: list[Problem] = []

    def check(value: Any, node: str | None, argument: str, fix: str) -> None:
        number = too_large(value)
        if number is not None:
            message = out_of_range_message(number)
            if node is None:  # a setting of the graph: Problem names no argument without a node
                message = f"the graph's {argument.replace('_', ' ')}: {message}"
            problems.append(Problem(message, node, argument, fix))

    check(spec.seed, None, "seed", "use a seed such as 42")
    check(spec.batch_size, None, "batch_size", "use a batch size such as 8")
    for node in spec.nodes:
        if isinstance(node, Source):
            check(node.seed, node.id, "seed", "use a seed such as 42, or leave it out")
            for name, value in node.reader_args.items():
                check(value, node.id, name, "use a value the reader takes, or leave it out")
        elif isinstance(node, Node):
            check(node.seed, node.id, "seed", "use a seed such as 42, or leave it out")
            if node.probability is not None:
                check(node.probability.p, node.id, "probability", in_range_fix(PROBABILITY))
                check(node.probability.seed, node.id, "probability", "use a seed such as 42")
            for name, value in node.args.items():
                check(value, node.id, name, "use a value in the argument's range")
    return problems


def as_float32(value: float) -> float:
    """`value` as DALI holds it in a float32 argument (two close ends may become one)."""
    return float(struct.unpack("f", struct.pack("f", value))[0])
