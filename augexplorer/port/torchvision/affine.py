"""torchvision's RandomAffine: DALI's affine transforms, composed as torchvision composes them
(shear along x, then along y, scale, rotation about the image's centre, then translation),
into one warp_affine with torchvision's defaults (nearest-neighbour sampling, fill 0, the same
canvas)."""

from __future__ import annotations

from collections.abc import Sequence

from ...expressions.nodes import constant, expression
from ...spec import Node, Ref
from ..build import Grade, PortContext, Refuse
from ..model import TransformCall
from .arguments import (
    BEFORE_FLOAT,
    INTERPOLATION,
    fill_value,
    image_fill,
    interpolation_name,
    symmetric_range,
)
from .fills import as_pixel, channel_fills, fill_kind, warp_with_channel_fills, with_channel_fills
from .geometry import uniform
from .grades import grade


def _helper(context: PortContext, node: Node) -> Ref:
    return context.add_node(node, helper=True)


def _draw(context: PortContext, base: str, low: float, high: float) -> Ref:
    """A per-sample uniform draw, or the constant where the range is one value (DALI refuses
    an empty range)."""
    if low == high:
        return _helper(context, constant(context.fresh_id(base), [low]))
    return context.add(base, "random.uniform", {"range": [low, high]}, image=False, seed=True)


def _shear_ranges(value: object) -> tuple[tuple[float, float] | None, tuple[float, float] | None]:
    """torchvision's shear: a number or a pair is along x only; four values are x then y."""
    if value is None:
        return None, None
    if isinstance(value, Sequence) and len(value) == 4:
        return (float(value[0]), float(value[1])), (float(value[2]), float(value[3]))
    return symmetric_range(value, "shear"), None


def random_affine(call: TransformCall, context: PortContext) -> Grade:
    """RandomAffine(degrees, translate, scale, shear, interpolation=NEAREST, fill=0, center)."""
    if context.state.get("layout", "HWC") != "HWC":
        raise Refuse(f"RandomAffine on a float tensor is not ported (fix: put it {BEFORE_FLOAT})")
    degrees = symmetric_range(call.argument(0, "degrees"), "degrees")
    translate = call.argument(1, "translate")
    scale = call.argument(2, "scale")
    shear_x, shear_y = _shear_ranges(call.argument(3, "shear"))
    mode = interpolation_name(call.argument(4, "interpolation"), "NEAREST")
    given_fill = image_fill(call.argument(5, "fill", 0), context.state)
    kind = fill_kind(context)
    fills = channel_fills(given_fill, kind)
    fill = 0.0 if fills else as_pixel(fill_value(given_fill), kind)
    if call.argument(6, "center") is not None:
        raise Refuse("a centre other than the image's is not ported (fix: center=None)")
    image = context.image.node
    centre = _helper(
        context, expression(context.fresh_id("affine_centre"), f"{image}.shape()[1::-1] * 0.5")
    )
    matrix: Ref | None = None

    def then(base: str, op: str, args: dict[str, object]) -> None:
        nonlocal matrix
        inputs = (matrix,) if matrix is not None else ()
        matrix = context.add(base, op, args, inputs=inputs, image=False)

    for axis, found in (("x", shear_x), ("y", shear_y)):
        if found is None or found == (0.0, 0.0):
            continue
        # DALI shears the other way round: the angle is negated
        direction = [-1.0, 0.0] if axis == "x" else [0.0, -1.0]
        unit = _helper(context, constant(context.fresh_id(f"shear_{axis}_axis"), direction))
        drawn = _draw(context, f"shear_{axis}", *found)
        angles = _helper(
            context,
            expression(context.fresh_id(f"shear_{axis}_angles"), f"{unit.node} * {drawn.node}"),
        )
        then(f"affine_shear_{axis}", "transforms.shear", {"angles": angles, "center": centre})
    if scale is not None:
        low, high = symmetric_range(scale, "scale")
        ones = _helper(context, constant(context.fresh_id("scale_axes"), [1.0, 1.0]))
        drawn = _draw(context, "affine_scale_draw", low, high)
        factors = _helper(
            context, expression(context.fresh_id("scale_factors"), f"{ones.node} * {drawn.node}")
        )
        then("affine_scale", "transforms.scale", {"scale": factors, "center": centre})
    angle = uniform(*degrees, context.seed_for(call.name, str(len(context.nodes))))
    then("affine_rotation", "transforms.rotation", {"angle": angle, "center": centre})
    if translate is not None:
        fx, fy = (float(translate[0]), float(translate[1]))
        fraction = _helper(context, constant(context.fresh_id("translate_limit"), [fx, fy]))
        drawn = context.add(
            "translate_draw",
            "random.uniform",
            {"range": [-1.0, 1.0], "shape": [2]},
            image=False,
            seed=True,
        )
        # whole pixels, as torchvision rounds its translation
        offset = _helper(
            context,
            expression(
                context.fresh_id("translate_offset"),
                f"math.floor({drawn.node} * {fraction.node} * {image}.shape()[1::-1] + 0.5)",
            ),
        )
        then("affine_translation", "transforms.translation", {"offset": offset})
    args = {"matrix": matrix, "inverse_map": False, "interp_type": INTERPOLATION[mode]}
    if fills:
        warp_with_channel_fills(context, "affine", "warp_affine", args, fills)
    else:
        context.add("affine", "warp_affine", {**args, "fill_value": fill})
    return with_channel_fills(grade(call.name, mode=mode), fills)
