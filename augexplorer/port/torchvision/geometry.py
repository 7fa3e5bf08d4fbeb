"""torchvision's geometric transforms: resizing, crops, flips, padding, rotation.

Sizes and crop positions are computed as torchvision computes them (expression nodes reading
the image's shape), so the output sizes agree pixel for pixel; what remains different is
measured and written in :mod:`.grades`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ...expressions.nodes import constant, expression
from ...spec import Fidelity, Random, Ref
from ..build import Grade, PortContext, Refuse
from ..library_names import is_v2
from ..model import TransformCall
from .arguments import (
    BEFORE_FLOAT,
    INTERPOLATION,
    fill_value,
    fill_values,
    image_fill,
    interpolation_name,
    is_tensor,
    on_tensor,
    size_pair,
    symmetric_range,
)
from .fills import (
    as_node,
    as_pixel,
    channel_fills,
    fill_kind,
    warp_with_channel_fills,
    with_channel_fills,
)
from .grades import grade


def _hwc(context: PortContext, name: str) -> str:
    """The image's node name, refusing where the image is no longer HWC (after ToTensor):
    DALI rotates and warps HWC images only."""
    if on_tensor(context):
        raise Refuse(
            f"{name} after ToTensor (or ToDtype) is not ported: DALI's rotate and warp_affine "
            f"take HWC images, and the image is a CHW float tensor there (fix: put {name} "
            f"{BEFORE_FLOAT})"
        )
    return context.image.node


@dataclass(frozen=True)
class _Axes:
    """Where the image's height and width are in its shape: HWC, or CHW after ToTensor."""

    image: str
    hw: str  # the slice of shape() holding (height, width)
    height: int
    width: int

    def text(self, expression: str) -> str:
        """`expression` written for HWC (``image.shape()[0:2]``, ``[0]``, ``[1]``) for these
        axes."""
        if self.hw == "[0:2]":
            return expression
        shape = re.escape(f"{self.image}.shape()")
        axes = {"[0:2]": self.hw, "[0]": f"[{self.height}]", "[1]": f"[{self.width}]"}
        # one pass: [0] becoming [1] must not then become [2]
        return re.sub(
            f"(?<![\\w.])({shape})(\\[0:2\\]|\\[0\\]|\\[1\\])",
            lambda found: found.group(1) + axes[found.group(2)],
            expression,
        )


def _axes(context: PortContext) -> _Axes:
    """The image's node and where its height and width are: resizes, crops, pads and flips
    read DALI's layout, and run on the CHW float tensor ToTensor makes as on an HWC image."""
    if on_tensor(context):
        return _Axes(context.image.node, "[1:3]", 1, 2)
    return _Axes(context.image.node, "[0:2]", 0, 1)


def _graded(context: PortContext, measured: Grade) -> Grade:
    """`measured` (torchvision's figures on the image before ToTensor), said to be of another
    image where a resampling transform runs on the float tensor (crops, pads and flips move
    the tensor's values as they move pixels: their grades stand)."""
    if not on_tensor(context):
        return measured
    fidelity: Fidelity = "approximate" if measured.fidelity == "exact" else measured.fidelity
    return Grade(fidelity, (*measured.differences, ON_TENSOR))


ON_TENSOR = (
    "Here on the CHW float tensor ToTensor made: DALI resamples its floats as torchvision "
    "does its tensor's, not measured against torchvision there (the figures are for the image "
    "before ToTensor)."
)


def _expression(context: PortContext, base: str, text: str) -> Ref:
    node_id = context.fresh_id(base)
    node = expression(node_id, text)
    # a value computed from the image's shape: on every sample, as a crop or pad under a
    # RandomApply's or RandomChoice's condition would otherwise pass the image through here
    # where its type is another (DALI refuses the merge)
    context.add_node(node, helper=True)
    return Ref(node_id)


