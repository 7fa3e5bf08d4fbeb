"""Transforms of another library (timm's) in a torchvision or albumentations pipeline. Their
refusal says whose they are, and the library's transform nearest to them where one is known:
they are neither the library's transforms nor classes of the project's own."""

from __future__ import annotations

# the libraries whose transforms are met in pipelines, by the top module they are imported from
_OWNERS = {
    "timm": "timm",
    "kornia": "kornia",
    "monai": "MONAI",
    "mmcv": "mmcv",
    "mmpretrain": "mmpretrain",
    "imgaug": "imgaug",
    "transformers": "transformers",
}

# timm's transforms (timm.data.transforms, timm.data.random_erasing) with torchvision's
# nearest one, and what to check before writing it (timm's code of each, read)
_TIMM_NEAREST = {
    "RandomResizedCropAndInterpolation": (
        "RandomResizedCrop(size, scale=..., ratio=..., interpolation=InterpolationMode.BICUBIC)",
        "its interpolation='random' picks bilinear or bicubic per image, and older timm "
        "versions drew the aspect ratio uniformly where torchvision draws its logarithm",
    ),
    "MaybeToTensor": ("ToTensor()", "on a PIL image it is torchvision's to_tensor"),
    "RandomErasing": (
        "RandomErasing(p=P, value='random') (mode='pixel') or RandomErasing(p=P) (mode='const')",
        "timm's mode='rand' fills a window with one colour per channel, and max_count > 1 "
        "erases several windows",
    ),
    "ToTensor": ("PILToTensor() then ConvertImageDtype", "timm's ToTensor keeps 0-255 values"),
    "ToNumpy": ("PILToTensor()", "timm's ToNumpy gives a uint8 CHW numpy array"),
    "ResizeKeepRatio": ("Resize(size)", "timm's sizes the image to fit within size"),
}


def owner_of(module: str) -> str | None:
    """The library a transform's module (``timm.data.transforms``) belongs to, else None."""
    return _OWNERS.get(module.split(".", 1)[0]) if module else None


def other_library_refusal(name: str, module: str, library: str) -> str | None:
    """Why `name`, imported from `module`, is not ported into a `library` pipeline, and what to
    write instead; None where `module` is no other library's."""
    owner = owner_of(module)
    if owner is None:
        return None
    said = (
        f"{name} is {owner}'s ({module}.{name}), not one of {library}'s transforms, so it cannot "
        "be read without running it"
    )
    nearest = _TIMM_NEAREST.get(name) if owner == "timm" else None
    if nearest is not None:
        written, check = nearest
        return (
            f"{said} (fix: {library}'s nearest is {written}, which is ported; check first that "
            f"it does what yours needs: {check}; else write it as a DALI node, or a "
            "python_function node)"
        )
    return f"{said} (fix: write it as a DALI node, or a python_function node)"
