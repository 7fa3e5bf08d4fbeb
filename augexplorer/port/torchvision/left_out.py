"""What of a torchvision pipeline the port leaves out while porting its images: a detection
pipeline's boxes and a segmentation pipeline's masks, each said as a part not ported.

The graph a port makes reads images and class labels; a pipeline shown to transform boxes or
masks beside its images would otherwise read as ported whole.
"""

from __future__ import annotations

from ..build import annotations_left_out
from ..model import Refusal, TransformCall
from .arguments import type_key

# v2 transforms that work on boxes alone: a pipeline holding one transforms boxes with its images
BOX_TRANSFORMS = frozenset(
    {"SanitizeBoundingBoxes", "ClampBoundingBoxes", "ConvertBoundingBoxFormat", "RandomIoUCrop"}
)


def boxes_left_out(compose: TransformCall) -> Refusal | None:
    """A detection pipeline (it holds a box transform) as what the port leaves out: its boxes;
    None where it holds none. Its flips and resizes would otherwise read as ported whole, and
    the graph as a detection pipeline's, while it reads images and class labels."""
    found = [call for call in compose.walk() if call.name in BOX_TRANSFORMS]
    if not found:
        return None
    named = ", ".join(sorted({call.name for call in found}))
    call = TransformCall(compose.library, compose.name, line=compose.line)
    reason = f"a detection pipeline ({named}): {annotations_left_out('boxes')}"
    return Refusal(call, reason, part="boxes")


def masks_left_out(compose: TransformCall) -> Refusal | None:
    """A segmentation pipeline (a value per type names tv_tensors.Mask: ``fill={tv_tensors.Mask:
    255, ...}``, a ToDtype to int64 for the masks) as what the port leaves out: its masks; None
    where nothing names them. The image's entry is ported; the masks' would otherwise go
    unsaid."""
    found = [call for call in compose.walk() if _names_masks(call)]
    if not found:
        return None
    lines = [f" (line {call.line})" if call.line is not None else "" for call in found]
    named = ", ".join(dict.fromkeys(f"{c.name}{at}" for c, at in zip(found, lines, strict=True)))
    call = TransformCall(compose.library, compose.name, line=compose.line)
    verb = "names" if len(found) == 1 else "name"
    reason = f"a segmentation pipeline ({named} {verb} tv_tensors.Mask): "
    return Refusal(call, reason + annotations_left_out("masks"), part="masks")


def parts_left_out(compose: TransformCall) -> list[Refusal]:
    """The pipeline's boxes and masks, where it shows it transforms them, in that order."""
    found = (boxes_left_out(compose), masks_left_out(compose))
    return [refusal for refusal in found if refusal is not None]


def _names_masks(call: TransformCall) -> bool:
    given = [*call.args, *call.kwargs.values()]
    return any(
        isinstance(value, dict) and any(type_key(key) == "tv_tensors.Mask" for key in value)
        for value in given
    )