def _int32(context: PortContext, base: str, ref: Ref) -> Ref:
    """`ref` as int32: slice takes whole-pixel starts and shapes as int32 (shapes are int64)."""
    return context.add(base, "cast", {"dtype": "INT32"}, inputs=(ref,), image=False)


def uniform(low: float, high: float, seed: int) -> object:
    """A uniform draw, or the constant where the range is one value."""
    return low if low == high else Random.uniform(low, high, seed=seed)


def _size_vector(context: PortContext, base: str, height: int, width: int) -> str:
    """A name an expression can use for the (height, width) pair: a number when square,
    else a constant node."""
    if height == width:
        return str(height)
    node_id = context.fresh_id(base)
    node = constant(node_id, [height, width], "INT64")
    context.add_node(node)
    return node_id


def _antialias(
    call: TransformCall, index: int, context: PortContext, mode: str
) -> tuple[bool, str]:
    """DALI's antialias for the call's, and what the grade says of it ("" where nothing):
    torchvision resizes PIL images with PIL, which always antialiases, so antialias=False (or
    None) takes effect only on tensors (after ToImage or PILToTensor). A nearest mode gets
    no sentence: neither library antialiases it."""
    wanted = bool(call.argument(index, "antialias", True))
    tensor = is_tensor(context)
    said = "" if wanted or mode.startswith("NEAREST") else ("tensor" if tensor else "pil")
    return wanted or not tensor, said


def resize(call: TransformCall, context: PortContext) -> Grade:
    """Resize(size, interpolation, max_size, antialias): an int sizes the shorter side, the
    longer one floored as torchvision floors it (``int(size * long / short)``)."""
    axes = _axes(context)
    image = axes.image
    size = call.argument(0, "size")
    mode = interpolation_name(call.argument(1, "interpolation"), "BILINEAR", after_size=True)
    max_size = call.argument(2, "max_size")
    antialias, no_antialias = _antialias(call, 3, context, mode)
    args: dict[str, object] = {
        "interp_type": INTERPOLATION[mode],
        "antialias": antialias,
        "subpixel_scale": False,
    }
    if size is None:
        args["size"] = _longer_side(call, context, max_size)
    elif isinstance(size, int) or (isinstance(size, list | tuple) and len(size) == 1):
        short = int(size if isinstance(size, int) else size[0])
        shape = axes.text(f"{image}.shape()[0:2]")
        shorter = axes.text(f"math.min({image}.shape()[0], {image}.shape()[1])")
        text = f"math.floor({short} * {shape} / {shorter})"
        if max_size is not None:
            # torchvision: a longer side past max_size becomes max_size, and the shorter
            # int(max_size * size / longer) of the longer side it would have had
            limit = int(max_size)
            longer = axes.text(f"math.max({image}.shape()[0], {image}.shape()[1])")
            new_long = _expression(
                context, "resize_longer", f"math.floor({short} * {longer} / {shorter})"
            ).node
            over = f"({new_long} > {limit})"
            new_short = (
                f"({over} * math.floor({limit * short} / {new_long}) + (1 - {over}) * {short})"
            )
            new_longer = f"({over} * {limit} + (1 - {over}) * {new_long})"
            is_short = f"({shape} == {shorter})"
            text = f"{is_short} * {new_short} + (1 - {is_short}) * {new_longer}"
        args["size"] = _expression(context, "resize_size", text)
    else:
        height, width = size_pair(size)
        args["size"] = [float(height), float(width)]
    context.add("resize", "resize", args)
    return _graded(context, grade(call.name, mode=mode, no_antialias=no_antialias))


