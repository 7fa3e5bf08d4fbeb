"""torchvision's argument forms, read as torchvision reads them (sizes, ranges, interpolation)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..build import PortContext, Refuse
from ..model import FactoryDict, Symbol, Unknown, written

# Where a transform that takes HWC uint8 images goes: the image becomes a CHW float tensor at
# ToTensor, or at v2's ToDtype to float (a pipeline may have either, not both)
BEFORE_FLOAT = "before ToTensor or ToDtype to float"

# torchvision's InterpolationMode (and PIL's constants, which v1 still takes) -> DALI's.
INTERPOLATION = {
    "NEAREST": "INTERP_NN",
    "NEAREST_EXACT": "INTERP_NN",
    "BILINEAR": "INTERP_LINEAR",
    "BICUBIC": "INTERP_CUBIC",
    "LANCZOS": "INTERP_LANCZOS3",
    "BOX": "INTERP_LINEAR",
    "HAMMING": "INTERP_LINEAR",
}
_PIL_CODES = {0: "NEAREST", 1: "LANCZOS", 2: "BILINEAR", 3: "BICUBIC", 4: "BOX", 5: "HAMMING"}


def interpolation_name(value: Any, default: str, *, after_size: bool = False) -> str:
    """torchvision's mode name (``BILINEAR``) from an enum, its string value or a PIL code;
    `after_size`: the argument follows Resize's size, where a number is a second side."""
    if value is None:
        return default
    if isinstance(value, Symbol):
        name = value.last.upper()
    elif isinstance(value, str):
        name = value.upper()
    elif isinstance(value, int) and value in _PIL_CODES:
        name = _PIL_CODES[value]
    elif isinstance(value, int) and not isinstance(value, bool):
        # Resize(224, 224), Resize(*SIZE): the second side taken as the interpolation
        sides = (
            "give a size of two sides as one argument, Resize((h, w)), not Resize(h, w) or "
            "Resize(*SIZE); or "
            if after_size
            else ""
        )
        raise Refuse(
            f"interpolation={value!r} is not one of torchvision's modes: torchvision fails on "
            f"it (KeyError) (fix: {sides}an InterpolationMode such as "
            "InterpolationMode.BILINEAR)"
        )
    else:
        raise Refuse(f"interpolation={value!r} is not one of torchvision's modes")
    if name not in INTERPOLATION:
        raise Refuse(f"interpolation {name} has no DALI counterpart")
    return name


def size_pair(value: Any, what: str = "size") -> tuple[int, int]:
    """A size as torchvision reads it: an int is square, a one-item sequence too, else (h, w)."""
    if isinstance(value, bool):
        raise Refuse(f"{what}={value!r} is not a size")
    if isinstance(value, int | float):
        return int(value), int(value)
    if isinstance(value, Sequence) and len(value) == 1:
        return int(value[0]), int(value[0])
    if isinstance(value, Sequence) and len(value) == 2:
        return int(value[0]), int(value[1])
    raise Refuse(f"{what}={value!r} is not a size (an int, or (height, width))")


