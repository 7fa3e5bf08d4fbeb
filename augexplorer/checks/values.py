"""Constant argument values: whether a value fits an operator argument's DALI type, range and
length, and what to give instead. Used by the graph checks and by the one-value fast path of
an edit (:func:`augexplorer.validate.validate_constant_edit`)."""

from __future__ import annotations

import keyword
import math
from collections.abc import Mapping
from typing import Any

from ..catalog import PYTHON_FUNCTION, ArgInfo, OpInfo
from ..catalog.limits import (
    FILE_NAME_PARTS,
    ONE_VALUE_CONSTANTS,
    OPEN_RANGES,
    PAIR_HIGH_LIMITS,
    RANGE_PAIRS,
    STRING_CHOICES,
    constant_lengths,
    element_limits,
    limits_of,
    value_counts,
)
from ..spec import PythonCode
from .numbers import (
    as_float32,
    in_range_fix,
    out_of_range,
    out_of_range_message,
    shown_number,
    shown_range,
    too_large,
)

_INT_RANGES = {
    "INT8": (-(2**7), 2**7 - 1),
    "INT16": (-(2**15), 2**15 - 1),
    "INT32": (-(2**31), 2**31 - 1),
    "INT64": (-(2**63), 2**63 - 1),
    "UINT8": (0, 2**8 - 1),
    "UINT16": (0, 2**16 - 1),
    "UINT32": (0, 2**32 - 1),
    "UINT64": (0, 2**64 - 1),
}


def check_value(
    info: OpInfo, arg: ArgInfo, value: Any, args: Mapping[str, Any] | None = None
) -> str | None:
    """Why `value` is not a valid constant for `arg`, or None when it is; `args`, the node's
    arguments, where one of them decides the range (:data:`~augexplorer.catalog.limits.LIFTED_BY`)."""
    unheld = too_large(value)
    if unheld is not None:  # checked first: no other check can read such a number
        return out_of_range_message(unheld)
    if arg.is_vector:
        items = list(value) if isinstance(value, (list, tuple)) else [value]
        if not items and arg.required:
            return "needs at least one value"
        for index, item in enumerate(items):
            limits = element_limits(info.name, arg.name, index, len(items), args)
            message = _check_scalar(info, arg, item, limits)
            if message:
                return f"element {shown_number(item)}: {message}"
        lengths = constant_lengths(info.name, arg.name)
        if lengths and len(items) not in lengths:
            return f"takes {_counts_said(info, arg, lengths)}, got {len(items)}"
        return _empty_range(info, arg, items)
    if isinstance(value, (list, tuple)):
        return f"expected a single {arg.kind.lower()}, got a list of {len(value)}"
    return _check_scalar(info, arg, value, limits_of(info.name, arg.name, args))


def _empty_range(info: OpInfo, arg: ArgInfo, items: list[Any]) -> str | None:
    """Why a [low, high] range DALI draws from holds no value (:data:`RANGE_PAIRS`,
    :data:`OPEN_RANGES`), or None."""
    key = (info.name, arg.name)
    if len(items) != 2 or key not in RANGE_PAIRS | OPEN_RANGES:
        return None
    low, high = items
    if low > high:
        return (
            f"the range {shown_range((low, high))} is empty: its low end is above its high end "
            f"(write {shown_range((high, low))})"
        )
    if key in OPEN_RANGES and as_float32(low) >= as_float32(high):
        # DALI draws in float32 from [low, high)
        return (
            f"the range {shown_range((low, high))} is empty: DALI draws from [low, high), "
            "high above low"
        )
    return None


def _counts_said(info: OpInfo, arg: ArgInfo, lengths: tuple[int, ...]) -> str:
    """How many values a constant takes, in words: "2 or 3 values", or for an argument DALI
    fills from one value, "2 values or one (DALI repeats it 2 times)"."""
    if (info.name, arg.name) in ONE_VALUE_CONSTANTS:
        full = value_counts(tuple(n for n in lengths if n != 1))
        return f"{full} values or one (DALI repeats it {full} times)"
    return f"{value_counts(lengths)} values"


