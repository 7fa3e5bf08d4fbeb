"""albumentations' resizes by a drawn factor or to a drawn crop: RandomScale, Downscale and
RandomSizedCrop. Sizes follow each image's own (expressions on its shape), truncated to whole
pixels as albumentations truncates them; resizes do not antialias, as OpenCV's do not (but for
INTER_AREA, DALI's antialiased linear: :meth:`.arguments.Args.resize_interpolation`). Grades
measured by ``tests/test_port_albumentations_parity.py`` against albumentations 2.0.8."""

from __future__ import annotations

import math
from typing import Any

from ...expressions.nodes import constant
from ...spec import Node, Random, Ref
from .arguments import AREA_DIFFERENCE, INTER_AREA, Args, NotPorted, area_differences
from .geometric import RESIZE_EXACT
from .nearest_resize import as_float, nearest_args, rounded_size, window
from .nodes import expr, step, uniform_node, values_node
from .registry import IMAGE, Mapped, mapping
from .resampling import resampling_differences


def _float64(node_id: str, value: float) -> tuple[Node, ...]:
    """`value` as a float64 node, to the last bit: DALI's constant holds no float64, so its
    53-bit mantissa (an int64) is cast and scaled by a power of two (exact in float32)."""
    fraction, exponent = math.frexp(value)
    mantissa = int(fraction * 2**53)
    return (
        constant(f"{node_id}_mantissa", [mantissa], "INT64", shape=[]),
        Node(
            f"{node_id}_wide",
            "cast",
            inputs=(Ref(f"{node_id}_mantissa"),),
            args={"dtype": "FLOAT64"},
        ),
        expr(node_id, f"{node_id}_wide * {2.0 ** (exponent - 53)!r}", [f"{node_id}_wide"]),
    )


@mapping("RandomScale", positional=("scale_limit", "interpolation"))
def random_scale(args: Args) -> Mapped:
    low, high = args.pair("scale_limit", (-0.1, 0.1), symmetric=True)
    # albumentations: int(height * scale), int(width * scale), in float64: a fixed factor is
    # given as float64 too (in float32, 1.3 times 180 rows is 233.99998, floored to 233)
    draw = (
        _float64("scale_draw", 1.0 + low)
        if low == high
        else (uniform_node("scale_draw", 1.0 + low, 1.0 + high),)
    )
    nodes = (
        *draw,
        expr("scaled_rows", "math.floor(image.shape()[0:2] * scale_draw)", [IMAGE, "scale_draw"]),
        Node("scaled_size", "cast", inputs=(Ref("scaled_rows"),), args={"dtype": "FLOAT"}),
        step("scale", "resize", {"size": Ref("scaled_size"), **args.resize_interpolation()}),
    )
    drawn = "the factor drawn uniformly, by DALI's generator"
    area = area_differences(args) or resampling_differences(args)
    return Mapped(
        nodes,
        "approximate" if area else "exact",
        (drawn, *area) if area else (f"{RESIZE_EXACT}; {drawn}",),
        frozenset({"scaled_rows"}),
    )


DOWN_INPUTS = ["downscale_draw", "small_size"]
NEAREST_DIFFERENCE = (
    "INTER_NEAREST as OpenCV does it: its sizes (rounded half to even: 97 x 0.5 is 48) and "
    "its pick of each pixel's source (from the pixel's corner), by DALI's nearest over a "
    "window shifted half a pixel; factors 0.25, 0.3, 0.33, 0.4, 0.5 and 0.75 give the same "
    "pixels (19 photos, both ways nearest). Where OpenCV's float64 product for a row or "
    "column falls a hair short of a whole pixel (a factor such as 0.65, whose 1 / f rounds "
    "down), it takes the pixel before: 16 factors from 0.25 to 0.75, mean 0.17 (0 to 1.15 a "
    "factor), max 254 grey levels, 0 to 9% of values (nearest from the pixel's centre was "
    "mean 12.2 at 0.3)"
)