def _longer_side(call: TransformCall, context: PortContext, max_size: object) -> Ref:
    """v2's ``Resize(size=None, max_size=M)``: the longer side becomes M (larger or smaller),
    the shorter ``int(M * short / long)``; v1's Resize fails on size=None."""
    if not is_v2(call):
        raise Refuse(
            "size=None: torchvision.transforms' Resize fails on it (TypeError: Size should be "
            "int or sequence) (fix: a size; or v2.Resize(size=None, max_size=N), which sizes "
            "the longer side to N)"
        )
    if not isinstance(max_size, int) or isinstance(max_size, bool):
        raise Refuse(
            f"size=None with max_size={max_size!r}: v2's Resize fails on it, as it takes the "
            "longer side from max_size (fix: max_size=N, an int)"
        )
    axes = _axes(context)
    image = axes.image
    shape = axes.text(f"{image}.shape()[0:2]")
    shorter = axes.text(f"math.min({image}.shape()[0], {image}.shape()[1])")
    longer = axes.text(f"math.max({image}.shape()[0], {image}.shape()[1])")
    is_short = f"({shape} == {shorter})"
    new_short = f"math.floor({max_size} * {shorter} / {longer})"
    return _expression(
        context, "resize_size", f"{is_short} * {new_short} + (1 - {is_short}) * {max_size}"
    )


def center_crop(call: TransformCall, context: PortContext) -> Grade:
    """CenterCrop(size): the window's corner rounded as torchvision rounds it
    (``int(round((H - h) / 2))``, half to even), which DALI's crop_pos rounding does not."""
    axes = _axes(context)
    image = axes.image
    height, width = size_pair(call.argument(0, "size"))
    size = _size_vector(context, "crop_size", height, width)
    margin = axes.text(f"({image}.shape()[0:2] - {size})")
    text = f"({margin} + {margin} // 2 % 2 * ({margin} % 2)) // 2"
    start = _int32(context, "crop_start_int", _expression(context, "crop_start", text))
    context.add(
        "center_crop",
        "slice",
        {
            "start": start,
            "shape": [height, width],
            "axis_names": "HW",
            "out_of_bounds_policy": "pad",
        },
    )
    return grade(call.name)


def random_crop(call: TransformCall, context: PortContext) -> Grade:
    """RandomCrop(size, padding, pad_if_needed, fill, padding_mode): a window drawn at a
    uniform whole-pixel corner of the padded image, as torchvision draws it."""
    axes = _axes(context)
    image = axes.image
    height, width = size_pair(call.argument(0, "size"))
    top, left, bottom, right = _padding_sides(call.argument(1, "padding") or 0)
    padded = any((top, left, bottom, right))
    pad_if_needed = bool(call.argument(2, "pad_if_needed", False))
    mode = _padding_mode(call, 4)
    if mode != "constant" and pad_if_needed:
        # torchvision pads twice then (padding, then the shortfall of the padded image): a
        # mirror of a mirror, which one border rule does not give
        raise Refuse(
            f"padding_mode={mode!r} with pad_if_needed=True is not ported (fix: "
            "padding_mode='constant', or a Pad with that mode before the crop)"
        )
    fill = fill_values(image_fill(call.argument(3, "fill", 0), context.state))
    size = _size_vector(context, "crop_size", height, width)
    draw = context.add(
        "crop_draw",
        "random.uniform",
        {"range": [0.0, 1.0], "shape": [2]},
        image=False,
        seed=True,
    )
    # where the corner may go in the padded image; below 0 the image is smaller than the crop
    grow = _height_width(context, "crop_padding", top + bottom, left + right)
    room = axes.text(f"({image}.shape()[0:2] - {size} + {grow})")
    if pad_if_needed:
        # torchvision pads both sides by the shortfall d and draws the corner over 0..d, so the
        # image lands at a uniform offset over 0..d (the slice fills what it reaches past)
        text = f"math.floor({draw.node} * (math.abs({room}) + 1)) + math.min({room}, 0)"
    else:
        text = f"math.floor({draw.node} * math.max({room} + 1, 1))"
    if not pad_if_needed and padded and (height > top + bottom or width > left + right):
        # torchvision raises where the padded image is smaller than the crop; the slice below
        # would pad instead, so a window of the size the image needs fails the run there (read
        # by the corner, so that it runs wherever the crop does)
        fits = context.add(
            "random_crop_size_check",
            "slice",
            {
                "start": [0, 0],
                "shape": [max(height - top - bottom, 1), max(width - left - right, 1)],
                "axis_names": "HW",
                "out_of_bounds_policy": "error",
            },
            inputs=(context.image,),
            image=False,
            check=True,
        )
        text = f"{text} + 0 * {fits.node}.shape(){axes.hw}"
    shift = _height_width(context, "crop_offset", top, left)
    start = _int32(
        context, "crop_start_int", _expression(context, "crop_start", f"{text} - {shift}")
    )
    if mode != "constant" and (pad_if_needed or padded):
        _no_border_on_tensor(context, call.name)
        _border_window(context, mode, start, [height, width], "random_crop")
        return grade(call.name, pad_if_needed=pad_if_needed)
    window: dict[str, object] = {"start": start, "shape": [height, width], "axis_names": "HW"}
    if pad_if_needed or padded:
        window.update(out_of_bounds_policy="pad", fill_values=fill)
    else:
        # torchvision raises where the image is smaller than the crop: DALI's slice too
        window.update(out_of_bounds_policy="error")
    context.add("random_crop", "slice", window)
    return grade(call.name, pad_if_needed=pad_if_needed)


