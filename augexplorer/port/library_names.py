"""The class names torchvision and albumentations have, to tell a mistyped name
(``T.RandomHorizontalFlp``, ``A.HorizontalFlipp``) from a transform the port does not map: the
file fails on the first (AttributeError), so it is refused saying so, with the closest name the
library has (:func:`misspelled`), not as "not ported yet".

Every public class of ``torchvision.transforms`` and ``torchvision.transforms.v2`` in torchvision
0.29.1, and of ``albumentations`` and ``albumentations.pytorch`` in albumentations 2.0.8, made
with the reference environment's Python (``make reference``; its path in
``AUGEXPLORER_REFERENCE_PYTHON``)::

    sorted(n for n in dir(module) if n[:1].isupper() and inspect.isclass(getattr(module, n)))

``tests/test_port_library_names.py`` checks them against that environment (the
``reference_python`` fixture) where it is there.
"""

from __future__ import annotations

import difflib

from .model import TransformCall

VERSIONS = {"torchvision": "torchvision 0.29.1", "albumentations": "albumentations 2.0.8"}

_TORCHVISION_V1 = (
    "AugMix AutoAugment AutoAugmentPolicy CenterCrop ColorJitter Compose ConvertImageDtype "
    "ElasticTransform FiveCrop GaussianBlur Grayscale InterpolationMode Lambda "
    "LinearTransformation Normalize PILToTensor Pad RandAugment RandomAdjustSharpness "
    "RandomAffine RandomApply RandomAutocontrast RandomChoice RandomCrop RandomEqualize "
    "RandomErasing RandomGrayscale RandomHorizontalFlip RandomInvert RandomOrder "
    "RandomPerspective RandomPosterize RandomResizedCrop RandomRotation RandomSolarize "
    "RandomVerticalFlip Resize TenCrop ToPILImage ToTensor TrivialAugmentWide"
)

_TORCHVISION_V2 = (
    "AugMix AutoAugment AutoAugmentPolicy CenterCrop ClampBoundingBoxes ClampKeyPoints "
    "ColorJitter Compose ConvertBoundingBoxFormat ConvertImageDtype CutMix ElasticTransform "
    "FiveCrop GaussianBlur GaussianNoise Grayscale Identity InterpolationMode JPEG Lambda "
    "LinearTransformation MixUp Normalize PILToTensor Pad RGB RandAugment RandomAdjustSharpness "
    "RandomAffine RandomApply RandomAutocontrast RandomChannelPermutation RandomChoice "
    "RandomCrop RandomEqualize RandomErasing RandomGrayscale RandomHorizontalFlip RandomInvert "
    "RandomIoUCrop RandomOrder RandomPerspective RandomPhotometricDistort RandomPosterize "
    "RandomResize RandomResizedCrop RandomRotation RandomShortestSize RandomSolarize "
    "RandomVerticalFlip RandomZoomOut Resize SanitizeBoundingBoxes SanitizeKeyPoints "
    "ScaleJitter SetClampingMode TenCrop ToDtype ToImage ToPILImage ToPureTensor ToTensor "
    "Transform TrivialAugmentWide UniformTemporalSubsample"
)

