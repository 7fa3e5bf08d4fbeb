"""torchvision.transforms.v2's random resizes and zoom out: RandomShortestSize, RandomResize,
ScaleJitter and RandomZoomOut.

Each draw is made by a DALI random operator in the graph (seeded as every port's draws are),
and each size is computed from it and the image's shape as torchvision computes it, in the
same float width: RandomShortestSize's ratio in float64 (Python floats), ScaleJitter's and
RandomZoomOut's in float32 (``torch.rand``'s tensors), each truncated to whole pixels as
``int()`` truncates, so that the same draws give torchvision's sizes to the pixel.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from ...expressions.nodes import constant
from ...spec import Ref
from ..build import Grade, PortContext, Refuse
from ..model import TransformCall
from .arguments import (
    INTERPOLATION,
    fill_values,
    image_fill,
    interpolation_name,
    unused_factory,
)
from .geometry import _antialias, _Axes, _axes, _expression, _graded, _int32
from .grades import grade


def _number(value: Any, what: str) -> float:
    """A number the file gives (not a bool), else refused as torchvision fails on it."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise Refuse(f"{what}={value!r} is not a number")
    return float(value)


def _whole(value: Any, what: str) -> int:
    """A whole number the file gives, else refused."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise Refuse(f"{what}={value!r} is not an int (fix: a whole number of pixels)")
    return int(value)


def _pixels(value: Any, what: str) -> int:
    """A whole number of pixels, given as an int or a float such as 512.0: written as an int
    in the expression, which DALI reads exactly (a float would be read as float32)."""
    number = _number(value, what)
    if not number.is_integer():
        raise Refuse(f"{what}={value!r} is not a whole number of pixels (fix: an int)")
    return int(number)


def _constant(context: PortContext, base: str, values: Sequence[Any], dtype: str, **kw: Any) -> Ref:
    """A constant node the draws read (the sizes to pick from), run on every sample."""
    node = constant(context.fresh_id(base), list(values), dtype, **kw)
    context.add_node(node)
    context.helpers.add(node.id)
    return Ref(node.id)


def _shape(context: PortContext, axes: _Axes, dtype: str, base: str) -> str:
    """The image's (height, width) as `dtype`: torchvision's sizes are Python ints that meet
    floats of a given width."""
    shape = _expression(context, f"{base}_shape", axes.text(f"{axes.image}.shape()[0:2]"))
    return context.add(
        f"{base}_shape_{dtype.lower()}", "cast", {"dtype": dtype}, inputs=(shape,), image=False
    ).node


def _uniform(context: PortContext, base: str, count: int) -> str:
    """`count` uniform draws in [0, 1) per sample, float32 as ``torch.rand``'s."""
    return context.add(
        base, "random.uniform", {"range": [0.0, 1.0], "shape": [count]}, image=False, seed=True
    ).node


def _resize(context: PortContext, size: Ref, *, mode: str, antialias: bool) -> None:
    """The resize to `size` (height, width) torchvision's resize kernel is given."""
    to_float = context.add(
        f"{size.node}_float", "cast", {"dtype": "FLOAT"}, inputs=(size,), image=False
    )
    context.add(
        "resize",
        "resize",
        {
            "size": to_float,
            "interp_type": INTERPOLATION[mode],
            "antialias": antialias,
            "subpixel_scale": False,
        },
    )


def _mode(call: TransformCall, context: PortContext) -> tuple[str, bool, str]:
    """The interpolation (argument 2, bilinear by default), DALI's antialias and what the
    grade says of it, as Resize reads them."""
    mode = interpolation_name(call.argument(2, "interpolation"), "BILINEAR")
    antialias, said = _antialias(call, 3, context, mode)
    return mode, antialias, said


def random_shortest_size(call: TransformCall, context: PortContext) -> Grade:
    """RandomShortestSize(min_size, max_size=None, interpolation, antialias): a shorter side
    picked uniformly from min_size, the ratio ``min(size / short, max_size / long)`` in float64
    and each side ``int(side * ratio)``, as torchvision computes them."""
    axes = _axes(context)
    given = call.argument(0, "min_size")
    values = [given] if not isinstance(given, list | tuple) else list(given)
    sizes = [_whole(value, "min_size") for value in values]
    if not sizes:
        raise Refuse("min_size=[] gives torchvision no size to pick (fix: one or more sizes)")
    max_size = call.argument(1, "max_size")
    mode, antialias, said = _mode(call, context)
    if len(set(sizes)) == 1:
        short = str(sizes[0])
    else:
        # picked uniformly among the list's entries (a size written twice, twice as likely)
        pool = _constant(context, "shortest_sizes", sizes, "INT32")
        short = context.add(
            "shortest_size", "random.choice", {}, inputs=(pool,), image=False, seed=True
        ).node
    shape = _shape(context, axes, "FLOAT64", "shortest")
    ratio = f"{short} / math.min({shape}[0], {shape}[1])"
    if max_size is not None:
        ratio = (
            f"math.min({ratio}, {_whole(max_size, 'max_size')} / math.max({shape}[0], {shape}[1]))"
        )
    size = _expression(context, "shortest_size_hw", f"math.floor({shape} * ({ratio}))")
    _resize(context, size, mode=mode, antialias=antialias)
    return _graded(context, grade(call.name, mode=mode, no_antialias=said))


