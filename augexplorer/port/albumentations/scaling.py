"""albumentations' resizes by a drawn factor or to a drawn crop: RandomScale, Downscale and
RandomSizedCrop. Sizes follow each image's own (expressions on its shape), truncated to whole
pixels as albumentations truncates them; resizes do not antialias, as OpenCV's do not. Grades
measured by ``tests/test_port_albumentations_parity.py`` against albumentations 2.0.8."""

from __future__ import annotations

from typing import Any

from ...spec import Random, Ref
from .arguments import Args, NotPorted
from .geometric import RESIZE_EXACT
from .nodes import expr, step, uniform_node, values_node
from .registry import IMAGE, Mapped, mapping


def _no_antialias(args: Args, name: str = "interpolation", default: int = 1) -> dict[str, Any]:
    return {
        "interp_type": args.interpolation(name, default),
        "antialias": False,
        "subpixel_scale": False,
    }


@mapping("RandomScale", positional=("scale_limit", "interpolation"))
def random_scale(args: Args) -> Mapped:
    low, high = args.pair("scale_limit", (-0.1, 0.1), symmetric=True)
    nodes = (
        uniform_node("scale_draw", 1.0 + low, 1.0 + high),
        # albumentations: int(height * scale), int(width * scale)
        expr("scaled_size", "math.floor(image.shape()[0:2] * scale_draw)", [IMAGE, "scale_draw"]),
        step("scale", "resize", {"size": Ref("scaled_size"), **_no_antialias(args)}),
    )
    return Mapped(
        nodes,
        "exact",
        (f"{RESIZE_EXACT}; the factor drawn uniformly, by DALI's generator",),
        frozenset({"scaled_size"}),
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
    nodes = (
        uniform_node("downscale_draw", low, high),
        # OpenCV's resize by fx, fy scales by the factor itself (the size rounded to pixels):
        # DALI does so given the unrounded size with subpixel_scale on
        expr("small_size", "image.shape()[0:2] * downscale_draw", [IMAGE, "downscale_draw"]),
        expr("full_size", "image.shape()[0:2] * 1.0", [IMAGE]),
        step(
            "downscale",
            "resize",
            {
                "size": Ref("small_size"),
                **_no_antialias(down, "downscale", 0),
                "subpixel_scale": True,
            },
        ),
        step(
            "upscale",
            "resize",
            {"size": Ref("full_size"), **_no_antialias(down, "upscale", 0)},
            reads="downscale",
        ),
    )
    differences = [
        "shrunk by the drawn factor and resized back, as albumentations does; the factor "
        "drawn uniformly, by DALI's generator",
        "OpenCV places the shrunk image's samples slightly otherwise: with INTER_LINEAR both "
        "ways, mean 0.8 (factor 0.4) and 1.0 (0.33) grey levels apart, max 49",
    ]
    if 0 in pair.values():
        differences.append(
            "OpenCV's INTER_NEAREST samples from each pixel's corner, DALI's nearest from its "
            "centre: the blocks shift by a pixel (factor 0.3: mean 12.2, max 249 grey levels)"
        )
    return Mapped(nodes, "approximate", tuple(differences), frozenset({"small_size", "full_size"}))


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
        step(
            "crop",
            "crop",
            {
                "crop_h": Ref("crop_height"),
                "crop_w": Ref("crop_width"),
                "crop_pos_x": Random.uniform(0.0, 1.0),
                "crop_pos_y": Random.uniform(0.0, 1.0),
            },
        ),
        step(
            "resize",
            "resize",
            {"resize_x": float(width), "resize_y": float(height), **_no_antialias(args)},
            reads="crop",
        ),
    ]
    return Mapped(
        tuple(nodes),
        "distribution",
        (
            "the crop's height drawn uniformly among whole pixels and its corner uniformly, as "
            "albumentations draws them, by DALI's generator (KS over 320 draws: p 0.82 area, "
            "0.69 column)",
        ),
    )
