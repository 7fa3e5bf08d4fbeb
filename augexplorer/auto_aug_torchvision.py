"""torchvision's ``AutoAugment`` as a DALI policy: torchvision's own 25 sub-policies per dataset
(``AutoAugmentPolicy.IMAGENET``, ``CIFAR10``, ``SVHN``), each stage's probability and magnitude
bin, on torchvision's 10-bin magnitude scale, applied by DALI's ``apply_auto_augment`` with its
random draws seeded apart (:mod:`augexplorer.policy_seeds` says why).

DALI's ``auto_augment(policy_name="image_net")`` is another list (TensorFlow's ImageNet policy on
11 bins); this is the one a torchvision training script draws from. Each operation is DALI's
augmentation of the same name with torchvision's magnitudes: posterize keeps 8 down to 4 bits,
solarize's threshold runs 255 down to 0, shears turn the way torchvision's do, and translations
move by whole pixels (torchvision's ``int(offset)``).

The module imports only DALI (and :mod:`augexplorer.policy_seeds`, carried too): an exported module carries the source of
:func:`torchvision_auto_augment` and what it uses as written here (:data:`CARRIED`), so the
explorer and a training script run the same code. Its annotations are evaluated (the catalog
reads the argument types from them), hence no ``from __future__ import annotations``.
"""

import warnings
from typing import Any

from nvidia.dali import fn, math, types
from nvidia.dali.auto_aug import augmentations, auto_augment
from nvidia.dali.auto_aug.core import Policy, augmentation
from nvidia.dali.data_node import DataNode

from .policy_seeds import independent_draws

