"""torchvision's RandomErasing: DALI's erase with a window drawn as torchvision draws it.

torchvision draws the erased area as a fraction of the image (``scale``) and its height over
width log-uniformly (``ratio``), up to ten tries; DALI's random_crop_generator draws a window
the same way (its aspect ratio is width over height, so the range is inverted), and erase
fills it.
"""

from __future__ import annotations

from ...expressions.nodes import expression
from ...spec import Ref
from ..build import Grade, PortContext, Refuse
from ..model import TransformCall
from .arguments import symmetric_range
from .grades import grade


def random_erasing(call: TransformCall, context: PortContext) -> Grade:
    p = float(call.argument(0, "p", 0.5))
    scale = symmetric_range(call.argument(1, "scale", (0.02, 0.33)), "scale")
    ratio = symmetric_range(call.argument(2, "ratio", (0.3, 3.3)), "ratio")
    value = call.argument(3, "value", 0)
    if isinstance(value, str):
        raise Refuse(
            f"value={value!r} (noise) is not ported; the nearest DALI operator is erase with "
            "a fill value"
        )
    fill = [value] if isinstance(value, int | float) else value
    numbers = isinstance(fill, list | tuple) and len(fill) in (1, 3)
    if not numbers or not all(isinstance(v, int | float) and not isinstance(v, bool) for v in fill):
        raise Refuse(f"value={value!r} is not a number or one number per channel (three)")
    image = context.image.node
    hw = "[1:3]" if context.state.get("layout", "HWC") == "CHW" else "[0:2]"
    shape_id = context.fresh_id("erase_shape")
    shape = expression(shape_id, f"{image}.shape(){hw}")
    context.nodes.append(shape)
    context._current.append(shape)
    window = context.add(
        "erase_window",
        "random_crop_generator",
        {
            "random_area": list(scale),
            "random_aspect_ratio": [1.0 / ratio[1], 1.0 / ratio[0]],
            "num_attempts": 10,
        },
        inputs=(Ref(shape_id),),
        image=False,
        seed=True,
    )
    # erase takes its window as float; the generator gives int32
    anchor = context.add(
        "erase_anchor", "cast", {"dtype": "FLOAT"}, inputs=(Ref(window.node, 0),), image=False
    )
    size = context.add(
        "erase_size", "cast", {"dtype": "FLOAT"}, inputs=(Ref(window.node, 1),), image=False
    )
    context.add(
        "erase",
        "erase",
        {
            "anchor": anchor,
            "shape": size,
            "axis_names": "HW",
            # one value, or one per channel: erase fills the window's channels with them
            "fill_value": [float(v) for v in fill],
        },
    )
    context.apply_with_probability(p, [context.image])
    return grade(call.name)
