"""torchvision's tensor conversions and Normalize, folded into one crop_mirror_normalize.

DALI keeps images HWC uint8 until one ``crop_mirror_normalize`` turns them into the CHW float
tensor torchvision's ``ToTensor`` (or ``ToImage`` + ``ToDtype(float32, scale=True)``) makes;
a ``Normalize`` right after it is folded in, its mean and std multiplied by the scale that the
conversion divided by (255 for ``ToTensor``), since DALI normalizes pixel values.
"""

from __future__ import annotations

import dataclasses
import re

from ...bench.original_runner import TAKE_TENSORS
from ...spec import Origin
from ..build import Grade, PortContext, Refuse
from ..library_names import is_v2
from ..model import Symbol, TransformCall, Unknown, written
from .arguments import IMAGE_TYPE, for_the_image, is_tensor
from .grades import grade

# torch's float types, by the DALI type crop_mirror_normalize gives them in; float64 and
# bfloat16 it does not give (DALI has no bfloat16; the CPU operator refuses FLOAT64)
DALI_FLOATS = {"float32": "FLOAT", "float": "FLOAT", "float16": "FLOAT16", "half": "FLOAT16"}
UNGIVEN_FLOATS = {"float64", "double", "bfloat16"}


def _to_float(context: PortContext, name: str, scale: float, dtype: str = "FLOAT") -> None:
    if context.state.get("layout", "HWC") != "HWC":
        raise Refuse(f"{name}: the image is already a tensor here")
    channels = int(context.state.get("channels", 3))  # 1 after Grayscale()
    cmn = context.add(
        "to_tensor",
        "crop_mirror_normalize",
        {
            "mean": [0.0] * channels,
            "std": [scale] * channels,
            "dtype": dtype,
            "output_layout": "CHW",
        },
    )
    context.state.update(layout="CHW", scale=scale, cmn=cmn.node, chw_pending=False, dtype=dtype)


def to_tensor(call: TransformCall, context: PortContext) -> Grade:
    """ToTensor(): HWC uint8 -> CHW float in [0, 1]."""
    _to_float(context, call.name, 255.0)
    context.state[IMAGE_TYPE] = "torch.Tensor"
    return grade(call.name)


def to_image(call: TransformCall, context: PortContext) -> Grade:
    """ToImage() / PILToTensor(): CHW uint8, the same pixels; DALI transposes at the end (or
    in the crop_mirror_normalize a later ToDtype makes)."""
    context.state["chw_pending"] = True
    # v2 looks a value per type up by the image's type: ToImage's is a tv_tensors.Image
    made = "tv_tensors.Image" if call.name == "ToImage" else "torch.Tensor"
    context.state[IMAGE_TYPE] = made
    return grade(call.name)


def identity(call: TransformCall, context: PortContext) -> Grade:
    """v2.Identity(): returns its input, whatever it is: no node."""
    return grade(call.name)


# `lambda img: img.convert("RGB")`, the wild's guard against grey and RGBA files
TO_RGB = re.compile(r"""lambda (\w+): \1\.convert\((['"])RGB\2\)""")


def to_rgb_lambda(call: TransformCall, context: PortContext) -> Grade:
    """Lambda(lambda img: img.convert('RGB')) (`call`'s lambda matches TO_RGB): the graph
    decodes every file to RGB (grey and RGBA files too), so nothing is left to do, before a
    tensor conversion, unless a Grayscale(1) made the image one channel: then its grey is
    repeated in three, as PIL does."""
    given = call.argument(0, "lambd")
    text = given.text if isinstance(given, Unknown) else ""
    if is_tensor(context):
        raise Refuse(
            f"Lambda({text}) after a conversion to a tensor is not ported: a tensor has no "
            "convert (fix: leave it out, the graph's images are RGB)"
        )
    if context.state.get("channels") == 1:
        gray = context.image
        context.add("gray_rgb", "cat", {"axis_name": "C"}, inputs=(gray, gray, gray))
        context.state["channels"] = 3
    return grade("Lambda")


def to_pil_image(call: TransformCall, context: PortContext) -> Grade:
    """ToPILImage(mode=None): the HWC uint8 RGB array the graph gives is a PIL image of the
    same pixels, so nothing to do there; a tensor (CHW, or float after ToTensor) torchvision
    turns back into 8-bit HWC pixels, which the port does not undo: refused."""
    mode = call.argument(0, "mode", None)
    if mode not in (None, "RGB"):
        raise Refuse(
            f"ToPILImage(mode={mode!r}) is not ported: the images are RGB here (fix: leave it "
            "out, or mode='RGB')"
        )
    if is_tensor(context):
        raise Refuse(
            "ToPILImage after ToTensor, ToImage, PILToTensor or ToDtype is not ported: "
            "torchvision turns the tensor back into 8-bit HWC pixels (a float one times 255, "
            "truncated), which the port does not undo (fix: leave out both the conversion "
            "to a tensor and ToPILImage, or put the transforms between them before it)"
        )
    return grade(call.name)


