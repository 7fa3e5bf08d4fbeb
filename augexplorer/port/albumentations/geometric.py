"""albumentations' resizes, crops, flips and rotations as DALI nodes.

OpenCV's INTER_LINEAR, which albumentations resizes with, does not antialias: every resize here
passes ``antialias=False`` (with DALI's default the port differs by ~5 grey levels on average
where it shrinks). The grades and bounds in the differences are measured by
``tests/test_port_albumentations_parity.py`` against albumentations 2.0.8.
"""

from __future__ import annotations

from typing import Any

from ...expressions.nodes import constant
from ...spec import Node, Random, Ref
from .arguments import BORDER_CONSTANT, Args, NotPorted
from .nodes import const, draw, expr, step, uniform_node
from .registry import IMAGE, Mapped, mapping, refused

# OpenCV's border modes as DALI's warp_perspective names them
WARP_BORDERS = {1: "replicate", 2: "reflect", 3: "wrap", 4: "reflect_101"}


RESIZE_EXACT = "pixels within 1 grey level of OpenCV's (interpolation rounding)"


def _resized(node: Any, args: Args) -> Mapped:
    """A resize's grade: OpenCV's INTER_NEAREST samples at the pixel's corner, DALI's (and
    INTER_NEAREST_EXACT) at its centre."""
    flag = args.get("interpolation", 1)
    if flag == 0:
        return Mapped(
            (node,),
            "approximate",
            (
                "OpenCV's INTER_NEAREST samples from each pixel's corner, DALI's nearest from "
                "its centre: a one-pixel shift (mean 10.2 grey levels measured)",
            ),
        )
    if flag == 6:
        return Mapped(
            (node,),
            "approximate",
            (
                "where a sample falls halfway, OpenCV and DALI pick neighbours (mean 0.7 grey levels)",
            ),
        )
    return Mapped((node,), "exact", (RESIZE_EXACT,))


def _resize_args(args: Args) -> dict[str, Any]:
    return {"interp_type": args.interpolation(), "antialias": False, "subpixel_scale": False}


@mapping("Resize", positional=("height", "width", "interpolation"), p=1.0)
def resize(args: Args) -> Mapped:
    height, width = int(args.number("height")), int(args.number("width"))
    node = step(
        "resize",
        "resize",
        {"resize_x": float(width), "resize_y": float(height), **_resize_args(args)},
    )
    return _resized(node, args)


def _max_size(args: Args) -> Any:
    value = args.get("max_size", 1024)
    if args.get("max_size_hw") is not None:
        raise NotPorted("max_size_hw (a box per side) has no DALI equivalent; give max_size")
    if isinstance(value, (tuple, list)):  # one of several sizes, drawn per image
        return Random.choice([float(v) for v in value])
    return float(value)


@mapping("SmallestMaxSize", positional=("max_size", "interpolation"), p=1.0)
def smallest_max_size(args: Args) -> Mapped:
    node = step("resize", "resize", {"resize_shorter": _max_size(args), **_resize_args(args)})
    return _resized(node, args)


@mapping("LongestMaxSize", positional=("max_size", "interpolation"), p=1.0)
def longest_max_size(args: Args) -> Mapped:
    node = step("resize", "resize", {"resize_longer": _max_size(args), **_resize_args(args)})
    return _resized(node, args)


@mapping("CenterCrop", positional=("height", "width"), p=1.0)
def center_crop(args: Args) -> Mapped:
    _no_pad_if_needed(args)
    height, width = int(args.number("height")), int(args.number("width"))
    # albumentations floors an odd margin ((H - h) // 2); DALI rounds unless told to truncate
    node = step(
        "crop",
        "crop",
        {"crop_h": float(height), "crop_w": float(width), "rounding": "truncate"},
    )
    return Mapped((node,), "exact")


@mapping("RandomCrop", positional=("height", "width"), p=1.0)
def random_crop(args: Args) -> Mapped:
    _no_pad_if_needed(args)
    height, width = int(args.number("height")), int(args.number("width"))
    node = step(
        "crop",
        "crop",
        {
            "crop_h": float(height),
            "crop_w": float(width),
            "crop_pos_x": Random.uniform(0.0, 1.0),
            "crop_pos_y": Random.uniform(0.0, 1.0),
        },
    )
    return Mapped(
        (node,),
        "distribution",
        ("the window's corner is drawn uniformly over the same range, by DALI's generator",),
    )


