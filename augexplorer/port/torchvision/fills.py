"""A fill per channel for a warp (``RandomRotation(15, fill=(124, 116, 104))``, RandomAffine's
``fill``: the ImageNet mean in pixels, as detection and timm-style files write it).

DALI's ``rotate`` and ``warp_affine`` fill with one value for every channel. The image is
warped with fill 0, and an image of ones by the same warp (the same angle or matrix, so the
same samples): where the ones do not reach, each channel gets its own fill. With nearest
sampling (torchvision's default) the ones are 0 or 1, so the pixels are those of a warp
filling each channel with its value; with bilinear, the edge pixels blend the fill in as a
warp with that fill would, to a grey level of rounding.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from ...expressions.nodes import constant
from ...spec import Random, Ref
from ..build import Grade, PortContext
from .arguments import is_tensor, on_tensor

CHANNEL_FILLS = (
    "A fill per channel: the image warped with fill 0 and an image of ones by the same warp, "
    "each channel given its fill where the ones do not reach; the figures of one fill hold "
    "(19 photos: RandomRotation 20 degrees, nearest, fill (124, 116, 104): mean 0.008, as "
    "with fill 124; bilinear at -25 degrees: mean 0.59, 0.60 with one fill; expand=True: "
    "mean 0.0001). A fill with a fraction is made a pixel value as torchvision makes it: truncated on a PIL image (127.6 and 127.5 fill 127, 0.5 fills 0), rounded half to even on a uint8 tensor (127.6 and 127.5 fill 128, 0.5 and 2.5 fill 0 and 2), as it is on a float one."
)


# What the image is where a warp fills it: torchvision makes a fill with a fraction a pixel
# value otherwise for each (FillKind)
FillKind = Literal["pil", "bytes", "floats"]


def fill_kind(context: PortContext) -> FillKind:
    """A PIL image, a uint8 tensor (ToImage, PILToTensor) or a float one (ToTensor, ToDtype)."""
    if not is_tensor(context):
        return "pil"
    return "floats" if on_tensor(context) else "bytes"


def as_pixel(value: float, kind: FillKind) -> float:
    """The fill torchvision 0.29.1 gives the pixels: on a PIL image int() of it (PIL's fill
    colour is whole numbers: 127.6 -> 127, 0.5 -> 0); on a uint8 tensor the warp fills in float
    and rounds the result half to even (torch.round: 127.6 -> 128, 0.5 -> 0, 2.5 -> 2), where
    DALI's uint8 warps round a fraction half away from zero (0.5 -> 1); on a float tensor as
    it is."""
    if kind == "pil":
        return float(int(value))
    if kind == "bytes":
        return float(round(value))  # Python's round is half to even, as torch.round
    return float(value)


def channel_fills(value: Any, kind: FillKind) -> list[float] | None:
    """One fill per channel where a sequence gives channels different ones, else None (one
    value for all, as DALI's warps take it); each made a pixel value as torchvision makes it
    for the image (:func:`as_pixel`)."""
    if not isinstance(value, Sequence) or isinstance(value, str) or len(value) < 2:
        return None
    if not all(isinstance(v, int | float) and not isinstance(v, bool) for v in value):
        return None
    if len(set(value)) == 1:
        return None
    return [as_pixel(v, kind) for v in value]


def warp_with_channel_fills(
    context: PortContext, base: str, op: str, args: Mapping[str, Any], fills: list[float]
) -> None:
    """The image warped by `op` with `args` (its angle or matrix a node, or a number, so that
    both warps move alike), each channel filled with its value of `fills` where the image does
    not reach; the image stays uint8."""
    image = context.image
    ones = context.add_expression(f"{base}_ones", f"0.0 * {image.node} + 1.0", helper=True)
    reach = context.add(
        f"{base}_reach", op, {**args, "fill_value": 0.0}, inputs=(ones,), image=False
    )
    warped = context.add(base, op, {**args, "fill_value": 0.0})
    fill = context.add_node(
        constant(context.fresh_id(f"{base}_fill"), fills, "FLOAT", shape=[len(fills)]),
        helper=True,
    )
    context.add_expression(
        f"{base}_filled", f"{warped.node} + (1.0 - {reach.node}) * {fill.node}", image=True
    )
    context.add(f"{base}_uint8", "cast", {"dtype": "UINT8"})


def with_channel_fills(grade: Grade, fills: list[float] | None) -> Grade:
    """`grade` with the sentence on a fill per channel where one was ported."""
    if not fills:
        return grade
    return dataclasses.replace(grade, differences=(*grade.differences, CHANNEL_FILLS))


def as_node(context: PortContext, base: str, value: object) -> Ref | object:
    """A random argument made a node of its own (one draw that two warps read alike); a
    number or a node as it is."""
    if not isinstance(value, Random):
        return value
    args = {"range": [float(value.low), float(value.high)]}
    return context.add(base, "random.uniform", args, image=False, seed=True)


__all__ = [
    "CHANNEL_FILLS",
    "FillKind",
    "as_node",
    "as_pixel",
    "channel_fills",
    "fill_kind",
    "warp_with_channel_fills",
    "with_channel_fills",
]