@mapping("Downscale", positional=("scale_range", "interpolation_pair"))
def downscale(args: Args) -> Mapped:
    if args.has("scale_min"):  # 1.x
        low, high = args.number("scale_min", 0.25), args.number("scale_max", 0.25)
    else:
        low, high = args.pair("scale_range", (0.25, 0.25))
    pair = args.get("interpolation_pair", {"downscale": 0, "upscale": 0})
    if not isinstance(pair, dict) or set(pair) != {"downscale", "upscale"}:
        raise NotPorted("interpolation_pair must name 'downscale' and 'upscale' flags")
    down = Args.__new__(Args)
    down.call, down.values, down.default_p = args.call, dict(pair), 0.5
    # a fixed factor in float64, as OpenCV multiplies the sides by it (450 x 0.37 is 166.5 in
    # float32, 166.49999999999997 in float64: 166 rows)
    draw = (
        _float64("downscale_draw", low)
        if low == high
        else (uniform_node("downscale_draw", low, high),)
    )
    nodes: list[Node] = list(draw)
    measures = {"small_size", "full_size"}
    if pair["downscale"] == 0:
        # OpenCV's nearest by fx, fy: its rounded size, its own 1 / f per pixel
        nodes.append(rounded_size("small_size", "downscale_draw"))
        nodes += window("down_roi", "small_size", "1.0 / downscale_draw", DOWN_INPUTS)
        nodes.append(as_float("small_size_f", "small_size"))
        measures |= {f"down_roi_{e}{w}" for e in ("start", "end") for w in ("", "_wide")}
        measures.add("small_size_f")
        shrink = nearest_args("down_roi", "small_size_f")
    else:
        # OpenCV's resize by fx, fy scales by the factor itself (the size rounded to pixels):
        # DALI does so given the unrounded size with subpixel_scale on
        size = "image.shape()[0:2] * downscale_draw"
        nodes.append(expr("small_size_wide", size, [IMAGE, "downscale_draw"]))
        nodes.append(as_float("small_size", "small_size_wide"))
        measures.add("small_size_wide")
        shrink = {
            "size": Ref("small_size"),
            **down.resize_interpolation("downscale", 0),
            "subpixel_scale": True,
        }
    nodes += [
        expr("full_size", "image.shape()[0:2] * 1.0", [IMAGE]),
        step("downscale", "resize", shrink),
    ]
    if pair["upscale"] == 0:
        # back to the image's size by the ratio of the two sizes, as OpenCV given dsize
        nodes.append(expr("up_small", "downscale.shape()[0:2] * 1.0", ["downscale"]))
        nodes += window("up_roi", "full_size", "up_small / full_size", ["up_small", "full_size"])
        measures |= {f"up_roi_{e}{w}" for e in ("start", "end") for w in ("", "_wide")}
        measures.add("up_small")
        grow = nearest_args("up_roi", "full_size")
    else:
        grow = {"size": Ref("full_size"), **down.resize_interpolation("upscale", 0)}
    nodes.append(step("upscale", "resize", grow, reads="downscale"))
    differences = [
        "shrunk by the drawn factor and resized back, as albumentations does; the factor "
        "drawn uniformly, by DALI's generator",
    ]
    if 1 in pair.values():
        differences.append(
            "OpenCV places the shrunk image's samples slightly otherwise: with INTER_LINEAR "
            "both ways, mean 0.8 (factor 0.4) and 1.0 (0.33) grey levels apart, max 49"
        )
    if INTER_AREA in pair.values():
        differences.append(AREA_DIFFERENCE)
    if 0 in pair.values():
        differences.append(NEAREST_DIFFERENCE)
    return Mapped(tuple(nodes), "approximate", tuple(differences), frozenset(measures))


@mapping("RandomSizedCrop", positional=("min_max_height", "size", "w2h_ratio"), p=1.0)
def random_sized_crop(args: Args) -> Mapped:
    low, high = args.pair("min_max_height", None)
    height, width = args.size()
    ratio = args.number("w2h_ratio", 1.0)
    heights = [float(h) for h in range(int(low), int(high) + 1)]
    nodes: list[Any] = [
        values_node("crop_height", heights),
        # albumentations: int(crop_height * w2h_ratio)
        expr("crop_width", f"math.floor(crop_height * {ratio!r})", ["crop_height"]),
        # albumentations' get_crop_coords clips the window to the image (min(crop, side)):
        # an image smaller than the drawn height is cropped whole along that side
        expr("crop_h_in", "math.min(crop_height, image.shape()[0])", ["crop_height", IMAGE]),
        expr("crop_w_in", "math.min(crop_width, image.shape()[1])", ["crop_width", IMAGE]),
        step(
            "crop",
            "crop",
            {
                "crop_h": Ref("crop_h_in"),
                "crop_w": Ref("crop_w_in"),
                "crop_pos_x": Random.uniform(0.0, 1.0),
                "crop_pos_y": Random.uniform(0.0, 1.0),
            },
        ),
        step(
            "resize",
            "resize",
            {"resize_x": float(width), "resize_y": float(height), **args.resize_interpolation()},
            reads="crop",
        ),
    ]
    area = area_differences(args) or resampling_differences(args)
    return Mapped(
        tuple(nodes),
        "approximate" if area else "distribution",
        (
            *area,
            "the crop's height drawn uniformly among whole pixels and its corner uniformly, as "
            "albumentations draws them, by DALI's generator (KS over 320 draws: p 0.82 area, "
            "0.69 column)",
            "a window larger than the image is clipped to it, as albumentations clips it",
        ),
    )
