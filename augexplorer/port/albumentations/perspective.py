"""albumentations' Perspective as DALI nodes: the four corners jittered as albumentations 2.x
jitters them, and the warp between the image and that quadrilateral in closed form, so that no
linear system is solved per sample (the same closed form as the torchvision RandomPerspective
port, :mod:`augexplorer.port.projective`); DALI's experimental.warp_perspective
applies it.

albumentations (``get_params_dependent_on_data``, ``generate_perspective_points``,
``compute_perspective_params``, ``perspective``): a scale drawn uniformly in `scale`, eight
offsets ``|N(0, scale)| mod 0.32`` in fractions of the width and height, moving the corners
inward (top-left, top-right, bottom-right, bottom-left); ``cv2.getPerspectiveTransform`` maps
that quadrilateral onto the whole image, and with ``keep_size`` the result is scaled by
``width / max_width`` and ``height / max_height`` (the quadrilateral's longest top or bottom
edge and left or right side, truncated to whole pixels), cropped to the image's size; without
it the output is ``max_height x max_width``. The offsets stay below 0.32, so
``order_points`` never reorders the corners, and the sides stay longer than the 2 px below which
``compute_perspective_params`` widens them for any image of 6 px or more a side.
"""

from __future__ import annotations

from ...spec import Node, Ref
from ..projective import square_to_quad
from .affine import WARP_BORDERS
from .arguments import BORDER_CONSTANT, Args, NotPorted
from .nodes import const, expr, step, uniform_node
from .registry import IMAGE, Mapped, mapping

# albumentations' ``np.mod(np.abs(points), 0.32)``: how far a corner moves, at most
JITTER_MODULUS = 0.32
# what DALI 2.4's experimental.warp_perspective samples with (it fails on INTERP_LANCZOS3)
WARP_INTERPOLATIONS = frozenset({"INTERP_NN", "INTERP_LINEAR", "INTERP_CUBIC"})


