"""When ``random_bbox_crop`` may search for its window forever, which the graph check refuses
(:mod:`augexplorer.checks.crop_search`) and the import of DALI code says.

DALI's search (``RandomBBoxCropImpl::FindProspectiveCrop``): each round draws one of
``thresholds`` (or "no crop" where ``allow_no_crop=True``, which ends it), then tries
``num_attempts`` windows of the ``scaling`` and ``aspect_ratio`` ranges; a window ends it when its
IoU (or overlap) with the boxes, all of them under ``all_boxes_above_threshold=True`` (the
default), reaches the threshold drawn, and some box's centre lies in it. Only
``total_num_attempts`` stops it otherwise, and its default, -1, is no limit. A threshold of 0 or
less is met by any window, so some round ends it; with every threshold above 0, a sample whose
boxes no window can meet (boxes apart, each needed; a small box and a high IoU) keeps it going
forever. Measured on DALI 2.4 and the bundled photos: ``thresholds=[0.9]``, ``scaling=[0.3, 1]``,
``allow_no_crop=False`` did not return in 20 s; with ``total_num_attempts=100`` it returned at
once (taking the best window found where none met 0.9); DALI's SSD thresholds, 0.0 among
them, returned at once too. A window's shape is taken only where its width over height is in
``aspect_ratio`` (each side drawn from ``scaling`` alone; a single ratio, [2, 2], DALI makes
every window's): ``scaling=[1, 1]`` with ``aspect_ratio=[2, 3]``, or ``[0.5, 1]`` with
``[2.5, 3]``, did not return in 20 s either, whatever the thresholds.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

# Attempts suggested at the least: enough that a window that can be found is found, few
# enough that a sample whose boxes no window meets costs a moment.
ATTEMPTS = 100


class EndlessCropSearch(UserWarning):
    """A ``random_bbox_crop`` that may search for its window forever, imported as written."""


class EndlessSearch(NamedTuple):
    """Why a ``random_bbox_crop`` may search forever: the argument to change and the fix."""

    message: str
    argument: str
    fix: str


def endless_search(args: Mapping[str, Any]) -> EndlessSearch | None:
    """Why ``random_bbox_crop`` called with the constants `args` may never return, or None where
    its search ends (a crop may be skipped, attempts are bounded, or a threshold is met by any
    window). An argument that is not a constant is taken as one that ends it."""
    allow = args.get("allow_no_crop", True)
    if not isinstance(allow, int) or allow:  # a bool is an int
        return None
    total = args.get("total_num_attempts", -1)
    if not isinstance(total, int) or total >= 0:
        return None
    never = _shapes_never_valid(args)
    if never is not None:  # no window to take: a bound alone finds none
        fix = (
            "give aspect_ratio a range that meets the ratios scaling gives, or scaling one that "
            "gives aspect_ratio's, or set allow_no_crop=True"
        )
        return EndlessSearch(never, "aspect_ratio", fix)
    thresholds = _thresholds(args)
    if thresholds is None or any(value <= 0 for value in thresholds):
        return None
    return EndlessSearch(_unmet(thresholds), "total_num_attempts", _attempts_fix(args))


def _unmet(thresholds: list[float]) -> str:
    shown = ", ".join(f"{value:g}" for value in thresholds)
    return (
        "with allow_no_crop=False and no total_num_attempts (DALI's default, -1, is no limit), "
        f"DALI searches for a window until one meets a threshold drawn from [{shown}], none of "
        "them 0; on a sample whose boxes no window can meet (boxes apart, each needed while "
        "all_boxes_above_threshold is on; a small box and a high IoU) it searches forever, and "
        "the run, the notebook's kernel with it, never returns"
    )


def _shapes_never_valid(args: Mapping[str, Any]) -> str | None:
    """Why no window's shape is ever taken, where that is so: each side is drawn from
    `scaling` on its own, so a window's width over height lies between min/max and max/min of
    it, and DALI draws again, forever, while that misses `aspect_ratio` (measured: scaling
    [1, 1] with aspect_ratio [2, 3]). Only for windows in 0-1 units (no `crop_shape`, and no
    `input_shape`, which makes the ratio the image's)."""
    if "crop_shape" in args or "input_shape" in args:
        return None
    scaling, aspect = _pair(args, "scaling"), _pair(args, "aspect_ratio")
    if scaling is None or aspect is None or scaling[0] <= 0 or aspect[0] == aspect[1]:
        return None  # (a single ratio, DALI makes every window's: FixAspectRatios)
    low, high = scaling[0] / scaling[1], scaling[1] / scaling[0]
    if aspect[1] >= low and aspect[0] <= high:
        return None
    return (
        f"with allow_no_crop=False and no total_num_attempts (DALI's default, -1, is no limit), "
        f"DALI draws windows until one has an aspect ratio in [{aspect[0]:g}, {aspect[1]:g}], "
        f"but each side drawn from scaling [{scaling[0]:g}, {scaling[1]:g}] gives ratios in "
        f"[{low:g}, {high:g}] only, so it searches forever, and the run, the notebook's kernel "
        "with it, never returns"
    )


def _pair(args: Mapping[str, Any], name: str) -> tuple[float, float] | None:
    """A [min, max] argument's constants (DALI's default for scaling and aspect_ratio: [1, 1]);
    None where it is no pair of numbers, or min is above max."""
    value = args.get(name, [1.0, 1.0])
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        return None
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value):
        return None
    low, high = float(value[0]), float(value[1])
    return (low, high) if 0 <= low <= high and high > 0 else None


def _attempts_fix(args: Mapping[str, Any]) -> str:
    """The fix of thresholds no window may meet, naming a bound: a few rounds of each."""
    per_round = args.get("num_attempts", 1)
    rounds = len(_thresholds(args) or [0.0])
    bound = max(ATTEMPTS, per_round * rounds * 2 if isinstance(per_round, int) else 0)
    return (
        f"set total_num_attempts={bound} (after that many attempts DALI takes the best window "
        "it found), add 0.0 to thresholds, or set allow_no_crop=True"
    )


def _thresholds(args: Mapping[str, Any]) -> list[float] | None:
    """The thresholds as numbers (DALI's default: [0.0]); None where they are not constants."""
    value = args.get("thresholds", [0.0])
    values = value if isinstance(value, (list, tuple)) else [value]
    numbers = [v for v in values if isinstance(v, (int, float)) and not isinstance(v, bool)]
    return [float(v) for v in numbers] if len(numbers) == len(values) else None