def symmetric_range(value: Any, what: str, *, centre: float = 0.0) -> tuple[float, float]:
    """``d`` -> (centre - d, centre + d), a pair as it is: torchvision's ranges."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        if value < 0:
            raise Refuse(f"{what}={value} must not be negative")
        return centre - float(value), centre + float(value)
    if isinstance(value, Sequence) and len(value) == 2:
        return float(value[0]), float(value[1])
    raise Refuse(f"{what}={value!r} is not a number or a (low, high) pair")


# What ToImage, PILToTensor and ToTensor make the image, by the type v2 looks up in a dict of
# values per type; before them it is a PIL image (what ImageFolder gives)
IMAGE_TYPE = "image_type"
_PIL, _TV_IMAGE, _TENSOR = "PIL.Image.Image", "tv_tensors.Image", "torch.Tensor"


def type_key(key: Any) -> str:
    """Which type a key of v2's dict per type names (``tv_tensors.Image``, ``PIL.Image.Image``,
    ``torch.Tensor``, ``tv_tensors.Mask``), read from how the file writes it; ``others`` as it
    is."""
    text = key.text if isinstance(key, Unknown | Symbol) else str(key)
    last = text.rsplit(".", 1)[-1]
    if last == "Image":
        return _PIL if "PIL" in text or text == "Image.Image" else _TV_IMAGE
    if last == "Tensor":
        return _TENSOR
    return text if text == "others" else f"tv_tensors.{last}"


def for_the_image(value: Any, state: Mapping[str, Any]) -> tuple[bool, Any]:
    """v2's value per type (``fill={tv_tensors.Image: 127, "others": 0}``) as torchvision picks
    it for the image: the entry of the image's own type here, else ``"others"``; (False, None)
    where the dict has neither. A value that is no dict is the image's as it is."""
    if not isinstance(value, dict):
        return True, value
    image_type = state.get(IMAGE_TYPE, _PIL)
    by_type = {type_key(key): given for key, given in value.items()}
    if image_type in by_type:
        return True, by_type[image_type]
    if "others" in by_type:
        return True, by_type["others"]
    return False, None


def unused_factory(value: Any, state: Mapping[str, Any], argument: str = "fill") -> tuple[str, ...]:
    """The sentence for a ``defaultdict`` per type that holds no entry for the image (the
    detection references' ``defaultdict(lambda: mean, {tv_tensors.Mask: 0})``): torchvision
    0.29 asks it with ``in``, which never calls the factory, so the image gets None (0)."""
    if not isinstance(value, FactoryDict) or for_the_image(value, state)[0]:
        return ()
    image_type = state.get(IMAGE_TYPE, _PIL)
    return (
        f"{argument}={written(value)}: torchvision looks the image's type ({image_type}) up "
        "with `in`, which a defaultdict answers from its written entries alone, never calling "
        f"{value.factory}, and finds neither it nor 'others': the image is filled with 0, as "
        "torchvision fills it (fix, for the factory's fill: write the image's entry, "
        f"{argument}={{tv_tensors.Image: VALUE, 'others': 0}})",
    )


def image_fill(value: Any, state: Mapping[str, Any]) -> Any:
    """The fill torchvision gives the image: a dict's entry for it (a fill per type names the
    masks' too, which the graph does not carry), None (0) where it has none, as v2 does."""
    return for_the_image(value, state)[1]


def fill_values(value: Any) -> list[float]:
    """What a padding slice fills with: one number, or one per channel (DALI's ``slice`` pads
    each channel with its own, where ``rotate`` and ``warp_affine`` take one value)."""
    numbers = isinstance(value, Sequence) and not isinstance(value, str)
    numbers = numbers and all(isinstance(v, int | float) and not isinstance(v, bool) for v in value)
    if numbers and len(set(value)) > 1:
        return [float(v) for v in value]
    return [fill_value(value)]


def fill_value(value: Any) -> float:
    """A single fill value; per-channel fills must agree (DALI fills with one value)."""
    if value is None:
        return 0.0
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, Sequence) and value and all(v == value[0] for v in value):
        return float(value[0])
    if isinstance(value, dict):  # v2's fill per type: {tv_tensors.Image: 127, "others": 0}
        raise Refuse(
            f"fill={written(value)}: a fill per type is not read (fix: give the image's fill "
            "alone, fill=VALUE)"
        )
    raise Refuse(
        f"fill={written(value)}: DALI fills with one value for every channel here (fix: one "
        "value for all channels, such as fill=0)"
    )


def on_tensor(context: PortContext) -> bool:
    """Whether the image is the CHW float tensor of a ToTensor (or ToDtype) here."""
    return context.state.get("layout", "HWC") != "HWC"


def is_tensor(context: PortContext) -> bool:
    """Whether torchvision's image is a tensor here (a ToImage, PILToTensor or ToTensor came
    before) rather than the PIL image ImageFolder gives."""
    return bool(context.state.get("chw_pending")) or on_tensor(context)
