"""albumentations' resizes, crops, flips and quarter turns as DALI nodes.

OpenCV's INTER_LINEAR, which albumentations resizes with, does not antialias, and it scales by
the ratio of the whole-pixel sizes: every resize here passes ``antialias=False`` and
``subpixel_scale=False``, but for INTER_AREA, which is DALI's antialiased linear (approximate). The grades and bounds in the differences are measured by
``tests/test_port_albumentations_parity.py`` against albumentations 2.0.8.
"""

from __future__ import annotations

from typing import Any

from ...spec import Node, Random, Ref
from .arguments import Args, NotPorted, area_differences
from .nodes import expr, step
from .padding import padded_to
from .registry import IMAGE, Mapped, mapping
from .resampling import resampling_differences

RESIZE_EXACT = "pixels within 1 grey level of OpenCV's (interpolation rounding)"


def _resized(node: Any, args: Args) -> Mapped:
    """A resize's grade: exact for INTER_LINEAR, approximate for the other interpolations."""
    differences = area_differences(args) or resampling_differences(args)
    if differences:
        return Mapped((node,), "approximate", differences)
    return Mapped((node,), "exact", (RESIZE_EXACT,))


@mapping("Resize", positional=("height", "width", "interpolation"), p=1.0)
def resize(args: Args) -> Mapped:
    height, width = int(args.number("height")), int(args.number("width"))
    node = step(
        "resize",
        "resize",
        {"resize_x": float(width), "resize_y": float(height), **args.resize_interpolation()},
    )
    return _resized(node, args)


def _max_size(args: Args) -> Any:
    value = args.get("max_size", 1024)
    if args.get("max_size_hw") is not None:
        raise NotPorted("max_size_hw (a box per side) has no DALI equivalent; give max_size")
    if isinstance(value, (tuple, list)):  # one of several sizes, drawn per image
        return Random.choice([float(v) for v in value])
    return float(value)


def _fitted(args: Args, side: str) -> Mapped:
    """Smallest/LongestMaxSize: the `side` ("min" or "max") of the image made max_size, the
    other side ``round(other * (max_size / side))`` as albumentations works it out: in float64
    and rounded as Python rounds (half to even: brick.jpg's 280 x 448 to 180 is 112, where
    DALI's resize_longer gives 113; 264 x 11 to 180 is 7, where exact fractions give 8). A
    max_size drawn from a list keeps DALI's own rounding."""
    size = _max_size(args)
    arg = "resize_shorter" if side == "min" else "resize_longer"
    if isinstance(size, Random):
        node = step("resize", "resize", {arg: size, **args.resize_interpolation()})
        mapped = _resized(node, args)
        tie = "where the other side comes out at exactly half a pixel, DALI rounds it up, "
        tie += "albumentations to even"
        fidelity = "distribution" if mapped.fidelity == "exact" else mapped.fidelity
        return Mapped(mapped.nodes, fidelity, (*mapped.differences, tie))
    nodes = (
        expr("fit_hw", "image.shape()[0:2]", [IMAGE]),
        Node("fit_hw64", "cast", inputs=(Ref("fit_hw"),), args={"dtype": "FLOAT64"}),
        expr("fit_scale", f"{float(size)} / math.{side}(fit_hw64[0], fit_hw64[1])", ["fit_hw64"]),
        expr("fit_exact", "fit_hw64 * fit_scale", ["fit_hw64", "fit_scale"]),
        expr("fit_up", "math.floor(fit_exact + 0.5)", ["fit_exact"]),
        # half to even: where fit_exact is a whole number and a half, an odd fit_up goes down
        expr(
            "fit_round",
            "math.max(fit_up - (fit_up - fit_exact == 0.5) * (fit_up - 2 * math.floor(fit_up / 2)), 1)",
            ["fit_up", "fit_exact"],
        ),
        Node("fit_size", "cast", inputs=(Ref("fit_round"),), args={"dtype": "FLOAT"}),
        step("resize", "resize", {"size": Ref("fit_size"), **args.resize_interpolation()}),
    )
    mapped = _resized(nodes[-1], args)
    return Mapped(nodes, mapped.fidelity, mapped.differences, frozenset({"fit_hw"}))


@mapping("SmallestMaxSize", positional=("max_size", "interpolation"), p=1.0)
def smallest_max_size(args: Args) -> Mapped:
    return _fitted(args, "min")


@mapping("LongestMaxSize", positional=("max_size", "interpolation"), p=1.0)
def longest_max_size(args: Args) -> Mapped:
    return _fitted(args, "max")


@mapping("CenterCrop", positional=("height", "width"), p=1.0)
def center_crop(args: Args) -> Mapped:
    height, width = int(args.number("height")), int(args.number("width"))
    padding = padded_to(args, height, width)
    # albumentations floors an odd margin ((H - h) // 2); DALI rounds unless told to truncate
    node = step(
        "crop",
        "crop",
        {"crop_h": float(height), "crop_w": float(width), "rounding": "truncate"},
        reads="pad" if padding else IMAGE,
    )
    return Mapped((*padding, node), "exact", measures=_PAD_MEASURES)