def _padding_sides(padding: object) -> tuple[int, int, int, int]:
    """torchvision's padding as (top, left, bottom, right): one int for every side, a pair for
    left and right then top and bottom, or left, top, right, bottom."""
    values = list(padding) if isinstance(padding, list | tuple) else [padding]
    sides = [int(v) for v in values if isinstance(v, int | float) and not isinstance(v, bool)]
    if len(sides) != len(values) or len(sides) not in (1, 2, 4):
        raise Refuse(f"padding={padding!r} is not an int, a pair or four values")
    left, top, right, bottom = sides * (4 // len(sides))
    return top, left, bottom, right


def _height_width(context: PortContext, base: str, height: int, width: int) -> str:
    """What an expression adds to a (height, width) vector: the number where both are one, a
    constant node's name otherwise."""
    if height == width:
        return str(height)
    node = constant(context.fresh_id(base), [height, width], "INT64")
    context.add_node(node)
    return node.id


def random_resized_crop(call: TransformCall, context: PortContext) -> Grade:
    """RandomResizedCrop(size, scale, ratio, interpolation, antialias) and RandomSizedCrop."""
    height, width = size_pair(call.argument(0, "size"))
    scale = symmetric_range(call.argument(1, "scale", (0.08, 1.0)), "scale")
    ratio = symmetric_range(call.argument(2, "ratio", (3 / 4, 4 / 3)), "ratio")
    mode = interpolation_name(call.argument(3, "interpolation"), "BILINEAR")
    antialias, no_antialias = _antialias(call, 4, context, mode)
    context.add(
        "random_resized_crop",
        "random_resized_crop",
        {
            "size": [float(height), float(width)],
            "random_area": list(scale),
            "random_aspect_ratio": list(ratio),
            "num_attempts": 10,
            "interp_type": INTERPOLATION[mode],
            "antialias": antialias,
        },
        seed=True,
    )
    return _graded(context, grade(call.name, mode=mode, no_antialias=no_antialias))


def flip(horizontal: bool):  # type: ignore[no-untyped-def]
    def handler(call: TransformCall, context: PortContext) -> Grade:
        p = float(call.argument(0, "p", 0.5))
        axis = "horizontal" if horizontal else "vertical"
        draw = Random.coin_flip(p, seed=context.seed_for(call.name, str(len(context.nodes))))
        value: object = 1 if p >= 1 else draw
        if p <= 0:
            value = 0
        context.add(
            f"{axis}_flip", "flip", {axis: value, ("vertical" if horizontal else "horizontal"): 0}
        )
        return grade(call.name)

    return handler


def pad(call: TransformCall, context: PortContext) -> Grade:
    """Pad(padding, fill, padding_mode='constant'): a slice reaching past the image."""
    axes = _axes(context)
    image = axes.image
    top, left, bottom, right = _padding_sides(call.argument(0, "padding"))
    mode = _padding_mode(call, 2)
    fill = fill_values(image_fill(call.argument(1, "fill", 0), context.state))
    grow = context.fresh_id("pad_shape")
    extra = _height_width(context, "pad_extra", top + bottom, left + right)
    node = expression(grow, axes.text(f"{image}.shape()[0:2] + {extra}"))
    context.add_node(node, helper=True)  # from the shape, on every sample (_expression)
    if mode != "constant":
        _no_border_on_tensor(context, call.name)
        size = context.add("pad_size", "cast", {"dtype": "FLOAT"}, inputs=(Ref(grow),), image=False)
        _border_window(context, mode, [-top, -left], size, "pad")
        return grade(call.name)
    shape = _int32(context, "pad_shape_int", Ref(grow))
    context.add(
        "pad",
        "slice",
        {
            "start": [-top, -left],
            "shape": shape,
            "axis_names": "HW",
            "out_of_bounds_policy": "pad",
            "fill_values": fill,
        },
    )
    return grade(call.name)


def random_rotation(call: TransformCall, context: PortContext) -> Grade:
    """RandomRotation(degrees, interpolation=NEAREST, expand=False, center=None, fill=0)."""
    _hwc(context, call.name)
    low, high = symmetric_range(call.argument(0, "degrees"), "degrees")
    mode = interpolation_name(call.argument(1, "interpolation"), "NEAREST")
    expand = bool(call.argument(2, "expand", False))
    if call.argument(3, "center") is not None:
        raise Refuse("a rotation centre other than the image's is not ported (fix: center=None)")
    given_fill = image_fill(call.argument(4, "fill", 0), context.state)
    kind = fill_kind(context)
    fills = channel_fills(given_fill, kind)
    fill = 0.0 if fills else as_pixel(fill_value(given_fill), kind)
    angle = uniform(low, high, context.seed_for(call.name, str(len(context.nodes))))
    if fills and not expand:  # one draw that the image's and the ones' rotations read
        angle = as_node(context, "rotate_angle", angle)
    placed = _expanded(context, low, high) if expand else {"angle": angle, "keep_size": True}
    args = {**placed, "interp_type": INTERPOLATION[mode]}
    if fills:
        warp_with_channel_fills(context, "rotate", "rotate", args, fills)
    else:
        context.add("rotate", "rotate", {**args, "fill_value": fill})
    return with_channel_fills(grade(call.name, mode=mode, expand=expand), fills)


def _expanded(context: PortContext, low: float, high: float) -> dict[str, object]:
    """The angle as a node and the canvas PIL gives an image rotated with expand=True: the
    corners' extent rounded outwards about the image's centre (ceil of the right edge less floor
    of the left), and a quarter turn's exact swap of height and width. DALI's own canvas (keep_size
    False) rounds to its own parity: 1-2 pixels off, or height and width swapped, on a fifth of
    the bundled photos at 45 or 60 degrees. Computed in float64, as PIL does."""
    image = context.image.node
    angle: Ref | float = low
    if low == high:
        turn = constant(context.fresh_id("rotate_angle"), [low], "FLOAT", shape=[])
        context.add_node(turn)
        drawn = Ref(turn.id)
    else:
        drawn = context.add(
            "rotate_angle", "random.uniform", {"range": [low, high]}, image=False, seed=True
        )
        angle = drawn
    wide = context.add("rotate_angle64", "cast", {"dtype": "FLOAT64"}, inputs=(drawn,), image=False)
    a = wide.node
    radians = f"{a} * 0.017453292519943295"
    cos, sin = f"math.abs(math.cos({radians}))", f"math.abs(math.sin({radians}))"
    quarter = f"({a} % 90.0 == 0.0)"
    odd = f"math.abs({a} / 90.0 % 2.0)"  # 1 on an odd number of quarter turns
    sides = {}
    for name, along, across, first, second in (
        ("height", 0, 1, sin, cos),
        ("width", 1, 0, cos, sin),
    ):
        own, other = f"{image}.shape()[{along}]", f"{image}.shape()[{across}]"
        extent = f"({first} * {image}.shape()[1] + {second} * {image}.shape()[0]) * 0.5"
        rounded = f"math.ceil({own} * 0.5 + {extent}) - math.floor({own} * 0.5 - {extent})"
        swapped = f"{odd} * {other} + (1.0 - {odd}) * {own}"
        sides[name] = _expression(
            context,
            f"rotate_{name}",
            f"{quarter} * ({swapped}) + (1.0 - {quarter}) * ({rounded})",
        )
    size = context.add(
        "rotate_size", "stack", {}, inputs=(sides["height"], sides["width"]), image=False
    )
    size = context.add("rotate_size_float", "cast", {"dtype": "FLOAT"}, inputs=(size,), image=False)
    return {"angle": angle, "size": size}


# torchvision's padding modes as DALI's warp_perspective names the same border (measured on
# the row 1..8 padded by 3: DALI's 'reflect' repeats the edge pixel, as torchvision's
# 'symmetric' does; its 'reflect_101' does not, as torchvision's 'reflect')
WARP_BORDER_OF_PADDING = {"reflect": "reflect_101", "symmetric": "reflect", "edge": "replicate"}


def _no_border_on_tensor(context: PortContext, name: str) -> None:
    """A padding mode other than constant takes a warp (HWC only) here: refused on the tensor."""
    if on_tensor(context):
        raise Refuse(
            f"{name} with a padding_mode other than 'constant' after ToTensor is not ported: "
            f"DALI's warp that repeats the border takes HWC images (fix: put it {BEFORE_FLOAT})"
        )


def _padding_mode(call: TransformCall, index: int) -> str:
    """The call's padding_mode (argument `index`), one of torchvision's four."""
    mode = call.argument(index, "padding_mode", "constant")
    if mode != "constant" and mode not in WARP_BORDER_OF_PADDING:
        raise Refuse(f"padding_mode={mode!r} is not one of torchvision's padding modes")
    return str(mode)


def _border_window(
    context: PortContext,
    mode: str,
    start: Ref | list[int],
    size: Ref | list[int],
    base: str,
) -> None:
    """The window of `size` (height, width) whose corner is at `start` (row, column in the
    image, before or past its edges where the padding reaches), what lies outside the image
    taken as torchvision's padding `mode` takes it: a whole-pixel shift by warp_perspective with
    the same border, nearest pixel, so the pixels are the image's own."""
    if isinstance(start, Ref):
        corner = context.add(
            f"{base}_corner", "cast", {"dtype": "FLOAT"}, inputs=(start,), image=False
        )
        # (x, y) = (column, row): the shift from the window's pixels to the image's
        row = _expression(context, f"{base}_row", f"{corner.node}[0:1]")
        column = _expression(context, f"{base}_column", f"{corner.node}[1:2]")
        shift = context.add(f"{base}_shift", "cat", {"axis": 0}, inputs=(column, row), image=False)
        affine = context.add(
            f"{base}_affine", "transforms.translation", {"offset": shift}, image=False
        )
        last_row = constant(context.fresh_id(f"{base}_last_row"), [0.0, 0.0, 1.0], "FLOAT", [1, 3])
        context.add_node(last_row)
        matrix: Ref | list[float] = context.add(
            f"{base}_matrix", "cat", {"axis": 0}, inputs=(affine, Ref(last_row.id)), image=False
        )
    else:
        row_start, column_start = start
        matrix = [1.0, 0.0, float(column_start), 0.0, 1.0, float(row_start), 0.0, 0.0, 1.0]
    context.add(
        base,
        "experimental.warp_perspective",
        {
            "matrix": matrix,
            "size": size if isinstance(size, Ref) else [float(v) for v in size],
            "inverse_map": True,
            "border_mode": WARP_BORDER_OF_PADDING[mode],
            "interp_type": "INTERP_NN",
        },
    )
