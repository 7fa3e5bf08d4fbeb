"""How OpenCV's interpolations other than INTER_LINEAR and INTER_AREA differ from DALI's for the
same output size, as measured on Resize (``tests/test_port_albumentations_parity.py``, 19 photos):
every albumentations transform that resizes with one (Resize, the max-size resizes, RandomScale,
the resized crops) is graded approximate with it."""

from __future__ import annotations

from .arguments import Args

# by OpenCV's flag: 0 INTER_NEAREST, 2 INTER_CUBIC, 4 INTER_LANCZOS4, 6 INTER_NEAREST_EXACT
DIFFERENCES = {
    0: "OpenCV's INTER_NEAREST samples from each pixel's corner, DALI's nearest from its centre: "
    "a one-pixel shift (to 120x90: mean 9.9, max 247 grey levels)",
    2: "OpenCV's bicubic (a = -0.75) and DALI's cubic weigh neighbours otherwise (19 photos to "
    "120x90: mean 0.50, max 14 grey levels; to 400x300: mean 0.48, max 17)",
    4: "OpenCV's Lanczos reads 8x8 neighbours, DALI's Lanczos 6x6 (19 photos to 120x90: mean "
    "0.32, max 9 grey levels; to 400x300: mean 0.30, max 9)",
    6: "where a sample falls halfway, OpenCV and DALI pick other neighbours (to 120x90: mean "
    "0.7, max 171 grey levels)",
}


def resampling_differences(args: Args, name: str = "interpolation") -> tuple[str, ...]:
    """What the resampling of the transform's interpolation `name` changes, measured; empty for
    INTER_LINEAR (within a grey level) and INTER_AREA (:func:`.arguments.area_differences`)."""
    said = DIFFERENCES.get(args.get(name, 1))
    return (said,) if said is not None else ()


# for the coverage page: each interpolation's difference, in the flags' order
RESAMPLING_DIFFERENCES = tuple(DIFFERENCES[flag] for flag in sorted(DIFFERENCES))