# torchvision's AutoAugmentPolicy, stage by stage: (operation, probability, magnitude bin)
TORCHVISION_POLICIES: dict[str, tuple[tuple[tuple[str, float, int | None], ...], ...]] = {
    "imagenet": (
        (("Posterize", 0.4, 8), ("Rotate", 0.6, 9)),
        (("Solarize", 0.6, 5), ("AutoContrast", 0.6, None)),
        (("Equalize", 0.8, None), ("Equalize", 0.6, None)),
        (("Posterize", 0.6, 7), ("Posterize", 0.6, 6)),
        (("Equalize", 0.4, None), ("Solarize", 0.2, 4)),
        (("Equalize", 0.4, None), ("Rotate", 0.8, 8)),
        (("Solarize", 0.6, 3), ("Equalize", 0.6, None)),
        (("Posterize", 0.8, 5), ("Equalize", 1.0, None)),
        (("Rotate", 0.2, 3), ("Solarize", 0.6, 8)),
        (("Equalize", 0.6, None), ("Posterize", 0.4, 6)),
        (("Rotate", 0.8, 8), ("Color", 0.4, 0)),
        (("Rotate", 0.4, 9), ("Equalize", 0.6, None)),
        (("Equalize", 0.0, None), ("Equalize", 0.8, None)),
        (("Invert", 0.6, None), ("Equalize", 1.0, None)),
        (("Color", 0.6, 4), ("Contrast", 1.0, 8)),
        (("Rotate", 0.8, 8), ("Color", 1.0, 2)),
        (("Color", 0.8, 8), ("Solarize", 0.8, 7)),
        (("Sharpness", 0.4, 7), ("Invert", 0.6, None)),
        (("ShearX", 0.6, 5), ("Equalize", 1.0, None)),
        (("Color", 0.4, 0), ("Equalize", 0.6, None)),
        (("Equalize", 0.4, None), ("Solarize", 0.2, 4)),
        (("Solarize", 0.6, 5), ("AutoContrast", 0.6, None)),
        (("Invert", 0.6, None), ("Equalize", 1.0, None)),
        (("Color", 0.6, 4), ("Contrast", 1.0, 8)),
        (("Equalize", 0.8, None), ("Equalize", 0.6, None)),
    ),
    "cifar10": (
        (("Invert", 0.1, None), ("Contrast", 0.2, 6)),
        (("Rotate", 0.7, 2), ("TranslateX", 0.3, 9)),
        (("Sharpness", 0.8, 1), ("Sharpness", 0.9, 3)),
        (("ShearY", 0.5, 8), ("TranslateY", 0.7, 9)),
        (("AutoContrast", 0.5, None), ("Equalize", 0.9, None)),
        (("ShearY", 0.2, 7), ("Posterize", 0.3, 7)),
        (("Color", 0.4, 3), ("Brightness", 0.6, 7)),
        (("Sharpness", 0.3, 9), ("Brightness", 0.7, 9)),
        (("Equalize", 0.6, None), ("Equalize", 0.5, None)),
        (("Contrast", 0.6, 7), ("Sharpness", 0.6, 5)),
        (("Color", 0.7, 7), ("TranslateX", 0.5, 8)),
        (("Equalize", 0.3, None), ("AutoContrast", 0.4, None)),
        (("TranslateY", 0.4, 3), ("Sharpness", 0.2, 6)),
        (("Brightness", 0.9, 6), ("Color", 0.2, 8)),
        (("Solarize", 0.5, 2), ("Invert", 0.0, None)),
        (("Equalize", 0.2, None), ("AutoContrast", 0.6, None)),
        (("Equalize", 0.2, None), ("Equalize", 0.6, None)),
        (("Color", 0.9, 9), ("Equalize", 0.6, None)),
        (("AutoContrast", 0.8, None), ("Solarize", 0.2, 8)),
        (("Brightness", 0.1, 3), ("Color", 0.7, 0)),
        (("Solarize", 0.4, 5), ("AutoContrast", 0.9, None)),
        (("TranslateY", 0.9, 9), ("TranslateY", 0.7, 9)),
        (("AutoContrast", 0.9, None), ("Solarize", 0.8, 3)),
        (("Equalize", 0.8, None), ("Invert", 0.1, None)),
        (("TranslateY", 0.7, 9), ("AutoContrast", 0.9, None)),
    ),
    "svhn": (
        (("ShearX", 0.9, 4), ("Invert", 0.2, None)),
        (("ShearY", 0.9, 8), ("Invert", 0.7, None)),
        (("Equalize", 0.6, None), ("Solarize", 0.6, 6)),
        (("Invert", 0.9, None), ("Equalize", 0.6, None)),
        (("Equalize", 0.6, None), ("Rotate", 0.9, 3)),
        (("ShearX", 0.9, 4), ("AutoContrast", 0.8, None)),
        (("ShearY", 0.9, 8), ("Invert", 0.4, None)),
        (("ShearY", 0.9, 5), ("Solarize", 0.2, 6)),
        (("Invert", 0.9, None), ("AutoContrast", 0.8, None)),
        (("Equalize", 0.6, None), ("Rotate", 0.9, 3)),
        (("ShearX", 0.9, 4), ("Solarize", 0.3, 3)),
        (("ShearY", 0.8, 8), ("Invert", 0.7, None)),
        (("Equalize", 0.9, None), ("TranslateY", 0.6, 6)),
        (("Invert", 0.9, None), ("Equalize", 0.6, None)),
        (("Contrast", 0.3, 3), ("Rotate", 0.8, 4)),
        (("Invert", 0.8, None), ("TranslateY", 0.0, 2)),
        (("ShearY", 0.7, 6), ("Solarize", 0.4, 8)),
        (("Invert", 0.6, None), ("Rotate", 0.8, 4)),
        (("ShearY", 0.3, 7), ("TranslateX", 0.9, 3)),
        (("ShearX", 0.1, 6), ("Invert", 0.6, None)),
        (("Solarize", 0.7, 2), ("TranslateY", 0.6, 7)),
        (("ShearY", 0.8, 4), ("Invert", 0.8, None)),
        (("ShearX", 0.7, 9), ("TranslateY", 0.8, 3)),
        (("ShearY", 0.8, 5), ("AutoContrast", 0.7, None)),
        (("ShearX", 0.7, 2), ("Invert", 0.1, None)),
    ),
}


def _whole_pixels(offset: Any) -> Any:
    # torchvision translates by int(offset): whole pixels, rounded toward zero
    return math.floor(offset) * (offset >= 0) + math.ceil(offset) * (offset < 0)


def _image_size(data: Any, shape: Any) -> Any:
    # (H, W): the policy's `shape` where given, else read from the images (CPU images)
    return data.shape()[0:2] if shape is None else shape


# Up to 150/331 of the width (x) or height (y), as torchvision's _augmentation_space.
@augmentation(mag_range=(0, 150 / 331), randomly_negate=True, name="translate_x")
def torchvision_translate_x(
    data: Any, rel_offset: Any, shape: Any = None, fill_value: Any = 0, interp_type: Any = None
) -> Any:
    offset = _whole_pixels(rel_offset * _image_size(data, shape)[1])
    matrix = fn.transforms.translation(offset=fn.stack(offset, offset * 0))
    return fn.warp_affine(
        data, matrix=matrix, fill_value=fill_value, interp_type=interp_type, inverse_map=False
    )