def _check_scalar(
    info: OpInfo, arg: ArgInfo, value: Any, limits: tuple[float, float] | None
) -> str | None:
    kind = arg.kind
    if kind == "PYTHON_OBJECT":
        return _check_python(value)
    if isinstance(value, PythonCode):
        return f"only the function of a {PYTHON_FUNCTION} node is Python code"
    if arg.choices:
        if value not in arg.choices:
            return f"{value!r} is not one of {', '.join(arg.choices)}"
        return None
    if kind == "BOOL":
        if not isinstance(value, bool) and value not in (0, 1):
            return f"expected true or false, got {value!r}"
        return None
    if kind in ("STRING", "TENSOR_LAYOUT"):
        if not isinstance(value, str):
            return f"expected text, got {type(value).__name__} {value!r}"
        choices = STRING_CHOICES.get((info.name, arg.name))
        if choices and value not in choices:
            return f"{value!r:.40} is not one of {', '.join(choices)}"
        if (info.name, arg.name) in FILE_NAME_PARTS and not _file_name_part(value):
            return f"{value!r:.40} is not part of a file name: the files would go elsewhere"
        if _names_axes(arg) and not ((value.isascii() and value.isalpha()) or value == ""):
            # DALI names each axis with one letter; other characters fail when the pipeline
            # runs (a non-ASCII one even cuts DALI's own error message mid-character)
            return f"{value!r:.40} is not a layout: write one letter per axis, such as 'HWC'"
        return None
    if arg.is_numeric:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return f"expected a number, got {type(value).__name__} {value!r}"
        if not math.isfinite(value):
            return f"{value} is not a finite number"
        if arg.is_integer:
            if isinstance(value, float) and not value.is_integer():
                return f"expected a whole number, got {value}"
            low, high = _INT_RANGES.get(kind, (-(2**63), 2**63 - 1))
            if not low <= value <= high:
                return f"{shown_number(value)} does not fit in {kind.lower()} ({low}..{high})"
        if limits is not None:
            low_limit, high_limit = limits
            if not low_limit <= value <= high_limit:
                return out_of_range(value, limits)
        return None
    return None  # types the catalog cannot check (rare): DALI reports them at build time


def _file_name_part(text: str) -> bool:
    """Whether `text` can be part of a file name in one folder: no folder separator, no NUL,
    not longer than a file name may be."""
    return not any(c in text for c in "/\\\0") and len(text.encode()) <= 200


def _names_axes(arg: ArgInfo) -> bool:
    """Whether `arg` holds a layout or axis names (letters such as 'HWC')."""
    return arg.kind == "TENSOR_LAYOUT" or arg.name.endswith(("axis_names", "layout", "layouts"))


MAX_PYTHON_SOURCE = 100_000  # characters


def _check_python(value: Any) -> str | None:
    """Why `value` is not usable Python code for a python_function; the source is only looked
    at as text (it is compiled when the user trusts it and runs the graph)."""
    if not isinstance(value, PythonCode):
        return (
            f"expected Python code, got {type(value).__name__} {value!r:.60}; "
            "in JSON {'python': source, 'name': function name}"
        )
    if not value.name.isidentifier() or keyword.iskeyword(value.name):
        return f"{value.name!r:.60} is not a Python function name"
    if not value.source.strip():
        return "the Python source is empty"
    if len(value.source) > MAX_PYTHON_SOURCE:
        return f"the Python source has {len(value.source)} characters (at most {MAX_PYTHON_SOURCE})"
    return None


def value_fix(info: OpInfo, arg: ArgInfo) -> str:
    """What to give `arg` instead of a value it refused."""
    if arg.kind == "PYTHON_OBJECT":
        return "give it PythonCode(source, name) or PythonCode.from_function(my_function)"
    limits = limits_of(info.name, arg.name)
    high_end = PAIR_HIGH_LIMITS.get((info.name, arg.name))
    if limits and high_end:  # says one value or a pair, and each one's range
        return (
            f"use one value in {shown_range(limits)}, or a low end in that range and a "
            f"high end in {shown_range(high_end)}"
        )
    if (info.name, arg.name) in RANGE_PAIRS:
        return "use one value, or two: the [low, high] range to draw from, low first"
    if (info.name, arg.name) in OPEN_RANGES:
        return "give two values: the [low, high) range to draw from, high above low"
    lengths = constant_lengths(info.name, arg.name)
    if lengths:
        return f"give {_counts_said(info, arg, lengths)}: a {arg.describe_type()}"
    if (info.name, arg.name) in FILE_NAME_PARTS:
        return (
            f"use letters, digits, '-', '_' or '.' only (no '/'): {info.name} writes its files "
            "into the current folder, with this in their names"
        )
    if arg.choices:
        return f"use one of {', '.join(arg.choices[:8])}{', ...' if len(arg.choices) > 8 else ''}"
    if limits:
        return in_range_fix(limits)
    if arg.has_default:
        return f"use a {arg.describe_type()}; the default is {arg.default!r}"
    return f"use a {arg.describe_type()}"
