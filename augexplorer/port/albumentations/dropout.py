"""albumentations' dropouts: CoarseDropout and Erasing as DALI's ``erase`` with holes drawn per
image (expressions on uniform draws and the image's size), PixelDropout as a per-pixel coin.
Grades measured by ``tests/test_port_albumentations_draws.py`` against albumentations 2.0.8."""

from __future__ import annotations

from typing import Any

from ...spec import Node, Ref
from .arguments import Args, NotPorted
from .nodes import const, expr, step, to_uint8, uniform_node, values_node
from .registry import IMAGE, Mapped, mapping

# albumentations 1.x's names for the holes' sizes and count (pixels, or fractions if floats);
# 2.x took them out for ``hole_*_range`` and ``num_holes_range``, whose defaults hold where
# neither is given
_SIZES_1X = ("max_height", "max_width", "min_height", "min_width")
_COUNTS_1X = ("max_holes", "min_holes")


def _hole_ranges(args: Args) -> tuple[tuple[float, float], tuple[float, float]]:
    """Hole height and width ranges: 2.x's ``hole_*_range`` (fractions of the image if floats,
    else pixels), or 1.x's ``min_height``..``max_height`` where those are given."""
    if not any(args.has(name) for name in _SIZES_1X):
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
    """2.x's ``num_holes_range`` (default 1..2), or 1.x's ``min_holes``..``max_holes``."""
    if not any(args.has(name) for name in _COUNTS_1X):
        low, high = args.pair("num_holes_range", (1.0, 2.0))
        return int(low), int(high)
    high = int(args.number("max_holes", 8))
    low = args.get("min_holes") or high
    return int(low), high


@mapping("CoarseDropout")
def coarse_dropout(args: Args) -> Mapped:
    """Holes drawn as albumentations 2.x draws them: a count, then each hole's height and width
    (whole pixels in the range, or the image's size times a fraction, truncated) and its corner
    (whole pixels, the hole inside the image). Each hole is a pair of [h, w] entries of vectors
    as long as the most holes; holes beyond the count drawn are sized 0."""
    heights, widths = _hole_ranges(args)
    fewest, most = _hole_counts(args)
    in_pixels = heights[1] >= 1  # albumentations' own test
    drawn_fill = args.get("fill", None, "fill_value", "value") == "random"
    fill = 0.0 if drawn_fill else args.fill()
    if not isinstance(fill, float):
        raise NotPorted(f"fill={fill!r}: only one fill value for every channel is ported")
    if drawn_fill and args.float_image:
        raise NotPorted(
            "fill='random' after Normalize or ToFloat draws floats albumentations' way, not "
            "ported (fix: put CoarseDropout before Normalize or ToFloat)"
        )
    low = [heights[0], widths[0]] * most
    high = [heights[1], widths[1]] * most
    nodes: list[Node] = [
        const("on_height", [1.0, 0.0] * most),
        const("on_width", [0.0, 1.0] * most),
        # each entry's image size: the height for hole heights, the width for hole widths
        expr(
            "hole_room",
            "image.shape()[0] * on_height + image.shape()[1] * on_width",
            [IMAGE, "on_height", "on_width"],
        ),
        uniform_node("hole_draw", 0.0, 1.0, shape=2 * most),
        const("hole_low", low),
        const("hole_high", high),
    ]
    if in_pixels:  # integers(low, min(high, size) + 1)
        nodes.append(
            expr(
                "hole_size",
                "math.floor(hole_low + hole_draw * (math.min(hole_high, hole_room) - hole_low + 1))",
                ["hole_low", "hole_draw", "hole_high", "hole_room"],
            )
        )
    else:  # (size * uniform(low, high)).astype(int)
        nodes.append(
            expr(
                "hole_size",
                "math.floor(hole_room * (hole_low + hole_draw * (hole_high - hole_low)))",
                ["hole_room", "hole_low", "hole_draw", "hole_high"],
            )
        )
    nodes += [
        uniform_node("anchor_draw", 0.0, 1.0, shape=2 * most),
        expr(
            "hole_anchor",
            "math.floor(anchor_draw * (hole_room - hole_size + 1))",
            ["anchor_draw", "hole_room", "hole_size"],
        ),
    ]
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
    holes = {"anchor": Ref("hole_anchor"), "shape": Ref(size), "axis_names": "HW"}
    drawn = (
        "holes drawn as albumentations draws them, by DALI's generator (area erased, KS "
        "over 320 draws: p 0.56 for holes in fractions, 0.50 in pixels)"
    )
    if drawn_fill:
        return _random_fill(nodes, holes, drawn)
    nodes.append(step("dropout", "erase", {**holes, "fill_value": fill}))
    return Mapped(tuple(nodes), "distribution", (drawn,), frozenset({"hole_room"}))


