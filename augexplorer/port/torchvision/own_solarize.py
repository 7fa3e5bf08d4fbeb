"""A project's own PIL solarize class (DINO's ``Solarization(p)``: ``ImageOps.solarize(img)``
under a coin of p, read by :mod:`augexplorer.port.own_blurs`): torchvision's
RandomSolarize(threshold, p), which on a PIL image calls ``ImageOps.solarize`` itself."""

from __future__ import annotations

import dataclasses

from ..build import Grade, PortContext
from ..model import TransformCall
from ..own_blurs import OwnSolarize
from .color import random_solarize
from .own_pil import pil_class_grade, read_as

SOLARIZED = (
    "A class of the {owner} own, read from its source{where}: ImageOps.solarize at threshold "
    "{threshold:g}{chance}, ported as RandomSolarize(threshold={threshold:g}, p={p:g}), which "
    "calls it on a PIL image: the same pixels."
)


def pil_solarize(call: TransformCall, context: PortContext) -> Grade:
    """The class's solarize, with its probability, as RandomSolarize's port."""
    own = call.own
    assert isinstance(own, OwnSolarize)  # only the reading's OwnSolarize calls reach here
    never = pil_class_grade(call, context, "ImageOps.solarize", own.p)
    if never is not None:
        return never
    library = TransformCall("torchvision", "RandomSolarize", (own.threshold, own.p))
    grade = random_solarize(dataclasses.replace(library, line=call.line), context)
    said = SOLARIZED.format(threshold=own.threshold, p=own.p, **read_as(own.defined_at, own.p))
    return Grade(grade.fidelity, (said, *grade.differences))


__all__ = ["SOLARIZED", "pil_solarize"]
