"""torchvision's ``v2.GaussianNoise(mean=0.0, sigma=0.1, clip=True)``: a normal draw per value,
added to the tensor as torchvision adds it.

- On a float tensor (after ToDtype(torch.float32, scale=True) or ToTensor): the image plus
  ``mean + N(0, 1) * sigma``, clamped to [0, 1] with clip.
- On a uint8 tensor (ToImage, PILToTensor): ``mean * 255 + N(0, 1) * sigma * 255`` truncated
  toward zero (torch's int16 conversion), added, clamped to 0..255 with clip (else wrapped
  around 256, as the uint8 conversion wraps it).

torchvision refuses a PIL image (ValueError: Gaussian Noise is not implemented for PIL images).
"""

from __future__ import annotations

from ...spec import Ref
from ..build import Grade, PortContext, Refuse
from ..model import TransformCall
from .arguments import is_tensor

SAID = (
    "A normal draw per value, by DALI's generator, added as torchvision adds it (on float "
    "tensors clamped to [0, 1]; on uint8 ones truncated toward zero before the sum, as torch's "
    "int16 conversion does, then clamped, or wrapped around 256 with clip=False): the noise "
    "torchvision adds and the port's, 2 photos, 494,100 values a side, two-sample KS p 0.97 "
    "(float, sigma 0.2), 0.98 (uint8, mean 0.05, sigma 0.2), 0.98 (uint8, clip=False)."
)


def gaussian_noise(call: TransformCall, context: PortContext) -> Grade:
    mean = _number(call.argument(0, "mean", 0.0), "mean")
    sigma = _number(call.argument(1, "sigma", 0.1), "sigma")
    clip = call.argument(2, "clip", True)
    if sigma < 0:
        raise Refuse(
            f"sigma={sigma:g}: torchvision fails on it (ValueError: sigma shouldn't be "
            "negative) (fix: sigma >= 0)"
        )
    if not isinstance(clip, bool):
        raise Refuse(f"clip={clip!r}: give True or False")
    if not is_tensor(context):
        raise Refuse(
            "GaussianNoise on a PIL image: torchvision fails on it (ValueError: Gaussian Noise "
            "is not implemented for PIL images) (fix: put it after ToImage(), or after "
            "ToDtype(torch.float32, scale=True), where it is ported; the nearest operator is "
            "noise.gaussian)"
        )
    floats = context.state.get("layout", "HWC") == "CHW"
    if floats and context.state.get("dtype", "FLOAT") != "FLOAT":
        raise Refuse(
            "GaussianNoise on a float16 tensor is not ported: DALI draws in float32 (fix: "
            "convert to torch.float32)"
        )
    image = context.image.node
    drawn = context.add(
        "noise_draw", "random.normal", {}, inputs=(Ref(image),), image=False, seed=True
    )
    if floats:
        summed = f"{image} + ({mean!r} + {drawn.node} * {sigma!r})"
        text = f"math.clamp({summed}, 0.0, 1.0)" if clip else summed
        context.add_expression("gaussian_noise", text, image=True)
        return Grade("distribution", (SAID,))
    # uint8: torch's .to(torch.int16) truncates toward zero
    step = f"({mean * 255.0!r} + {drawn.node} * {sigma * 255.0!r})"
    noise = context.add_expression(
        "noise_int",
        f"({step} >= 0) * math.floor({step}) + ({step} < 0) * math.ceil({step})",
        helper=True,
    )
    summed = f"{image} + {noise.node}"
    wrapped = f"({summed} - math.floor(({summed}) / 256.0) * 256.0)"
    text = f"math.clamp({summed}, 0.0, 255.0)" if clip else wrapped
    context.add_expression("gaussian_noise", text, image=True)
    context.add("gaussian_noise_uint8", "cast", {"dtype": "UINT8"})
    return Grade("distribution", (SAID,))


def _number(value: object, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise Refuse(f"{name}={value!r}: give a number")
    return float(value)


__all__ = ["SAID", "gaussian_noise"]