@mapping(
    "Perspective",
    positional=(
        *("scale", "keep_size", "fit_output", "interpolation", "mask_interpolation"),
        *("border_mode", "fill", "fill_mask"),
    ),
)
def perspective(args: Args) -> Mapped:
    if args.get("fit_output", False):
        raise NotPorted(
            "fit_output=True (a canvas grown to hold the whole warped image, its corners "
            "rounded to whole pixels) is not ported (fix: leave fit_output=False, or pad the "
            "image before the warp with PadIfNeeded)"
        )
    low, high = args.pair("scale", (0.05, 0.1), least=0.0)
    if low < 0 or high < low:
        raise NotPorted(f"scale=({low:g}, {high:g}) is not a range 0 <= low <= high")
    keep_size = bool(args.get("keep_size", True))
    border = args.get("border_mode", BORDER_CONSTANT)
    if border != BORDER_CONSTANT and border not in WARP_BORDERS:
        raise NotPorted(f"border_mode={border!r} is not one of OpenCV's border modes")
    if args.get("interpolation", 1) == 6:  # not in Perspective's schema
        raise NotPorted(
            "interpolation=INTER_NEAREST_EXACT: albumentations' Perspective fails on it (fix: "
            "INTER_NEAREST (0) or INTER_LINEAR (1))"
        )
    interpolation = args.interpolation()
    if interpolation not in WARP_INTERPOLATIONS:
        raise NotPorted(
            f"interpolation={args.interpolation_name()}: DALI's experimental.warp_perspective "
            "has no Lanczos sampling (fix: INTER_LINEAR (1), INTER_CUBIC (2) or INTER_NEAREST "
            "(0))"
        )
    nodes: list[Node] = [
        # [width, height], as floats
        expr("persp_size", "image.shape()[1::-1] * 1.0", [IMAGE]),
        uniform_node("persp_scale", low, high),
        # albumentations' normal(0, scale, (4, 2)): x, y of each corner in turn
        Node("persp_normal", "random.normal", args={"shape": [8]}),
        expr(
            "persp_jitter",
            f"math.abs(persp_normal * persp_scale) % {JITTER_MODULUS}",
            ["persp_normal", "persp_scale"],
        ),
        # top-left, top-right, bottom-right, bottom-left: the right corners' x and the bottom
        # corners' y measured from the far side
        expr(
            "persp_x",
            "(persp_far * (1 - persp_jitter[0::2]) + (1 - persp_far) * persp_jitter[0::2]) "
            "* persp_size[0]",
            ["persp_far", "persp_jitter", "persp_size"],
        ),
        expr(
            "persp_y",
            "(persp_low * (1 - persp_jitter[1::2]) + (1 - persp_low) * persp_jitter[1::2]) "
            "* persp_size[1]",
            ["persp_low", "persp_jitter", "persp_size"],
        ),
    ]
    nodes[4:4] = [
        const("persp_far", [0.0, 1.0, 1.0, 0.0]),
        const("persp_low", [0.0, 0.0, 1.0, 1.0]),
    ]
    corners_x = [f"persp_x[{i}]" for i in range(4)]
    corners_y = [f"persp_y[{i}]" for i in range(4)]
    g_text, h_text, rows = square_to_quad(corners_x, corners_y, "persp_g", "persp_h")
    edge = "math.sqrt((persp_x[{0}] - persp_x[{1}]) ** 2 + (persp_y[{0}] - persp_y[{1}]) ** 2)"
    nodes += [
        # the longest top or bottom edge and left or right side, truncated (int())
        expr(
            "persp_wide",
            f"math.floor(math.max({edge.format(1, 0)}, {edge.format(2, 3)}))",
            ["persp_x", "persp_y"],
        ),
        expr(
            "persp_tall",
            f"math.floor(math.max({edge.format(2, 1)}, {edge.format(3, 0)}))",
            ["persp_x", "persp_y"],
        ),
        expr("persp_g", g_text, ["persp_x", "persp_y"]),
        expr("persp_h", h_text, ["persp_x", "persp_y"]),
    ]
    # the output's pixel to the unit square: 1 / size, and with keep_size albumentations'
    # scaling by size / max_size undone first
    if keep_size:
        unit_x = "persp_wide / (persp_size[0] * persp_size[0])"
        unit_y = "persp_tall / (persp_size[1] * persp_size[1])"
    else:
        unit_x, unit_y = "1 / persp_size[0]", "1 / persp_size[1]"
    nodes += [
        expr("persp_unit_x", unit_x, ["persp_wide", "persp_size"] if keep_size else ["persp_size"]),
        expr("persp_unit_y", unit_y, ["persp_tall", "persp_size"] if keep_size else ["persp_size"]),
    ]
    columns = ["persp_unit_x", "persp_unit_y", None] * 2
    cells: list[str] = []
    for index, (text, column) in enumerate(zip(rows, columns, strict=True)):
        names = [n for n in ("persp_x", "persp_y", "persp_g", "persp_h") if n in text]
        text = f"({text}) * {column}" if column else f"{text} * 1.0"
        nodes.append(expr(f"persp_m{index}", text, [*names, *([column] if column else [])]))
        cells.append(f"persp_m{index}")
    nodes += [
        expr("persp_m6", "persp_g * persp_unit_x", ["persp_g", "persp_unit_x"]),
        expr("persp_m7", "persp_h * persp_unit_y", ["persp_h", "persp_unit_y"]),
        expr("persp_m8", "persp_g * 0.0 + 1.0", ["persp_g"]),
    ]
    cells += ["persp_m6", "persp_m7", "persp_m8"]
    nodes += [
        Node("persp_entries", "stack", inputs=tuple(Ref(c) for c in cells), args={"axis": 0}),
        Node("persp_matrix", "reshape", inputs=(Ref("persp_entries"),), args={"shape": [3, 3]}),
    ]
    warp_args: dict[str, object] = {
        "matrix": Ref("persp_matrix"),
        # the matrix maps the output's pixels to the source's (albumentations' inverted)
        "inverse_map": True,
        # OpenCV's pixel centres are at whole coordinates
        "pixel_origin": "center",
        "interp_type": interpolation,
    }
    if border == BORDER_CONSTANT:
        fill = args.fill()
        warp_args["fill_value"] = [fill] if isinstance(fill, float) else fill
    else:
        warp_args["border_mode"] = WARP_BORDERS[border]
    if not keep_size:
        nodes.append(
            Node(
                "persp_out",
                "stack",
                inputs=(Ref("persp_tall"), Ref("persp_wide")),
                args={"axis": 0},
            )
        )
        warp_args["size"] = Ref("persp_out")
    nodes.append(step("perspective", "experimental.warp_perspective", warp_args))
    nearest = interpolation == "INTERP_NN"
    return Mapped(
        tuple(nodes),
        "approximate" if nearest else "exact",
        (NEAREST_TIES if nearest else SAME_PIXELS, DRAWN, NO_BORDER),
        frozenset({"persp_size"}),
    )


# Measured by tests/test_port_albumentations_warps.py (albumentations 2.0.8, its normal draws
# fixed on both sides; the 19 bundled photos, three sets of corners: moderate offsets, offsets
# past 0.32, offsets under a pixel)
SAME_PIXELS = (
    "pixels within 1 grey level of albumentations' for the same corners (bilinear and "
    "bicubic, keep_size True and False, 19 photos: mean 0.0002)"
)
NEAREST_TIES = (
    "nearest sampling picks another source pixel where a sample falls on a tie (19 photos, "
    "same corners: mean 0.0003, max 89 grey levels); bilinear and bicubic are within 1"
)
DRAWN = (
    "the corners drawn as albumentations draws them (a scale uniform in scale, each offset "
    "|N(0, scale)| mod 0.32 of the side), by DALI's generator (KS over 320 draws: p 0.20 to "
    "0.98 for the top-left corner and, with keep_size=False, the output's height and width; "
    "scales (0.05, 0.1), (0.2, 0.5) and (0.05, 0.2))"
)
NO_BORDER = (
    "the border (border_mode, fill) never shows, in albumentations as here: the output "
    "samples only inside the jittered corners, which lie inside the image (fill 0 and 255 "
    "give the same pixels, corners under a pixel from the edges included)"
)
