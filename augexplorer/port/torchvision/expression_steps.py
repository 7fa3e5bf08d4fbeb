"""Expression nodes for ports computed pixel by pixel (hue through PIL's HSV, a channel order):
helpers that compute on every sample, and the step that makes the image of them under the
transform's conditions."""

from __future__ import annotations

from ...spec import Ref
from ..build import PortContext


def helper(context: PortContext, base: str, text: str) -> Ref:
    """An expression node that computes on every sample, whatever the transform's conditions."""
    return context.add_expression(base, text, helper=True)


def image_from(context: PortContext, values: Ref, base: str, cast_base: str) -> list[Ref]:
    """Make `values` (8-bit values in an int32 or float array) the image, in the steps that run
    under the transform's conditions: the first reads the image so far, which passes through
    where they do not run. Returns those steps."""
    node = context.add_expression(base, f"0 * {context.image.node} + {values.node}", image=True)
    cast = context.add(cast_base, "cast", {"dtype": "UINT8"})  # the sum is int32
    return [node, cast]
