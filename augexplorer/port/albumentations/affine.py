"""albumentations' rotations and affine warps as DALI nodes: ``rotate`` where the border is a
constant, else the transforms.* matrix into ``warp_affine``, or into ``warp_perspective`` where
the border mirrors or repeats (warp_affine fills with a constant only). Rotation and scale turn
about the image's centre; the shift is truncated to whole pixels, as albumentations does.
Pixels are within 1 grey level of albumentations 2.0.8's for the same draws
(``tests/test_port_albumentations_parity.py``)."""

from __future__ import annotations

from typing import Any

from ...expressions.nodes import constant
from ...spec import Node, Ref
from .arguments import BORDER_CONSTANT, Args, NotPorted, one_fill
from .nodes import const, draw, expr, step, uniform_node
from .registry import IMAGE, Mapped, mapping, refused

# OpenCV's border modes as DALI's warp_perspective names them
WARP_BORDERS = {1: "replicate", 2: "reflect", 3: "wrap", 4: "reflect_101"}


def warp(args: Args, matrix: str) -> list[Node]:
    """The image warped by the 2x3 matrix node `matrix` (source to destination) with the call's
    border: ``warp_affine`` for a constant, else ``warp_perspective`` (which mirrors or repeats)
    given the matrix with its last row."""
    border = args.get("border_mode", BORDER_CONSTANT)
    if border == BORDER_CONSTANT:
        return [
            step(
                "warp",
                "warp_affine",
                {
                    "matrix": Ref(matrix),
                    "inverse_map": False,
                    "fill_value": one_fill(args, "warp_affine"),
                    "interp_type": args.warp_interpolation(),
                },
            )
        ]
    if border not in WARP_BORDERS:
        raise NotPorted(f"border_mode={border!r} is not one of OpenCV's border modes")
    return [
        constant("last_row", [0.0, 0.0, 1.0], "FLOAT", shape=[1, 3]),
        Node("matrix_3x3", "cat", inputs=(Ref(matrix), Ref("last_row")), args={"axis": 0}),
        step(
            "warp",
            "experimental.warp_perspective",
            {
                "matrix": Ref("matrix_3x3"),
                "inverse_map": False,
                "border_mode": WARP_BORDERS[border],
                "interp_type": args.warp_interpolation(),
            },
        ),
    ]


# albumentations' rotate_method turns boxes (their corners, or an ellipse inside them); the
# image's warp is the same either way, and the port carries no boxes (it says so)
ELLIPSE = (
    "with rotate_method='ellipse' only albumentations' boxes turn otherwise, and the port "
    "carries no boxes: the image's pixels are the same as with 'largest_box'"
)


def rotate_method(args: Args) -> tuple[str, ...]:
    """What the call's rotate_method changes: nothing the port draws ('largest_box'), the
    boxes alone ('ellipse'); another value albumentations fails on."""
    method = args.get("rotate_method", "largest_box")
    if method == "largest_box":
        return ()
    if method == "ellipse":
        return (ELLIPSE,)
    raise NotPorted(
        f"rotate_method={method!r} is not one albumentations takes ('largest_box' or 'ellipse')"
    )


@mapping("Rotate", positional=("limit", "interpolation", "border_mode"))
def rotate(args: Args) -> Mapped:
    low, high = args.pair("limit", (-90.0, 90.0), symmetric=True)
    if args.get("crop_border", False):
        raise NotPorted("crop_border=True: rotate, then crop the largest inner box by hand")
    boxes_only = rotate_method(args)
    if args.get("border_mode", BORDER_CONSTANT) != BORDER_CONSTANT:
        still = (0.0, 0.0)
        return _affine(args, (low, high), ((1.0, 1.0),) * 2, (still, still), keep_ratio=True)
    node = step(
        "rotate",
        "rotate",
        {
            "angle": draw(low, high),
            "keep_size": True,
            "fill_value": one_fill(args, "rotate"),
            "interp_type": args.warp_interpolation(),
        },
    )
    return Mapped(
        (node,),
        "exact",
        ("pixels within 1 grey level of albumentations' for the same angle", *boxes_only),
    )


Range = tuple[float, float]


def _pair_node(node_id: str, ranges: tuple[Range, Range]) -> list[Node]:
    """Nodes giving a per-image 2-vector, each part uniform in its range (constants where a
    range is one value): `node_id` is the vector."""
    low = [ranges[0][0], ranges[1][0]]
    span = [ranges[0][1] - ranges[0][0], ranges[1][1] - ranges[1][0]]
    if span == [0.0, 0.0]:  # nothing to draw: the graph shows the values, not a draw of them
        return [const(node_id, low)]
    return [
        uniform_node(f"{node_id}_draw", 0.0, 1.0, shape=2),
        const(f"{node_id}_low", low),
        const(f"{node_id}_span", span),
        expr(
            node_id,
            f"{node_id}_low + {node_id}_draw * {node_id}_span",
            [f"{node_id}_low", f"{node_id}_draw", f"{node_id}_span"],
        ),
    ]