_ALBUMENTATIONS = (
    "AdditiveNoise AdvancedBlur Affine AtLeastOneBBoxRandomCrop AutoContrast BBoxSafeRandomCrop "
    "BaseCompose BasicTransform BboxParams Blur CLAHE CenterCrop CenterCrop3D ChannelDropout "
    "ChannelShuffle ChromaticAberration CoarseDropout CoarseDropout3D ColorJitter Compose "
    "ConstrainedCoarseDropout Crop CropAndPad CropNonEmptyMaskIfExists CubicSymmetry D4 Defocus "
    "Downscale DualTransform ElasticTransform Emboss Equalize Erasing FDA FancyPCA "
    "FrequencyMasking FromFloat GaussNoise GaussianBlur GlassBlur GridDistortion GridDropout "
    "GridElasticDeform HEStain HistogramMatching HorizontalFlip HueSaturationValue ISONoise "
    "Illumination ImageCompression ImageOnlyTransform InvertImg KeypointParams Lambda "
    "LongestMaxSize MaskDropout MedianBlur Morphological Mosaic MotionBlur MultiplicativeNoise "
    "NoOp Normalize OneOf OneOrOther OpticalDistortion OverlayElements Pad Pad3D PadIfNeeded "
    "PadIfNeeded3D Perspective PiecewiseAffine PixelDistributionAdaptation PixelDropout "
    "PlanckianJitter PlasmaBrightnessContrast PlasmaShadow Posterize RGBShift "
    "RandomBrightnessContrast RandomCrop RandomCrop3D RandomCropFromBorders RandomCropNearBBox "
    "RandomFog RandomGamma RandomGravel RandomGridShuffle RandomOrder RandomRain "
    "RandomResizedCrop RandomRotate90 RandomScale RandomShadow RandomSizedBBoxSafeCrop "
    "RandomSizedCrop RandomSnow RandomSunFlare RandomToneCurve ReplayCompose Resize "
    "RingingOvershoot Rotate SafeRotate SaltAndPepper SelectiveChannelTransform Sequential "
    "Sharpen ShiftScaleRotate ShotNoise SmallestMaxSize Solarize SomeOf Spatter SquareSymmetry "
    "Superpixels TextImage ThinPlateSpline TimeMasking TimeReverse ToFloat ToGray ToRGB ToSepia "
    "ToTensor3D ToTensorV2 Transform3D Transpose UnsharpMask VerticalFlip XYMasking ZoomBlur"
)

TORCHVISION_V1 = frozenset(_TORCHVISION_V1.split())
TORCHVISION_V2 = frozenset(_TORCHVISION_V2.split())
ALBUMENTATIONS = frozenset(_ALBUMENTATIONS.split())
V2 = "torchvision.transforms.v2"


def is_v2(call: TransformCall) -> bool:
    """Whether `call` names a class of ``torchvision.transforms.v2``."""
    return call.module == V2 or call.module.startswith(f"{V2}.")


def names_of(call: TransformCall) -> tuple[str, frozenset[str]]:
    """The module `call` names its class from, in words, and the class names it has."""
    if call.library == "albumentations":
        return "albumentations", ALBUMENTATIONS
    if is_v2(call):
        return V2, TORCHVISION_V2
    return "torchvision.transforms", TORCHVISION_V1


def misspelled(call: TransformCall, known: frozenset[str] = frozenset()) -> str | None:
    """Why a call read from a file is refused whose library has no class of its name (the file
    fails on it), with the closest name the library has; None for a name it has, and for a
    live object or a saved file (no line: the version that made it had the class). `known`:
    names the port takes beside the library's (old ones it still reads)."""
    if call.line is None or call.library not in VERSIONS:
        return None
    module, names = names_of(call)
    version = VERSIONS[call.library]
    if (
        call.library == "torchvision"
        and module != V2
        and call.name in TORCHVISION_V2
        and call.name not in names
    ):
        return (
            f"torchvision.transforms has no {call.name}, which is in {V2} ({version}): the "
            "file fails on it (fix: from torchvision.transforms import v2, then "
            f"v2.{call.name}(...))"
        )
    if call.name in names or call.name in known:
        return None
    said = f"{module} has no {call.name} ({version}): the file fails on it"
    close = difflib.get_close_matches(call.name, sorted(names | known), n=1, cutoff=0.6)
    if close:
        return f"{said} (fix: {close[0]}, the closest name it has)"
    return f"{said} (fix: the name of one of its classes)"


__all__ = ["ALBUMENTATIONS", "TORCHVISION_V1", "TORCHVISION_V2", "is_v2", "misspelled", "names_of"]
