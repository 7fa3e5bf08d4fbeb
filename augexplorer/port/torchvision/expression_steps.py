"""Expression nodes for ports computed pixel by pixel (hue through PIL's HSV, a channel order):
helpers that compute on every sample, and the step that makes the image of them under the
transform's conditions."""

from __future__ import annotations

from ...expressions.nodes import expression
from ...spec import Ref
from ..build import PortContext


def helper(context: PortContext, base: str, text: str) -> Ref:
    """An expression node that computes on every sample, whatever the transform's conditions."""
    node = expression(context.fresh_id(base), text)
    context.nodes.append(node)
    context._current.append(node)
    context.helpers.add(node.id)
    return Ref(node.id)


def image_from(context: PortContext, values: Ref, base: str, cast_base: str) -> list[Ref]:
    """Make `values` (8-bit values in an int32 or float array) the image, in the steps that run
    under the transform's conditions: the first reads the image so far, which passes through
    where they do not run. Returns those steps."""
    image = context.image
    node = expression(context.fresh_id(base), f"0 * {image.node} + {values.node}")
    context.nodes.append(node)
    context._current.append(node)
    context.image = Ref(node.id)
    cast = context.add(cast_base, "cast", {"dtype": "UINT8"})  # the sum is int32
    return [Ref(node.id), cast]