def to_dtype(call: TransformCall, context: PortContext) -> Grade:
    """ToDtype(torch.float32, scale=True) / ConvertImageDtype(torch.float32)."""
    if not is_tensor(context) and call.name not in TAKE_TENSORS:
        # ConvertImageDtype before any conversion makes the pipeline one written for tensors
        # (read_image's, as Compare feeds it): it converts them; ToDtype is given the PIL image
        return _on_pil_image(call)
    given = call.argument(0, "dtype", _default_dtype(call))
    found, dtype = for_the_image(given, context.state)
    if not found:
        raise Refuse(
            f"{call.name}(dtype={written(given)}) names no dtype for the image: torchvision "
            "fails on it (ValueError) (fix: add the image's, tv_tensors.Image: torch.float32, "
            "or 'others': None)"
        )
    if dtype is None:  # {..., "others": None}: the image passes as it is
        return Grade("exact", ("No dtype for the image: it passes as it is.",))
    name = dtype.last if isinstance(dtype, Symbol) else str(dtype)
    if name in UNGIVEN_FLOATS:
        raise Refuse(
            f"{call.name} to torch.{name} is not ported: DALI's crop_mirror_normalize gives "
            "float32 or float16 (fix: convert to torch.float32, or torch.float16)"
        )
    if name == "uint8" and context.state.get("layout", "HWC") == "HWC":
        # the image is still uint8 here (a PIL image, or ToImage's tensor): torchvision
        # returns it as it is, scaled or not
        return Grade("exact", ("The image is uint8 here already: nothing to do.",))
    if name not in DALI_FLOATS:
        raise Refuse(f"{call.name} to {name} is not ported (fix: convert to torch.float32)")
    scale = call.argument(1, "scale", call.name == "ConvertImageDtype")
    _to_float(context, call.name, 255.0 if scale else 1.0, DALI_FLOATS[name])
    return grade(call.name)


# v2 converts tensors alone: a PIL image passes its ToDtype as it is
PASSES_PIL = (
    "On a PIL image (no ToImage() or PILToTensor() before it) torchvision 0.29.1 returns the "
    "image unchanged, not converted: so does the port (fix: put ToImage() first to convert)."
)


def _on_pil_image(call: TransformCall) -> Grade:
    """v2's ToDtype passes a PIL image as it is."""
    return Grade("exact", (PASSES_PIL,))


def _default_dtype(call: TransformCall) -> Symbol | None:
    """v2's ConvertImageDtype() converts to torch.float32 (scaled to 0-1) when given no dtype;
    v1's needs one (refused before this, by its signature; a call of no known module is read
    as v2's, as the signatures read it), ToDtype's is required in both."""
    if call.name == "ConvertImageDtype" and (is_v2(call) or not call.module):
        return Symbol("torch.float32")
    return None


def normalize(call: TransformCall, context: PortContext) -> Grade:
    """Normalize(mean, std): folded into the conversion's crop_mirror_normalize."""
    mean = call.argument(0, "mean")
    std = call.argument(1, "std")
    cmn = context.state.get("cmn")
    channels = int(context.state.get("channels", 3))
    if cmn is None or context.image.node != cmn:
        if context.state.get("layout", "HWC") != "CHW":
            raise Refuse(
                "Normalize is ported on the tensor ToTensor (or ToImage + ToDtype) makes "
                "(fix: put one before it); the nearest DALI operator is crop_mirror_normalize"
            )
        # after a crop or a flip of the float tensor: normalized where it stands, in its units
        context.add(
            "normalize",
            "crop_mirror_normalize",
            {
                "mean": [float(m) for m in _per_channel(mean, "mean", channels)],
                "std": [float(s) for s in _per_channel(std, "std", channels)],
                "dtype": context.state.get("dtype", "FLOAT"),
                "output_layout": "CHW",
            },
        )
        context.state.update(cmn=None)
        return grade(call.name)
    scale = float(context.state.get("scale", 255.0))
    means = [float(m) * scale for m in _per_channel(mean, "mean", channels)]
    stds = [float(s) * scale for s in _per_channel(std, "std", channels)]
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


def _per_channel(value: object, what: str, channels: int) -> list[float]:
    """One value per channel of the image (3, or 1 after Grayscale()), as torchvision
    broadcasts a single value."""
    if isinstance(value, int | float):
        return [float(value)] * channels
    if isinstance(value, list | tuple) and len(value) in (1, channels):
        values = [float(v) for v in value]
        return values * channels if len(values) == 1 else values
    kind = "RGB channel" if channels == 3 else "channel (the image is grey here: one)"
    raise Refuse(f"{what}={value!r}: give one value per {kind}")


def finish(context: PortContext) -> None:
    """A ToImage whose tensor was never made float: transpose to CHW at the end."""
    if context.state.get("chw_pending") and context.state.get("layout", "HWC") == "HWC":
        context.add("to_chw", "transpose", {"perm": [2, 0, 1], "output_layout": "CHW"})
        added = context.nodes[-1]
        context.replace(
            added.id,
            origin=Origin("torchvision", "ToImage()", "exact", None, ("CHW uint8 tensor.",)),
        )


__all__ = [
    "Origin",
    "finish",
    "identity",
    "normalize",
    "to_dtype",
    "to_image",
    "to_pil_image",
    "to_tensor",
]