@augmentation(mag_range=(0, 150 / 331), randomly_negate=True, name="translate_y")
def torchvision_translate_y(
    data: Any, rel_offset: Any, shape: Any = None, fill_value: Any = 0, interp_type: Any = None
) -> Any:
    offset = _whole_pixels(rel_offset * _image_size(data, shape)[0])
    matrix = fn.transforms.translation(offset=fn.stack(offset * 0, offset))
    return fn.warp_affine(
        data, matrix=matrix, fill_value=fill_value, interp_type=interp_type, inverse_map=False
    )


def torchvision_operations() -> dict[str, Any]:
    """torchvision's AutoAugment operations (by torchvision's names) as DALI augmentations on
    torchvision's magnitude scale."""
    return {
        # DALI shears the other way: a negative range makes a drawn sign shear as torchvision's
        "ShearX": augmentations.shear_x.augmentation(mag_range=(0, -0.3)),
        "ShearY": augmentations.shear_y.augmentation(mag_range=(0, -0.3)),
        "TranslateX": torchvision_translate_x,
        "TranslateY": torchvision_translate_y,
        "Rotate": augmentations.rotate,
        "Brightness": augmentations.brightness,
        "Color": augmentations.color,
        "Contrast": augmentations.contrast,
        "Sharpness": augmentations.sharpness,
        # torchvision keeps 8 - round(bin * 4 / 9) bits; DALI's mask keeps round(magnitude)
        "Posterize": augmentations.posterize.augmentation(mag_range=(8, 4)),
        "Solarize": augmentations.solarize.augmentation(mag_range=(255, 0)),
        "AutoContrast": augmentations.auto_contrast,
        "Equalize": augmentations.equalize,
        "Invert": augmentations.invert,
    }


def torchvision_policy(policy_name: str = "imagenet") -> Policy:
    """torchvision's AutoAugmentPolicy `policy_name` ("imagenet", "cifar10", "svhn") as a
    DALI :class:`Policy`."""
    operations = torchvision_operations()
    if policy_name not in TORCHVISION_POLICIES:
        known = ", ".join(TORCHVISION_POLICIES)
        raise ValueError(f"policy_name {policy_name!r}: torchvision's policies are {known}")
    sub_policies = [
        [(operations[name], probability, magnitude_bin) for name, probability, magnitude_bin in sub]
        for sub in TORCHVISION_POLICIES[policy_name]
    ]
    with warnings.catch_warnings():
        # torchvision's tables hold stages of probability 0 (kept: they are torchvision's)
        warnings.filterwarnings("ignore", message=r".*is used with probability 0")
        return Policy(
            f"torchvision {policy_name}", num_magnitude_bins=10, sub_policies=sub_policies
        )


def torchvision_auto_augment(
    data: DataNode,
    policy_name: str = "imagenet",
    shape: DataNode | tuple[int, int] | None = None,
    fill_value: int | None = 0,
    interp_type: types.DALIInterpType | None = None,
    seed: int | None = None,
) -> DataNode:
    """Applies torchvision's AutoAugment policy to uint8 HWC images: one of the policy's 25
    sub-policies per sample, each of its two stages run with the stage's probability at the
    stage's magnitude, randomly negated where torchvision negates.

    Args
    ----
    data : DataNode
        A batch of uint8 images in HWC layout.
    policy_name : str, optional
        torchvision's AutoAugmentPolicy: "imagenet", "cifar10" or "svhn".
    shape : DataNode or Tuple[int, int], optional
        The images' (height, width), which the translations of the "cifar10" and "svhn" policies
        move by a fraction of. Read from the images when not given (CPU images only).
    fill_value : int, optional
        The value of the pixels a rotation, shear or translation uncovers (torchvision's fill).
    interp_type : types.DALIInterpType, optional
        The rotations', shears' and translations' sampling; nearest (torchvision's default)
        when not given.
    seed : int, optional
        The seed of every random draw of the policy.
    """
    policy = torchvision_policy(policy_name)
    kwargs: dict[str, Any] = {
        "fill_value": fill_value,
        "interp_type": interp_type or types.DALIInterpType.INTERP_NN,
    }
    if shape is not None and "translate_x" in policy.augmentations:
        kwargs["shape"] = shape
    # DALI's apply_auto_augment, its draws seeded apart (see augexplorer.policy_seeds)
    return independent_draws(auto_augment.apply_auto_augment, policy, data, seed=seed, **kwargs)


# What an exported module carries, in this order, for a graph that calls the policy.
CARRIED_CONSTANTS = ("TORCHVISION_POLICIES",)
CARRIED = (
    _whole_pixels,
    _image_size,
    torchvision_translate_x,
    torchvision_translate_y,
    torchvision_operations,
    torchvision_policy,
    torchvision_auto_augment,
)