def random_resize(call: TransformCall, context: PortContext) -> Grade:
    """RandomResize(min_size, max_size, interpolation, antialias): a shorter side drawn as
    ``torch.randint(min_size, max_size)`` (max_size left out) and the longer one
    ``int(size * long / short)``, as Resize(int) sizes it."""
    axes = _axes(context)
    low = _whole(call.argument(0, "min_size"), "min_size")
    high = _whole(call.argument(1, "max_size"), "max_size")
    if high <= low:
        raise Refuse(
            f"max_size={high} is not above min_size={low}: torch.randint(min_size, max_size) "
            "fails on it, as max_size is left out of the draw (fix: max_size=min_size + 1 for "
            "one size)"
        )
    mode, antialias, said = _mode(call, context)
    count = _constant(context, "resize_sizes", [high - low], "INT32", shape=[])
    drawn = context.add("resize_draw", "random.choice", {}, inputs=(count,), image=False, seed=True)
    short = _expression(context, "resize_short", f"{drawn.node} + {low}").node
    image = axes.image
    shape = axes.text(f"{image}.shape()[0:2]")
    shorter = axes.text(f"math.min({image}.shape()[0], {image}.shape()[1])")
    size = _expression(context, "resize_hw", f"math.floor({short} * {shape} / {shorter})")
    _resize(context, size, mode=mode, antialias=antialias)
    return _graded(context, grade(call.name, mode=mode, no_antialias=said))


def scale_jitter(call: TransformCall, context: PortContext) -> Grade:
    """ScaleJitter(target_size, scale_range=(0.1, 2.0), interpolation, antialias): a scale
    ``lo + rand * (hi - lo)`` and ``r = min(target[1] / h, target[0] / w) * scale`` in float32
    (torch.rand's width), each side ``int(side * r)``, as torchvision computes them."""
    axes = _axes(context)
    target = call.argument(0, "target_size")
    if not isinstance(target, list | tuple) or len(target) != 2:
        raise Refuse(
            f"target_size={target!r} is not a pair (fix: (width, height) as torchvision reads it)"
        )
    first, second = (_pixels(value, "target_size") for value in target)
    scales = call.argument(1, "scale_range", (0.1, 2.0))
    if not isinstance(scales, list | tuple) or len(scales) != 2:
        raise Refuse(f"scale_range={scales!r} is not a (low, high) pair")
    low, high = (_number(value, "scale_range") for value in scales)
    mode, antialias, said = _mode(call, context)
    draw = _uniform(context, "jitter_draw", 1)
    scale = _expression(context, "jitter_scale", f"{low!r} + {draw}[0] * {high - low!r}").node
    wide = _shape(context, axes, "FLOAT64", "jitter")
    # min(target[1] / h, target[0] / w) in Python floats, then float32 as the tensor takes it
    base = _expression(
        context, "jitter_base", f"math.min({second!r} / {wide}[0], {first!r} / {wide}[1])"
    )
    narrow = context.add("jitter_base32", "cast", {"dtype": "FLOAT"}, inputs=(base,), image=False)
    ratio = _expression(context, "jitter_ratio", f"{narrow.node} * {scale}").node
    shape = _shape(context, axes, "FLOAT", "jitter")
    size = _expression(context, "jitter_hw", f"math.floor({shape} * {ratio})")
    _resize(context, size, mode=mode, antialias=antialias)
    return _graded(context, grade(call.name, mode=mode, no_antialias=said))


def random_zoom_out(call: TransformCall, context: PortContext) -> Grade:
    """RandomZoomOut(fill=0, side_range=(1.0, 4.0), p=0.5): a canvas ``int(side * r)`` with r
    uniform in side_range (float32), the image at ``int((canvas - side) * u)`` on it, the rest
    filled: a slice reaching past the image, as Pad is ported."""
    axes = _axes(context)
    # said where a defaultdict's factory is not what torchvision fills the image with
    unused = unused_factory(call.argument(0, "fill", 0), context.state)
    fill_given = image_fill(call.argument(0, "fill", 0), context.state)
    # a fraction on 8-bit pixels: torchvision's pad truncates it (127.6 -> 127, on PIL images
    # and uint8 tensors alike), as DALI's slice fills
    fill = fill_values(fill_given)
    sides = call.argument(1, "side_range", (1.0, 4.0))
    if not isinstance(sides, list | tuple) or len(sides) != 2:
        raise Refuse(f"side_range={sides!r} is not a (low, high) pair")
    low, high = (_number(value, "side_range") for value in sides)
    if low < 1.0 or low > high:
        raise Refuse(
            f"side_range={sides!r}: torchvision fails on it (ValueError: Invalid side range) "
            "(fix: 1 <= low <= high)"
        )
    p = _number(call.argument(2, "p", 0.5), "p")
    image = axes.image
    # (r, top, left): the canvas's ratio, then where the image lands along each side
    draw = _uniform(context, "zoom_out_draw", 3)
    ratio = _expression(context, "zoom_out_ratio", f"{low!r} + {draw}[0] * {high - low!r}").node
    shape = axes.text(f"{image}.shape()[0:2]")
    canvas = _expression(context, "zoom_out_canvas", f"math.floor({shape} * {ratio})")
    offset = _expression(
        context, "zoom_out_offset", f"math.floor(({canvas.node} - {shape}) * {draw}[1:3])"
    )
    start = _int32(
        context, "zoom_out_start", _expression(context, "zoom_out_corner", f"-{offset.node}")
    )
    context.add(
        "zoom_out",
        "slice",
        {
            "start": start,
            "shape": _int32(context, "zoom_out_shape", canvas),
            "axis_names": "HW",
            "out_of_bounds_policy": "pad",
            "fill_values": fill,
        },
    )
    context.apply_with_probability(p, [context.image])
    graded = grade(call.name)
    return dataclasses.replace(graded, differences=(*graded.differences, *unused))
