"""A project's own PIL Gaussian blur class (MoCo v2's, SimCLR's, DINO's ``GaussianBlur``, read
by :mod:`augexplorer.port.own_blurs`): DALI's gaussian_blur at a sigma drawn uniformly per
image, with the class's probability.

PIL's ``ImageFilter.GaussianBlur(radius)`` takes the Gaussian's standard deviation but blurs
with three passes of an extended box filter; DALI samples the Gaussian itself. Measured on 6
photos at 20 radii from 0.1 to 2.0: mean 0.34 grey levels (0.74 at most for one photo at one
radius), max 30, with a window of 3 sigmas a side or more (13 to 21 pixels at 2.0 give the
same figures; 9 pixels: mean 0.36).
"""

from __future__ import annotations

import math

from ..build import Grade, PortContext
from ..model import TransformCall
from ..own_blurs import OwnBlur
from .own_pil import pil_class_grade, read_as

MEASURED = (
    "PIL blurs by three passes of a box filter (an extended-box approximation of the "
    "Gaussian), DALI by the sampled Gaussian: for the same radius, mean 0.34 grey levels over "
    "radii 0.1 to 2.0 (0.74 at most for one photo at one radius), max 30 (6 photos, 20 radii)."
)
BLURRED = (
    "A class of the {owner} own, read from its source{where}: ImageFilter.GaussianBlur at a "
    "radius "
    "drawn uniformly per image{chance}, ported as DALI's gaussian_blur with that sigma. " + MEASURED
)


def window(high: float) -> int:
    """The window for sigmas up to `high`: 3 sigmas a side (wider measured the same)."""
    return 2 * math.ceil(3 * high) + 1


def pil_gaussian_blur(call: TransformCall, context: PortContext) -> Grade:
    """The class's blur: a sigma in its radius range, with its probability."""
    own = call.own
    assert isinstance(own, OwnBlur)  # only the reading's OwnBlur calls reach here
    never = pil_class_grade(call, context, "Image.filter", own.p)
    if never is not None:
        return never
    sigma: object = own.low
    if own.low != own.high:
        sigma = context.add(
            "blur_sigma", "random.uniform", {"range": [own.low, own.high]}, image=False, seed=True
        )
    size = window(own.high)
    context.add("gaussian_blur", "gaussian_blur", {"window_size": [size, size], "sigma": sigma})
    context.apply_with_probability(own.p)
    return Grade("approximate", (BLURRED.format(**read_as(own.defined_at, own.p)),))


__all__ = ["MEASURED", "pil_gaussian_blur", "window"]
