"""torchvision's tensor conversions and Normalize, folded into one crop_mirror_normalize.

DALI keeps images HWC uint8 until one ``crop_mirror_normalize`` turns them into the CHW float
tensor torchvision's ``ToTensor`` (or ``ToImage`` + ``ToDtype(float32, scale=True)``) makes;
a ``Normalize`` right after it is folded in, its mean and std multiplied by the scale that the
conversion divided by (255 for ``ToTensor``), since DALI normalizes pixel values.
"""

from __future__ import annotations

import dataclasses

from ...spec import Origin
from ..build import Grade, PortContext, Refuse
from ..model import Symbol, TransformCall
from .grades import grade

FLOAT_TYPES = {"float32", "float", "float16", "half", "float64", "double", "bfloat16"}


def _to_float(context: PortContext, name: str, scale: float) -> None:
    if context.state.get("layout", "HWC") != "HWC":
        raise Refuse(f"{name}: the image is already a tensor here")
    cmn = context.add(
        "to_tensor",
        "crop_mirror_normalize",
        {
            "mean": [0.0, 0.0, 0.0],
            "std": [scale] * 3,
            "dtype": "FLOAT",
            "output_layout": "CHW",
        },
    )
    context.state.update(layout="CHW", scale=scale, cmn=cmn.node, chw_pending=False)


def to_tensor(call: TransformCall, context: PortContext) -> Grade:
    """ToTensor(): HWC uint8 -> CHW float in [0, 1]."""
    _to_float(context, call.name, 255.0)
    return grade(call.name)


def to_image(call: TransformCall, context: PortContext) -> Grade:
    """ToImage() / PILToTensor(): CHW uint8, the same pixels; DALI transposes at the end (or
    in the crop_mirror_normalize a later ToDtype makes)."""
    context.state["chw_pending"] = True
    return grade(call.name)


def to_dtype(call: TransformCall, context: PortContext) -> Grade:
    """ToDtype(torch.float32, scale=True) / ConvertImageDtype(torch.float32)."""
    dtype = call.argument(0, "dtype")
    name = dtype.last if isinstance(dtype, Symbol) else str(dtype)
    if name not in FLOAT_TYPES:
        raise Refuse(f"{call.name} to {name} is not ported (fix: convert to torch.float32)")
    scale = call.argument(1, "scale", call.name == "ConvertImageDtype")
    _to_float(context, call.name, 255.0 if scale else 1.0)
    return grade(call.name)


def normalize(call: TransformCall, context: PortContext) -> Grade:
    """Normalize(mean, std): folded into the conversion's crop_mirror_normalize."""
    mean = call.argument(0, "mean")
    std = call.argument(1, "std")
    cmn = context.state.get("cmn")
    if cmn is None or context.image.node != cmn:
        raise Refuse(
            "Normalize is ported where it follows ToTensor (or ToImage + ToDtype) directly "
            "(fix: move it there); the nearest DALI operator is crop_mirror_normalize"
        )
    scale = float(context.state.get("scale", 255.0))
    means = [float(m) * scale for m in _three(mean, "mean")]
    stds = [float(s) * scale for s in _three(std, "std")]
    node = context.node(cmn)
    args = {**node.args, "mean": means, "std": stds}
    origin = node.origin
    if origin is not None:
        origin = dataclasses.replace(
            origin,
            transform=f"{origin.transform} + {call.text()}",
            differences=(*origin.differences, *grade(call.name).differences),
        )
    context.replace(cmn, args=args, origin=origin)
    context.state.update(cmn=None, folded_into=cmn)
    return grade(call.name)


def _three(value: object, what: str) -> list[float]:
    if isinstance(value, int | float):
        return [float(value)] * 3
    if isinstance(value, list | tuple) and len(value) in (1, 3):
        values = [float(v) for v in value]
        return values * 3 if len(values) == 1 else values
    raise Refuse(f"{what}={value!r}: give one value per RGB channel")


def finish(context: PortContext) -> None:
    """A ToImage whose tensor was never made float: transpose to CHW at the end."""
    if context.state.get("chw_pending") and context.state.get("layout", "HWC") == "HWC":
        context.add("to_chw", "transpose", {"perm": [2, 0, 1], "output_layout": "CHW"})
        added = context.nodes[-1]
        context.replace(
            added.id,
            origin=Origin("torchvision", "ToImage()", "exact", None, ("CHW uint8 tensor.",)),
        )


__all__ = ["Origin", "finish", "normalize", "to_dtype", "to_image", "to_tensor"]
