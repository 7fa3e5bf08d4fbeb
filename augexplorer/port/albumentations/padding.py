"""albumentations' PadIfNeeded (and the crops' pad_if_needed) as a whole-pixel shift onto a
larger canvas: the padding is computed from each image's size (expressions on its shape) and
``warp_perspective`` draws the image onto the canvas with albumentations' border (constant,
mirrored or repeated). Measured exact against albumentations 2.0.8
(``tests/test_port_albumentations_parity.py``, ``tests/test_port_probe_albumentations.py``)."""

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
    return Mapped(
        (*total, *canvas_nodes(args, position)),
        "exact",
        ("the image shifted by whole pixels onto the larger canvas: the same pixels",),
        frozenset({"pad_total", "pad_size"}),
    )


def canvas_nodes(args: Args, position: str, name: str = "position") -> tuple[Node, ...]:
    """The image drawn onto a canvas ``pad_total`` (a node the caller adds: rows, columns)
    larger, the padding placed as `position` (the argument `name`) places it, with the call's
    border_mode and fill; the last node, ``pad``, gives the padded image."""
    if position not in POSITIONS:
        raise NotPorted(f"{name}={position!r}: only fixed positions are ported (not random)")
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
    return (
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


def padded_to(args: Args, height: int, width: int) -> tuple[Node, ...]:
    """A crop's ``pad_if_needed=True``: the image padded to at least `height` x `width`, as
    albumentations' crops pad it (PadIfNeeded's padding, placed by ``pad_position``); nothing
    where pad_if_needed is not set. The last node, ``pad``, gives the padded image."""
    if not args.get("pad_if_needed", False):
        return ()
    return (
        const("pad_min", [float(height), float(width)]),
        expr("pad_total", "math.max(pad_min - image.shape()[0:2], 0)", ["pad_min", IMAGE]),
        *canvas_nodes(args, args.get("pad_position", "center"), "pad_position"),
    )
