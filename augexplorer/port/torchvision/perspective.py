"""torchvision's RandomPerspective: the four corners drawn as torchvision draws them, and the
warp that moves the image's corners onto them computed in closed form (the unit square to a
quadrilateral, after Heckbert: :func:`augexplorer.port.projective.square_to_quad`, which the
albumentations port shares), so no linear system has to be solved per sample; DALI's
experimental.warp_perspective applies it."""

from __future__ import annotations

from ...expressions.nodes import expression
from ...spec import Ref
from ..build import Grade, PortContext, Refuse
from ..model import TransformCall
from ..projective import square_to_quad
from .arguments import (
    BEFORE_FLOAT,
    INTERPOLATION,
    fill_value,
    image_fill,
    interpolation_name,
)
from .fills import as_pixel, channel_fills, fill_kind
from .grades import grade


def _node(context: PortContext, base: str, text: str) -> str:
    node = expression(context.fresh_id(base), text)
    context.add_node(node)
    context.helpers.add(node.id)
    return node.id


def random_perspective(call: TransformCall, context: PortContext) -> Grade:
    """RandomPerspective(distortion_scale=0.5, p=0.5, interpolation=BILINEAR, fill=0)."""
    if context.state.get("layout", "HWC") != "HWC":
        raise Refuse(
            f"RandomPerspective on a float tensor is not ported (fix: put it {BEFORE_FLOAT})"
        )
    scale = float(call.argument(0, "distortion_scale", 0.5))
    p = float(call.argument(1, "p", 0.5))
    mode = interpolation_name(call.argument(2, "interpolation"), "BILINEAR")
    given_fill = image_fill(call.argument(3, "fill", 0), context.state)
    # warp_perspective fills each channel with its own value
    kind = fill_kind(context)
    fills = channel_fills(given_fill, kind) or [as_pixel(fill_value(given_fill), kind)]
    image = context.image.node
    width, height = f"{image}.shape()[1]", f"{image}.shape()[0]"
    u = context.add(
        "perspective_draw",
        "random.uniform",
        {"range": [0.0, 1.0], "shape": [8]},
        image=False,
        seed=True,
    ).node
    # torchvision: bound = int(distortion_scale * (side // 2)) + 1, each corner coordinate a
    # randint within `bound` of its side
    bw = f"(math.floor({scale} * ({width} // 2)) + 1)"
    bh = f"(math.floor({scale} * ({height} // 2)) + 1)"
    low_x = [f"math.floor({u}[{i}] * {bw})" for i in range(4)]
    low_y = [f"math.floor({u}[{4 + i}] * {bh})" for i in range(4)]
    xs = [low_x[0], f"{width} - {bw} + {low_x[1]}", f"{width} - {bw} + {low_x[2]}", low_x[3]]
    ys = [low_y[0], low_y[1], f"{height} - {bh} + {low_y[2]}", f"{height} - {bh} + {low_y[3]}"]
    x = [_node(context, f"corner_x{i}", f"({text}) * 1.0") for i, text in enumerate(xs)]
    y = [_node(context, f"corner_y{i}", f"({text}) * 1.0") for i, text in enumerate(ys)]
    # g and h first: the rows read them by the names their nodes get
    g_text, h_text, _ = square_to_quad(x, y, "g", "h")
    g = _node(context, "perspective_g", g_text)
    h = _node(context, "perspective_h", h_text)
    rows = square_to_quad(x, y, g, h)[2]
    # the unit square to the corners, after the image's corners to the unit square
    sx, sy = f"({width} - 1.0)", f"({height} - 1.0)"
    entries = [
        f"({rows[0]}) / {sx}",
        f"({rows[1]}) / {sy}",
        rows[2],
        f"({rows[3]}) / {sx}",
        f"({rows[4]}) / {sy}",
        rows[5],
        f"{g} / {sx}",
        f"{h} / {sy}",
        f"{g} * 0.0 + 1.0",
    ]
    cells = [Ref(_node(context, f"perspective_m{i}", text)) for i, text in enumerate(entries)]
    stacked = context.add(
        "perspective_entries", "stack", {"axis": 0}, inputs=tuple(cells), image=False
    )
    matrix = context.add(
        "perspective_matrix", "reshape", {"shape": [3, 3]}, inputs=(stacked,), image=False
    )
    context.add(
        "perspective",
        "experimental.warp_perspective",
        {
            "matrix": matrix,
            "inverse_map": False,
            "pixel_origin": "corner",
            "interp_type": INTERPOLATION[mode],
            "fill_value": fills,
        },
    )
    context.apply_with_probability(p, [context.image])
    return grade(call.name, mode=mode)
