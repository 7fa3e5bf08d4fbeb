"""RandomAdjustSharpness as PIL's ImageEnhance.Sharpness computes it (torchvision on PIL images).

PIL smooths the image with its 3x3 SMOOTH kernel (the centre 5, its eight neighbours 1, over
13), rounded to 8 bits, leaving the one-pixel border as it was; it then blends the image with
that smoothed copy by the factor (extrapolating past 1: sharper) and truncates to 8 bits. Here:
DALI's ``filter``, of which only the inside is kept (13 is odd, so a 3x3 sum over 13 never lies
halfway and DALI's rounding gives PIL's), the blend as PIL writes it in float, and the change it
makes placed back on the whole image with a zero border (a slice reaching one pixel past each
side).
"""

from __future__ import annotations

from ...expressions.nodes import constant
from ...spec import Ref
from ..build import Grade, PortContext, Refuse
from ..model import TransformCall
from .color import _chain_expression, _uint8_only
from .grades import grade
from .perspective import _node

SMOOTH = [1 / 13, 1 / 13, 1 / 13, 1 / 13, 5 / 13, 1 / 13, 1 / 13, 1 / 13, 1 / 13]


def random_adjust_sharpness(call: TransformCall, context: PortContext) -> Grade:
    """RandomAdjustSharpness(sharpness_factor, p=0.5)."""
    image = Ref(_uint8_only(context, call.name))
    factor = float(call.argument(0, "sharpness_factor"))
    if factor < 0:
        raise Refuse(f"sharpness_factor={factor}: torchvision takes a factor of 0 or more")
    kernel = constant(context.fresh_id("sharpness_kernel"), SMOOTH, "FLOAT", shape=[3, 3])
    context.add_node(kernel)
    context.helpers.add(kernel.id)
    # the border's values are cut away below: only the inside's matter
    smooth = context.add(
        "sharpness_smooth",
        "filter",
        {"border": "constant"},
        inputs=(image, Ref(kernel.id)),
        image=False,
    )
    side = Ref(_node(context, "sharpness_size", f"{image.node}.shape()[0:2]"))
    whole = context.add("sharpness_whole", "cast", {"dtype": "INT32"}, inputs=(side,), image=False)
    # an image 2 px or less across has no inside: PIL leaves it as it is, and so does this
    inner_side = Ref(_node(context, "sharpness_inner_size", f"math.max({whole.node} - 2, 0)"))
    inner = {"start": [1, 1], "shape": inner_side, "axis_names": "HW"}
    smooth = context.add("sharpness_smooth_inside", "slice", inner, inputs=(smooth,), image=False)
    inside = context.add("sharpness_inside", "slice", inner, inputs=(image,), image=False)
    low = context.add(
        "sharpness_smooth_f", "cast", {"dtype": "FLOAT"}, inputs=(smooth,), image=False
    )
    high = context.add(
        "sharpness_inside_f", "cast", {"dtype": "FLOAT"}, inputs=(inside,), image=False
    )
    # PIL's blend: smooth + factor * (image - smooth), clipped and truncated to 8 bits
    change = Ref(
        _node(
            context,
            "sharpness_change",
            f"math.floor(math.clamp({low.node} + {factor} * ({high.node} - {low.node}), 0.0, "
            f"255.0)) - {high.node}",
        )
    )
    placed = context.add(
        "sharpness_placed",
        "slice",
        {
            "start": [-1, -1],
            "shape": whole,
            "axis_names": "HW",
            "out_of_bounds_policy": "pad",
            "fill_values": [0.0],
        },
        inputs=(change,),
        image=False,
    )
    _chain_expression(context, "sharpened", f"{image.node} + {placed.node}", (image, placed))
    context.add("sharpness", "cast", {"dtype": "UINT8"})
    context.apply_with_probability(float(call.argument(1, "p", 0.5)))
    return grade(call.name)