@mapping("RandomCrop", positional=("height", "width"), p=1.0)
def random_crop(args: Args) -> Mapped:
    height, width = int(args.number("height")), int(args.number("width"))
    padding = padded_to(args, height, width)
    node = step(
        "crop",
        "crop",
        {
            "crop_h": float(height),
            "crop_w": float(width),
            "crop_pos_x": Random.uniform(0.0, 1.0),
            "crop_pos_y": Random.uniform(0.0, 1.0),
        },
        reads="pad" if padding else IMAGE,
    )
    padded = (PADDED,) if padding else ()
    return Mapped(
        (*padding, node),
        "distribution",
        (
            "the window's corner drawn uniformly over the same range, by DALI's generator (KS "
            "over 320 draws: p 0.69 columns, 0.20 rows)",
            *padded,
        ),
        _PAD_MEASURES,
    )


# pad_if_needed=True: the image padded as PadIfNeeded pads it (measured by
# tests/test_port_probe_albumentations.py against albumentations 2.0.8)
PADDED = (
    "with pad_if_needed, an image smaller than the crop is padded to its size first, as "
    "albumentations pads it (pad_position, border_mode, fill): the same pixels for the same "
    "window"
)
# the padding's nodes that read the image only for its size
_PAD_MEASURES = frozenset({"pad_size"})


@mapping("Crop", positional=("x_min", "y_min", "x_max", "y_max"), p=1.0)
def crop(args: Args) -> Mapped:
    x_min, y_min = args.number("x_min", 0), args.number("y_min", 0)
    x_max, y_max = args.number("x_max", 1024), args.number("y_max", 1024)
    node = step(
        "crop",
        "slice",
        {"start": [x_min, y_min], "end": [x_max, y_max], "axis_names": "WH"},
    )
    return Mapped((node,), "exact")


@mapping("RandomResizedCrop", positional=("size", "scale", "ratio", "interpolation"), p=1.0)
def random_resized_crop(args: Args) -> Mapped:
    height, width = args.size()
    scale = args.pair("scale", (0.08, 1.0))
    ratio = args.pair("ratio", (0.75, 4.0 / 3.0))
    resizing = args.resize_interpolation()
    area = area_differences(args) or resampling_differences(args)
    node = step(
        "crop",
        "random_resized_crop",
        {
            "size": [float(height), float(width)],
            "random_area": list(scale),
            "random_aspect_ratio": list(ratio),
            "num_attempts": 10,
            "interp_type": resizing["interp_type"],
            "antialias": resizing["antialias"],
        },
    )
    return Mapped(
        (node,),
        "approximate" if area else "distribution",
        (
            "area and aspect ratio drawn as albumentations draws them (10 tries), by DALI's "
            "generator: KS p 0.18 (area) and 0.36 (aspect) over 800 draws, DALI's windows "
            "1.7% of the image larger on average; where every try fails DALI's fallback window "
            "is not albumentations' centred one",
            *area,
        ),
    )


@mapping("HorizontalFlip")
def horizontal_flip(args: Args) -> Mapped:
    node = step("flip", "flip", {"horizontal": 1, "vertical": 0})
    return Mapped((node,), "exact")


@mapping("VerticalFlip")
def vertical_flip(args: Args) -> Mapped:
    node = step("flip", "flip", {"horizontal": 0, "vertical": 1})
    return Mapped((node,), "exact")


@mapping("Transpose")
def transpose(args: Args) -> Mapped:
    # the axes swap, but they are still height, width, channels: keep the layout name
    node = step("transpose", "transpose", {"perm": [1, 0, 2], "transpose_layout": False})
    return Mapped((node,), "exact")


# albumentations 2.x turns every image by default (p=1; 1.x's default was 0.5): a quarter turn
# of 0 is one of the four drawn
@mapping("RandomRotate90", p=1.0)
def random_rotate90(args: Args) -> Mapped:
    node = step(
        "rotate",
        "rotate",
        {
            "angle": Random.choice([0.0, 90.0, 180.0, 270.0]),
            "keep_size": False,
            "interp_type": "INTERP_NN",
        },
    )
    return Mapped((node,), "exact", ("the same pixels for the same quarter turn, drawn uniformly",))


@mapping("D4", "SquareSymmetry", p=1.0)
def d4(args: Args) -> Mapped:
    """One of the square's eight symmetries, drawn uniformly: a quarter turn (four, equally
    likely) then a mirror or not (a fair coin) reach each of the eight once."""
    nodes = (
        step(
            "turn",
            "rotate",
            {
                "angle": Random.choice([0.0, 90.0, 180.0, 270.0]),
                "keep_size": False,
                "interp_type": "INTERP_NN",
            },
        ),
        step("mirror", "flip", {"horizontal": Random.coin_flip(0.5), "vertical": 0}, reads="turn"),
    )
    return Mapped(
        nodes,
        "exact",
        ("the same pixels for the same symmetry; the eight drawn uniformly, by DALI's generator",),
    )
