"""torchvision's RandomErasing: DALI's erase with a window drawn as torchvision draws it.

torchvision draws the erased area as a fraction of the image (``scale``) and its height over
width log-uniformly (``ratio``), up to ten tries; DALI's random_crop_generator draws a window
the same way (its aspect ratio is width over height, so the range is inverted), and erase
fills it.
"""

from __future__ import annotations

from ...spec import Ref
from ..build import Grade, PortContext, Refuse
from ..model import TransformCall
from .arguments import symmetric_range
from .expression_steps import helper
from .grades import grade


def random_erasing(call: TransformCall, context: PortContext) -> Grade:
    p = float(call.argument(0, "p", 0.5))
    scale = symmetric_range(call.argument(1, "scale", (0.02, 0.33)), "scale")
    ratio = symmetric_range(call.argument(2, "ratio", (0.3, 3.3)), "ratio")
    value = call.argument(3, "value", 0)
    noise = value == "random"
    on_floats = context.state.get("layout", "HWC") == "CHW"
    if isinstance(value, str) and not (noise and on_floats):
        why = "on 8-bit pixels, " if noise else ""
        raise Refuse(
            f"value={value!r} {why}is not ported (fix: put RandomErasing after ToTensor or "
            "ToDtype to float, where noise is ported, or give a fill value); the nearest DALI "
            "operator is erase with a fill value"
        )
    fill = [0] if noise else [value] if isinstance(value, int | float) else value
    numbers = isinstance(fill, list | tuple) and len(fill) in (1, 3)
    if not numbers or not all(isinstance(v, int | float) and not isinstance(v, bool) for v in fill):
        raise Refuse(f"value={value!r} is not a number or one number per channel (three)")
    image = context.image.node
    hw = "[1:3]" if context.state.get("layout", "HWC") == "CHW" else "[0:2]"
    shape = context.add_expression("erase_shape", f"{image}.shape(){hw}")
    window = context.add(
        "erase_window",
        "random_crop_generator",
        {
            "random_area": list(scale),
            "random_aspect_ratio": [1.0 / ratio[1], 1.0 / ratio[0]],
            "num_attempts": 10,
        },
        inputs=(shape,),
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
    window_args = {"anchor": anchor, "shape": size, "axis_names": "HW"}
    if noise:
        _erase_with_noise(context, window_args)
        context.apply_with_probability(p, [context.image])
        return grade(call.name, noise=True)
    # one value, or one per channel: erase fills the window's channels with them
    context.add("erase", "erase", {**window_args, "fill_value": [float(v) for v in fill]})
    context.apply_with_probability(p, [context.image])
    return grade(call.name)


def _erase_with_noise(context: PortContext, window_args: dict[str, object]) -> None:
    """value='random': the window filled with standard normal noise, a draw per value, as
    torchvision's ``torch.empty(...).normal_()``: a mask of ones erased to zero in the window
    blends the image with a draw of the image's shape."""
    image = context.image.node
    ones = helper(context, "erase_ones", f"{image} * 0.0 + 1.0")
    mask = context.add(
        "erase_mask", "erase", {**window_args, "fill_value": [0.0]}, inputs=(ones,), image=False
    )
    drawn = context.add(
        "erase_noise", "random.normal", {}, inputs=(Ref(image),), image=False, seed=True
    )
    # the image first: where the transform does not apply, it passes through
    blend = f"{image} * {mask.node} + {drawn.node} * (1.0 - {mask.node})"
    context.add_expression("erase", blend, image=True)