def _affine(
    args: Args,
    angle: Range,
    scale: tuple[Range, Range],
    shift: tuple[Range, Range],
    *,
    keep_ratio: bool,
    shear: tuple[Range, Range] = ((0.0, 0.0), (0.0, 0.0)),
    shift_in_pixels: bool = False,
) -> Mapped:
    """albumentations' affine matrix, centre . shift . shear . rotation . scale . centre^-1, as
    DALI's transforms.* chain (scale first) into a warp. Scale, shear and shift are drawn per
    axis (one scale for both where `keep_ratio`); a shift in fractions of the image is
    truncated to whole pixels, one in pixels is drawn among whole pixels, as albumentations
    draws them."""
    boxes_only = rotate_method(args)
    nodes: list[Node] = [expr("center", "image.shape()[1::-1] * 0.5", [IMAGE])]
    if keep_ratio:
        nodes += [
            uniform_node("scale_draw", *scale[0]),
            const("unit", [1.0, 1.0]),
            expr("scale_xy", "scale_draw * unit", ["scale_draw", "unit"]),
        ]
    else:
        nodes += _pair_node("scale_xy", scale)
    nodes += [
        Node(
            "scaling",
            "transforms.scale",
            args={"scale": Ref("scale_xy"), "center": Ref("center")},
        ),
        # albumentations' rotation matrix turns the other way round from DALI's
        Node(
            "rotation",
            "transforms.rotation",
            inputs=(Ref("scaling"),),
            args={"angle": draw(-angle[1], -angle[0]), "center": Ref("center")},
        ),
    ]
    last = "rotation"
    if shear != ((0.0, 0.0), (0.0, 0.0)):
        # albumentations shears by minus the angles drawn
        negated = ((-shear[0][1], -shear[0][0]), (-shear[1][1], -shear[1][0]))
        nodes += _pair_node("shear_xy", negated)
        nodes.append(
            Node(
                "shearing",
                "transforms.shear",
                inputs=(Ref(last),),
                args={"angles": Ref("shear_xy"), "center": Ref("center")},
            )
        )
        last = "shearing"
    if shift_in_pixels:  # randint over whole pixels, both ends included
        widened = ((shift[0][0], shift[0][1] + 1), (shift[1][0], shift[1][1] + 1))
        nodes += _pair_node("shift_px", widened)
        nodes.append(expr("offset", "math.floor(shift_px)", ["shift_px"]))
    else:
        nodes += _pair_node("shift_share", shift)
        nodes += [
            expr("shift_px", "image.shape()[1::-1] * shift_share", [IMAGE, "shift_share"]),
            # albumentations truncates the shift to whole pixels (int(), toward zero)
            expr(
                "offset",
                "math.floor(math.abs(shift_px)) * ((shift_px >= 0) * 2 - 1)",
                ["shift_px"],
            ),
        ]
    nodes.append(
        Node(
            "matrix",
            "transforms.translation",
            inputs=(Ref(last),),
            args={"offset": Ref("offset")},
        )
    )
    nodes += warp(args, "matrix")
    turned = (
        ("the rotation's angle in the captions is DALI's: albumentations' for the same picture "
         "is its negative (the two turn opposite ways for a positive angle)",)
        if angle[0] != angle[1]
        else ()
    )  # fmt: skip
    return Mapped(
        tuple(nodes),
        "exact",
        (
            "pixels within 1 grey level of albumentations' for the same angle, scale, shear "
            "and shift; those drawn as albumentations draws them, by DALI's generator",
            *turned,
            *boxes_only,
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
    factor = (1.0 + scale[0], 1.0 + scale[1])
    # 2.x draws the scale of each axis on its own (it is Affine with keep_ratio=False)
    return _affine(args, angle, (factor, factor), (shift_x, shift_y), keep_ratio=False)


@mapping("Affine", positional=("scale", "translate_percent", "translate_px", "rotate", "shear"))
def affine(args: Args) -> Mapped:
    if args.get("fit_output", False):
        raise NotPorted("fit_output=True (a canvas that grows) is not ported")
    if args.get("balanced_scale", False):
        raise NotPorted("balanced_scale=True (a coin between shrinking and growing) is not ported")
    # Affine takes one number as that value, fixed (rotate=15 turns every image 15 degrees),
    # not as a range about 0 as Rotate's limit; an axis a dict leaves out is 1 for scale and,
    # as albumentations 2.x reads it, for shear too (1 degree), 0 for a translation
    keep_ratio = bool(args.get("keep_ratio", False))
    scale = _axes(args.get("scale", (1.0, 1.0)), "scale", missing=1.0)
    if keep_ratio and scale[0] != scale[1]:
        raise NotPorted("keep_ratio=True needs one scale range for both axes")
    percent, pixels = args.get("translate_percent"), args.get("translate_px")
    in_pixels = percent is None and pixels is not None
    if in_pixels:
        shift = _axes(pixels, "translate_px")
    else:
        shift = _axes(percent or 0.0, "translate_percent")
    angle = _axis_pair(args.get("rotate", 0.0), "rotate")
    shear = _axes(args.get("shear", 0.0), "shear", missing=1.0)
    if args.get("border_mode") is None:
        args.values["border_mode"] = BORDER_CONSTANT
    return _affine(
        args,
        angle,
        scale,
        shift,
        keep_ratio=keep_ratio,
        shear=shear,
        shift_in_pixels=in_pixels,
    )


def _axes(value: Any, name: str, missing: float = 0.0) -> tuple[Range, Range]:
    """Per-axis ranges ``(x, y)``: a dict ``{"x": ..., "y": ...}`` (an axis left out is
    `missing`) or one value for both."""
    if isinstance(value, dict):
        return (
            _axis_pair(value.get("x", missing), name),
            _axis_pair(value.get("y", missing), name),
        )
    both = _axis_pair(value, name)
    return (both, both)


def _axis_pair(value: Any, name: str) -> tuple[float, float]:
    """A number as that value, fixed; a (low, high) pair as the range."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return (float(value), float(value))
    if isinstance(value, (tuple, list)) and len(value) == 2:
        return (float(value[0]), float(value[1]))
    raise NotPorted(f"Affine({name}={value!r}) is not a number or a (low, high) pair")


refused("ElasticTransform", "none: DALI has no elastic displacement field")
refused("GridDistortion", "none: DALI has no grid displacement")
refused("OpticalDistortion", "none: DALI has no lens distortion")
refused("PiecewiseAffine", "none: DALI has no piecewise warp")


@mapping("SafeRotate", positional=("limit", "interpolation", "border_mode"))
def safe_rotate(args: Args) -> Mapped:
    """Rotated onto the canvas that holds the whole turned image, squeezed back to the image's
    size (albumentations' matrix, in DALI's pixel coordinates: centres at +0.5)."""
    low, high = args.pair("limit", (-90.0, 90.0), symmetric=True)
    boxes_only = rotate_method(args)
    nodes: list[Node] = [
        # DALI's transforms.rotation turns clockwise on screen for positive angles
        uniform_node("safe_angle", -high, -low),
        expr("safe_cos", "math.abs(math.cos(safe_angle * 0.017453292519943295))", ["safe_angle"]),
        expr("safe_sin", "math.abs(math.sin(safe_angle * 0.017453292519943295))", ["safe_angle"]),
        # the canvas: int(h * sin + w * cos), int(h * cos + w * sin), as [w, h]
        expr(
            "safe_canvas",
            "math.floor(image.shape()[1::-1] * safe_cos + image.shape()[0:2] * safe_sin)",
            [IMAGE, "safe_cos", "safe_sin"],
        ),
        expr("safe_center", "image.shape()[1::-1] * 0.5", [IMAGE]),
        Node(
            "safe_rotation",
            "transforms.rotation",
            args={"angle": Ref("safe_angle"), "center": Ref("safe_center")},
        ),
        expr(
            "safe_offset",
            "safe_canvas * 0.5 - (image.shape()[1::-1] * 0.5 - 0.5)",
            ["safe_canvas", IMAGE],
        ),
        Node(
            "safe_shift",
            "transforms.translation",
            inputs=(Ref("safe_rotation"),),
            args={"offset": Ref("safe_offset")},
        ),
        expr("safe_squeeze", "image.shape()[1::-1] / safe_canvas", [IMAGE, "safe_canvas"]),
        const("pixel_centre", [0.5, 0.5]),
        Node(
            "matrix",
            "transforms.scale",
            inputs=(Ref("safe_shift"),),
            args={"scale": Ref("safe_squeeze"), "center": Ref("pixel_centre")},
        ),
    ]
    nodes += warp(args, "matrix")
    return Mapped(
        tuple(nodes),
        "exact",
        (
            "pixels within 1 grey level of albumentations' for the same angle, drawn "
            "uniformly by DALI's generator",
            *boxes_only,
        ),
        frozenset({"safe_canvas", "safe_center", "safe_offset", "safe_squeeze"}),
    )
