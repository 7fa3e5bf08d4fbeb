"""albumentations' PadIfNeeded as a whole-pixel shift onto a larger canvas: the padding is
computed from each image's size (expressions on its shape) and ``warp_perspective`` draws the
image onto the canvas with albumentations' border (constant, mirrored or repeated). Measured
exact against albumentations 2.0.8 (``tests/test_port_albumentations_parity.py``)."""

from __future__ import annotations

from ...expressions.nodes import constant
from ...spec import Node, Ref
from .affine import WARP_BORDERS
from .arguments import BORDER_CONSTANT, Args, NotPorted
from .nodes import const, expr, step
from .registry import IMAGE, Mapped, mapping

# Where the padding goes on each axis (height, width): the share of it before the image.
POSITIONS = {
    "center": (0.5, 0.5),
    "top_left": (0.0, 0.0),
    "top_right": (0.0, 1.0),
    "bottom_left": (1.0, 0.0),
    "bottom_right": (1.0, 1.0),
}


@mapping(
    "PadIfNeeded",
    positional=("min_height", "min_width", "pad_height_divisor", "pad_width_divisor"),
    p=1.0,
)
def pad_if_needed(args: Args) -> Mapped:
    position = args.get("position", "center")
    if position not in POSITIONS:
        raise NotPorted(f"position={position!r}: only fixed positions are ported (not random)")
    min_h, min_w = args.get("min_height", 1024), args.get("min_width", 1024)
    div_h, div_w = args.get("pad_height_divisor"), args.get("pad_width_divisor")
    if (min_h is None) != (min_w is None) or (min_h is None and (div_h is None or div_w is None)):
        raise NotPorted("give min_height and min_width, or both divisors")
    if min_h is not None:
        total = [
            const("pad_min", [float(min_h), float(min_w)]),
            expr("pad_total", "math.max(pad_min - image.shape()[0:2], 0)", ["pad_min", IMAGE]),
        ]
    else:
        total = [
            const("pad_divisor", [float(div_h), float(div_w)]),
            expr(
                "pad_total",
                "(pad_divisor - image.shape()[0:2] % pad_divisor) % pad_divisor",
                ["pad_divisor", IMAGE],
            ),
        ]
    border = args.get("border_mode", BORDER_CONSTANT)
    if border != BORDER_CONSTANT and border not in WARP_BORDERS:
        raise NotPorted(f"border_mode={border!r} is not one of OpenCV's border modes")
    fill = args.fill()
    warp_args = {
        "matrix": Ref("pad_matrix"),
        "size": Ref("pad_size"),
        "inverse_map": False,
        "interp_type": "INTERP_NN",
        "border_mode": WARP_BORDERS.get(border, "constant"),
    }
    if border == BORDER_CONSTANT:
        warp_args["fill_value"] = [fill] if isinstance(fill, float) else fill
    nodes = (
        *total,
        const("pad_where", list(POSITIONS[position])),
        # albumentations: int(total / 2) before the image on each axis (for the centre)
        expr("pad_before", "math.floor(pad_total * pad_where)", ["pad_total", "pad_where"]),
        expr("pad_size", "image.shape()[0:2] + pad_total", [IMAGE, "pad_total"]),
        expr("pad_offset", "pad_before[1::-1]", ["pad_before"]),
        Node("pad_shift", "transforms.translation", args={"offset": Ref("pad_offset")}),
        constant("last_row", [0.0, 0.0, 1.0], "FLOAT", shape=[1, 3]),
        Node("pad_matrix", "cat", inputs=(Ref("pad_shift"), Ref("last_row")), args={"axis": 0}),
        step("pad", "experimental.warp_perspective", warp_args),
    )
    return Mapped(
        nodes,
        "exact",
        ("the image shifted by whole pixels onto the larger canvas: the same pixels",),
        frozenset({"pad_total", "pad_size"}),
    )
