"""albumentations' CoarseDropout as DALI's ``erase`` with random holes. Grade measured by
``tests/test_port_albumentations_parity.py`` against albumentations 2.0.8."""

from __future__ import annotations

from typing import Any

from ...spec import Ref
from .arguments import Args, NotPorted
from .nodes import const, expr, step, uniform_node, values_node
from .registry import Mapped, mapping, refused


def _hole_ranges(args: Args) -> tuple[tuple[float, float], tuple[float, float]]:
    """Hole height and width ranges: 2.x's ``hole_*_range`` (fractions of the image if floats,
    else pixels), or 1.x's ``min_height``..``max_height`` (pixels, or fractions if floats)."""
    if args.has("hole_height_range") or args.has("hole_width_range"):
        return (
            args.pair("hole_height_range", (0.1, 0.2)),
            args.pair("hole_width_range", (0.1, 0.2)),
        )
    high_h = args.number("max_height", 8)
    high_w = args.number("max_width", high_h)
    low_h = args.get("min_height") or high_h
    low_w = args.get("min_width") or high_w
    return (float(low_h), high_h), (float(low_w), high_w)


def _hole_counts(args: Args) -> tuple[int, int]:
    if args.has("num_holes_range"):
        low, high = args.pair("num_holes_range", (1.0, 1.0))
        return int(low), int(high)
    high = int(args.number("max_holes", 8))
    low = args.get("min_holes") or high
    return int(low), high


@mapping("CoarseDropout")
def coarse_dropout(args: Args) -> Mapped:
    heights, widths = _hole_ranges(args)
    fewest, most = _hole_counts(args)
    fractions = all(v <= 1.0 for v in (*heights, *widths)) and any(
        isinstance(v, float) and not float(v).is_integer() for v in (*heights, *widths)
    )
    if not fractions and any(v < 1 for v in (*heights, *widths)):
        raise NotPorted("hole sizes mix fractions and pixels; give both as fractions or pixels")
    fill = args.fill()
    if not isinstance(fill, float):
        raise NotPorted(f"fill={fill!r}: only one fill value for every channel is ported")
    low = [heights[0], widths[0]] * most
    span = [heights[1] - heights[0], widths[1] - widths[0]] * most
    if not fractions:  # albumentations draws whole pixels, both ends included
        span = [s + 1 for s in span]
    nodes: list[Any] = [
        uniform_node("hole_draw", 0.0, 1.0, shape=2 * most),
        const("hole_low", low),
        const("hole_span", span),
        expr(
            "hole_size",
            "hole_low + hole_draw * hole_span"
            if fractions
            else "math.floor(hole_low + hole_draw * hole_span)",
            ["hole_low", "hole_draw", "hole_span"],
        ),
        uniform_node("anchor_draw", 0.0, 1.0, shape=2 * most),
    ]
    if fractions:  # the hole lies inside the image, as albumentations places it
        nodes.append(
            expr("hole_anchor", "anchor_draw * (1.0 - hole_size)", ["anchor_draw", "hole_size"])
        )
        anchor = "hole_anchor"
    else:
        anchor = "anchor_draw"
    size = "hole_size"
    if fewest < most:
        nodes += [
            values_node("hole_count", [float(k) for k in range(fewest, most + 1)]),
            const("hole_index", [float(i // 2) for i in range(2 * most)]),
            expr(
                "hole_kept",
                "hole_size * (hole_index < hole_count)",
                ["hole_size", "hole_index", "hole_count"],
            ),
        ]
        size = "hole_kept"
    nodes.append(
        step(
            "dropout",
            "erase",
            {
                "anchor": Ref(anchor),
                "shape": Ref(size),
                "axis_names": "HW",
                "normalized_anchor": True,
                "normalized_shape": fractions,
                "fill_value": fill,
            },
        )
    )
    differences = ["holes drawn by DALI's generator"]
    if not fractions:
        differences.append(
            "holes sized in pixels may reach past the image's edge (albumentations keeps them "
            "inside), so slightly less is erased on average"
        )
    return Mapped(tuple(nodes), "distribution" if fractions else "approximate", tuple(differences))


refused("GridDropout", "erase with a fixed grid of regions (no random grid offset per image)")
refused("Erasing", "erase with random anchors (area and aspect drawn as RandomErasing does)")
refused("XYMasking", "erase")
refused("PixelDropout", "noise.salt_and_pepper")