def _random_fill(nodes: list[Node], holes: dict[str, Any], drawn: str) -> Mapped:
    """fill='random': each hole's pixels drawn uniformly from 0-255, channel by channel, as
    albumentations' integers(0, 256) fills them: a mask of the holes (DALI's erase of ones)
    picks between the image and a uniform draw per value."""
    helpers = [
        expr("hole_ones", "image * 0 + 1", [IMAGE]),
        step("hole_mask", "erase", {**holes, "fill_value": 0.0}, reads="hole_ones"),
        Node("hole_noise", "random.uniform", inputs=(Ref(IMAGE),), args={"range": [0.0, 256.0]}),
    ]
    mixed = "image * hole_mask + math.floor(hole_noise) * (1 - hole_mask)"
    nodes += [
        *helpers,
        expr("dropout_mixed", mixed, [IMAGE, "hole_mask", "hole_noise"]),
        to_uint8("dropout", "dropout_mixed"),
    ]
    said = (
        "fill='random': each hole's values drawn uniformly from 0 to 255, per pixel and "
        "channel, as albumentations draws them, by DALI's generator"
    )
    measures = frozenset({"hole_room", *(node.id for node in helpers)})
    return Mapped(tuple(nodes), "distribution", (drawn, said), measures)


@mapping("Erasing", positional=("scale", "ratio", "fill"))
def erasing(args: Args) -> Mapped:
    """One rectangle per image, drawn as albumentations 2.x draws it: an area uniform between
    the smallest and the largest that fits, an aspect ratio uniform in what that area allows,
    sides rounded, the corner uniform over whole pixels."""
    s_low, s_high = args.pair("scale", (0.02, 0.33))
    r_low, r_high = args.pair("ratio", (0.3, 3.3))
    fill = args.fill()
    if not isinstance(fill, float):
        raise NotPorted(f"fill={fill!r}: only one fill value for every channel is ported")
    nodes = (
        expr("erase_hw", "image.shape()[0:2] * 1.0", [IMAGE]),
        uniform_node("erase_draws", 0.0, 1.0, shape=4),
        expr(
            "erase_area_range",
            # the smallest area, and the largest that fits both sides at either ratio end
            f"erase_hw[0] * erase_hw[1] * {s_low!r}",
            ["erase_hw"],
        ),
        expr(
            "erase_area_top",
            f"math.min(math.min(erase_hw[0] * erase_hw[1] * {s_high!r}, "
            f"{r_low!r} * erase_hw[0] * erase_hw[0]), erase_hw[1] * erase_hw[1] / {r_high!r})",
            ["erase_hw"],
        ),
        expr(
            "erase_area",
            "erase_area_range + erase_draws[0] * (erase_area_top - erase_area_range)",
            ["erase_area_range", "erase_draws", "erase_area_top"],
        ),
        expr(
            "erase_ratio",
            f"math.max({r_low!r}, erase_area / (erase_hw[0] * erase_hw[0])) + erase_draws[1] * "
            f"(math.min({r_high!r}, erase_hw[1] * erase_hw[1] / erase_area) - "
            f"math.max({r_low!r}, erase_area / (erase_hw[0] * erase_hw[0])))",
            ["erase_area", "erase_hw", "erase_draws"],
        ),
        const("axis_h", [1.0, 0.0]),
        const("axis_w", [0.0, 1.0]),
        # [h, w] = sqrt(area / ratio) * [1, ratio], rounded to whole pixels
        expr(
            "erase_shape",
            "math.floor(math.sqrt(erase_area / erase_ratio) * (axis_h + erase_ratio * axis_w) "
            "+ 0.5)",
            ["erase_area", "erase_ratio", "axis_h", "axis_w"],
        ),
        expr(
            "erase_anchor",
            "math.floor(erase_draws[2:4] * (erase_hw - erase_shape + 1))",
            ["erase_draws", "erase_hw", "erase_shape"],
        ),
        step(
            "erasing",
            "erase",
            {
                "anchor": Ref("erase_anchor"),
                "shape": Ref("erase_shape"),
                "axis_names": "HW",
                "fill_value": fill,
            },
        ),
    )
    return Mapped(
        nodes,
        "distribution",
        (
            "area, aspect ratio and corner drawn as albumentations 2.x draws them, by DALI's "
            "generator (area erased: KS p 0.56 over 320 draws); where no area fits, "
            "albumentations erases nothing: not reproduced",
        ),
        frozenset({"erase_hw"}),
    )


@mapping("PixelDropout", positional=("dropout_prob", "per_channel", "drop_value"))
def pixel_dropout(args: Args) -> Mapped:
    chance = args.number("dropout_prob", 0.01)
    value = args.get("drop_value", 0)
    if value is None or isinstance(value, str):
        raise NotPorted("drop_value=None (random values) is not ported; give a number")
    if not isinstance(value, (int, float)):
        raise NotPorted(f"drop_value={value!r}: only one value for every channel is ported")
    per_channel = bool(args.get("per_channel", False))
    # the coin flips take their shape from a plain array of the image's (or one channel's)
    plane = "image * 0" if per_channel else "image[:, :, 0:1] * 0"
    nodes: list[Node] = [expr("pixel_plane", plane, [IMAGE])]
    like = "pixel_plane"
    nodes += [
        Node(
            "pixel_kept",
            "random.coin_flip",
            inputs=(Ref(like),),
            args={"probability": 1.0 - chance, "dtype": "UINT8"},
        ),
        expr(
            "pixel_dropped",
            f"image * pixel_kept + {float(value)!r} * (1 - pixel_kept)",
            [IMAGE, "pixel_kept"],
        ),
        to_uint8("pixel_dropout", "pixel_dropped"),
    ]
    return Mapped(
        tuple(nodes),
        "distribution",
        ("each pixel dropped with the same chance, by DALI's generator (KS p 0.44)",),
        frozenset({"pixel_plane"}),
    )