def _no_pad_if_needed(args: Args) -> None:
    if args.get("pad_if_needed", False):
        raise NotPorted("pad_if_needed=True: crop with out_of_bounds_policy='pad' by hand")


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
    node = step(
        "crop",
        "random_resized_crop",
        {
            "size": [float(height), float(width)],
            "random_area": list(scale),
            "random_aspect_ratio": list(ratio),
            "num_attempts": 10,
            "interp_type": args.interpolation(),
            "antialias": False,
        },
    )
    return Mapped(
        (node,),
        "distribution",
        (
            "area and aspect ratio drawn as albumentations draws them (10 tries), by DALI's "
            "generator; where every try fails DALI's fallback window is not albumentations' "
            "centred one",
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


@mapping("RandomRotate90")
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


@mapping("Rotate", positional=("limit", "interpolation", "border_mode"))
def rotate(args: Args) -> Mapped:
    low, high = args.pair("limit", (-90.0, 90.0), symmetric=True)
    if args.get("crop_border", False):
        raise NotPorted("crop_border=True: rotate, then crop the largest inner box by hand")
    if args.get("rotate_method", "largest_box") != "largest_box":
        raise NotPorted("rotate_method='ellipse' only changes boxes; not ported")
    if args.get("border_mode", BORDER_CONSTANT) != BORDER_CONSTANT:
        return _affine(args, (low, high), (1.0, 1.0), (0.0, 0.0), (0.0, 0.0))
    fill = args.fill()
    node = step(
        "rotate",
        "rotate",
        {
            "angle": draw(low, high),
            "keep_size": True,
            "fill_value": fill if isinstance(fill, float) else fill[0],
            "interp_type": args.interpolation(),
        },
    )
    return Mapped(
        (node,),
        "exact",
        ("pixels within 1 grey level of albumentations' for the same angle",),
    )


refused(
    "Perspective",
    "experimental.warp_perspective (the random corner offsets become a matrix only by solving "
    "a linear system, which DALI's graph cannot do per sample)",
)
refused("ElasticTransform", "none: DALI has no elastic displacement field")
refused("GridDistortion", "none: DALI has no grid displacement")
refused("OpticalDistortion", "none: DALI has no lens distortion")
refused("PiecewiseAffine", "none: DALI has no piecewise warp")
refused(
    "PadIfNeeded",
    "crop with out_of_bounds_policy='pad' (constant fill, pads to a fixed size) or pad "
    "(pads at the end only); albumentations reflects by default",
)
refused(
    "SafeRotate",
    "rotate with keep_size=False, then resize back (albumentations keeps the aspect ratio and "
    "pads)",
)
refused(
    "RandomSizedCrop",
    "random_resized_crop (draws area and aspect ratio, where albumentations draws a height "
    "and keeps w2h_ratio)",
)


def _affine(
    args: Args,
    angle: tuple[float, float],
    scale: tuple[float, float],
    shift_x: tuple[float, float],
    shift_y: tuple[float, float],
) -> Mapped:
    """Rotation and scale about the image's centre, then a shift in fractions of its size, as
    one matrix for ``warp_affine`` (DALI's transforms.* compose it per sample)."""
    if args.get("rotate_method", "largest_box") != "largest_box":
        raise NotPorted("rotate_method='ellipse' only changes boxes; not ported")
    fill = args.fill()
    nodes = [
        expr("center", "image.shape()[1::-1] * 0.5", [IMAGE]),
        # DALI's transforms.rotation turns clockwise on screen for positive angles
        Node(
            "rotation",
            "transforms.rotation",
            args={"angle": draw(-angle[1], -angle[0]), "center": Ref("center")},
        ),
        uniform_node("scale_draw", *scale)
        if scale[0] != scale[1]
        else const("scale_draw", [scale[0]]),
        expr("scale_xy", "scale_draw * unit", ["scale_draw", "unit"]),
        const("unit", [1.0, 1.0]),
        Node(
            "scaling",
            "transforms.scale",
            inputs=(Ref("rotation"),),
            args={"scale": Ref("scale_xy"), "center": Ref("center")},
        ),
        uniform_node("shift_draw", 0.0, 1.0, shape=2),
        const("shift_low", [shift_x[0], shift_y[0]]),
        const("shift_span", [shift_x[1] - shift_x[0], shift_y[1] - shift_y[0]]),
        expr(
            "shift_px",
            "image.shape()[1::-1] * (shift_low + shift_draw * shift_span)",
            [IMAGE, "shift_low", "shift_draw", "shift_span"],
        ),
        # albumentations truncates the shift to whole pixels (int(), toward zero)
        expr(
            "offset",
            "math.floor(math.abs(shift_px)) * ((shift_px >= 0) * 2 - 1)",
            ["shift_px"],
        ),
        Node(
            "matrix",
            "transforms.translation",
            inputs=(Ref("scaling"),),
            args={"offset": Ref("offset")},
        ),
    ]
    border = args.get("border_mode", BORDER_CONSTANT)
    if border == BORDER_CONSTANT:
        nodes.append(
            step(
                "warp",
                "warp_affine",
                {
                    "matrix": Ref("matrix"),
                    "inverse_map": False,
                    "fill_value": fill if isinstance(fill, float) else fill[0],
                    "interp_type": args.interpolation(),
                },
            )
        )
    elif border in WARP_BORDERS:
        # warp_affine fills with a constant only; warp_perspective mirrors or repeats, given
        # the matrix with its last row
        nodes += [
            constant("last_row", [0.0, 0.0, 1.0], "FLOAT", shape=[1, 3]),
            Node("matrix_3x3", "cat", inputs=(Ref("matrix"), Ref("last_row")), args={"axis": 0}),
            step(
                "warp",
                "experimental.warp_perspective",
                {
                    "matrix": Ref("matrix_3x3"),
                    "inverse_map": False,
                    "border_mode": WARP_BORDERS[border],
                    "interp_type": args.interpolation(),
                },
            ),
        ]
    else:
        raise NotPorted(f"border_mode={border!r} is not one of OpenCV's border modes")
    # the unit vector is read by scale_xy: it goes first
    nodes.insert(3, nodes.pop(4))
    return Mapped(
        tuple(nodes),
        "exact",
        (
            "pixels within 1 grey level of albumentations' for the same angle, scale and "
            "shift; those drawn as albumentations draws them, by DALI's generator",
        ),
        frozenset({"center", "shift_px"}),
    )


@mapping(
    "ShiftScaleRotate",
    positional=("shift_limit", "scale_limit", "rotate_limit", "interpolation", "border_mode"),
)
def shift_scale_rotate(args: Args) -> Mapped:
    shift = args.pair("shift_limit", (-0.0625, 0.0625), symmetric=True)
    shift_x = (
        args.pair("shift_limit_x", shift, symmetric=True) if args.has("shift_limit_x") else shift
    )
    shift_y = (
        args.pair("shift_limit_y", shift, symmetric=True) if args.has("shift_limit_y") else shift
    )
    scale = args.pair("scale_limit", (-0.1, 0.1), symmetric=True)
    angle = args.pair("rotate_limit", (-45.0, 45.0), symmetric=True)
    return _affine(args, angle, (1.0 + scale[0], 1.0 + scale[1]), shift_x, shift_y)


@mapping("Affine", positional=("scale", "translate_percent", "translate_px", "rotate", "shear"))
def affine(args: Args) -> Mapped:
    for unsupported in ("translate_px", "shear"):
        value = args.get(unsupported)
        if value not in (None, 0, 0.0, (0, 0), (0.0, 0.0), {"x": (0.0, 0.0), "y": (0.0, 0.0)}):
            raise NotPorted(f"Affine({unsupported}=...) is not ported; use translate_percent")
    if args.get("fit_output", False):
        raise NotPorted("fit_output=True (a canvas that grows) is not ported")
    if args.get("keep_ratio", True) is False and isinstance(args.get("scale"), dict):
        raise NotPorted("a scale per axis is not ported; give one scale range")
    scale = _axis_pair(args.get("scale", (1.0, 1.0)), "scale")
    percent = args.get("translate_percent")
    if isinstance(percent, dict):
        shift_x = _axis_pair(percent.get("x", 0.0), "translate_percent")
        shift_y = _axis_pair(percent.get("y", 0.0), "translate_percent")
    else:
        shift_x = shift_y = _axis_pair(percent or 0.0, "translate_percent", symmetric=True)
    angle = _axis_pair(args.get("rotate", 0.0), "rotate", symmetric=True)
    if args.get("border_mode") is None:
        args.values["border_mode"] = BORDER_CONSTANT
    return _affine(args, angle, scale, shift_x, shift_y)


def _axis_pair(value: Any, name: str, symmetric: bool = False) -> tuple[float, float]:
    if isinstance(value, dict):
        x, y = value.get("x"), value.get("y")
        if x != y:
            raise NotPorted(f"Affine({name}=...) differs per axis; not ported")
        value = x
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return (-abs(value), abs(value)) if symmetric else (float(value), float(value))
    if isinstance(value, (tuple, list)) and len(value) == 2:
        return (float(value[0]), float(value[1]))
    raise NotPorted(f"Affine({name}={value!r}) is not a number or a (low, high) pair")
