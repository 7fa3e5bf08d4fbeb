"""albumentations pipelines ported into DALI graphs: the saved form read (:mod:`.saved`), one
mapping per transform by family (:mod:`.geometric`, :mod:`.colour`, :mod:`.blur_noise`,
:mod:`.dropout`), and the composes (:mod:`.library`). :func:`port` turns a read pipeline into a
graph."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from ..build import DataSource, PortContext, annotations_left_out, build_graph
from ..model import PortResult, Refusal, TransformCall
from .arguments import AREA_DIFFERENCE, AREA_FOR_DOWNSCALE
from .compose_seed import seeded_notes
from .library import MAPPING, MAPPING_1X
from .masks import masks_left_out
from .registry import LIBRARY
from .resampling import RESAMPLING_DIFFERENCES
from .saved import (
    TARGET_PARAMS,
    SavedFormError,
    SavedPipeline,
    is_saved_file,
    looks_saved,
    read_saved,
    read_saved_file,
)

# An example call of every class the port maps (as written after ``A.``), for the coverage
# table (docs/porting.md, :mod:`augexplorer.port.coverage`).
EXAMPLES: dict[str, str] = {
    "Resize": "Resize(256, 256)",
    "SmallestMaxSize": "SmallestMaxSize(max_size=256)",
    "LongestMaxSize": "LongestMaxSize(max_size=512)",
    "CenterCrop": "CenterCrop(224, 224)",
    "RandomCrop": "RandomCrop(224, 224)",
    "Crop": "Crop(10, 10, 200, 200)",
    "RandomResizedCrop": "RandomResizedCrop(size=(224, 224))",
    "RandomSizedCrop": "RandomSizedCrop(min_max_height=(150, 250), size=(224, 224))",
    "PadIfNeeded": "PadIfNeeded(min_height=512, min_width=512, border_mode=4)",
    "HorizontalFlip": "HorizontalFlip()",
    "VerticalFlip": "VerticalFlip()",
    "Transpose": "Transpose()",
    "RandomRotate90": "RandomRotate90()",
    "D4": "D4()",
    "SquareSymmetry": "SquareSymmetry()",
    "Rotate": "Rotate(limit=30)",
    "SafeRotate": "SafeRotate(limit=30)",
    "Perspective": "Perspective(scale=(0.05, 0.1))",
    "Affine": "Affine(scale=(0.9, 1.1), translate_percent=(-0.1, 0.1), rotate=(-15, 15), shear=5)",
    "ShiftScaleRotate": "ShiftScaleRotate(shift_limit=0.05, scale_limit=0.1, rotate_limit=15)",
    "RandomScale": "RandomScale(scale_limit=0.2)",
    "Downscale": "Downscale(scale_range=(0.25, 0.5))",
    "ColorJitter": "ColorJitter(0.2, 0.2, 0.2, 0.1)",
    "RandomBrightnessContrast": "RandomBrightnessContrast()",
    "HueSaturationValue": "HueSaturationValue()",
    "RGBShift": "RGBShift()",
    "ToGray": "ToGray()",
    "ToSepia": "ToSepia()",
    "Equalize": "Equalize()",
    "CLAHE": "CLAHE()",
    "UnsharpMask": "UnsharpMask()",
    "RandomToneCurve": "RandomToneCurve()",
    "RandomGamma": "RandomGamma()",
    "Normalize": "Normalize()",
    "InvertImg": "InvertImg()",
    "Solarize": "Solarize()",
    "Posterize": "Posterize(num_bits=4)",
    "ChannelShuffle": "ChannelShuffle()",
    "ChannelDropout": "ChannelDropout()",
    "Blur": "Blur(blur_limit=(3, 7))",
    "GaussianBlur": "GaussianBlur(blur_limit=(3, 7))",
    "MotionBlur": "MotionBlur()",
    "Sharpen": "Sharpen()",
    "Emboss": "Emboss()",
    "GaussNoise": "GaussNoise(std_range=(0.1, 0.2))",
    "MultiplicativeNoise": "MultiplicativeNoise()",
    "SaltAndPepper": "SaltAndPepper()",
    "ImageCompression": "ImageCompression(quality_range=(60, 100))",
    "CoarseDropout": (
        "CoarseDropout(num_holes_range=(1, 8), hole_height_range=(0.05, 0.1), "
        "hole_width_range=(0.05, 0.1))"
    ),
    "Erasing": "Erasing()",
    "GridDropout": "GridDropout(ratio=0.3, unit_size_range=(20, 40))",
    "XYMasking": "XYMasking(num_masks_x=(1, 3), mask_x_length=(10, 20))",
    "PixelDropout": "PixelDropout()",
    "ToFloat": "ToFloat()",
    "FromFloat": "ToFloat(), T.FromFloat()",
    "ToTensorV2": "Normalize(), T.ToTensorV2()",
    "NoOp": "NoOp()",
    "ToRGB": "ToRGB()",
    "OneOf": "OneOf([T.Blur(), T.GaussianBlur()], p=0.3)",
    "SomeOf": "SomeOf([T.HorizontalFlip(p=1), T.VerticalFlip(p=1), T.Transpose(p=1)], n=2)",
    "Sequential": "Sequential([T.Rotate(limit=10, p=1), T.ToGray(p=1)], p=0.5)",
    "ReplayCompose": "ReplayCompose([T.HorizontalFlip()])",
    "OneOrOther": "OneOrOther(T.HorizontalFlip(), T.VerticalFlip())",
}

# What the table's one example per class does not show, said under it (docs/porting.md)
NOTES: tuple[str, ...] = (
    "A resize given `interpolation=cv2.INTER_AREA` (Resize, SmallestMaxSize, LongestMaxSize, "
    f"RandomScale, RandomSizedCrop, RandomResizedCrop, Downscale) is graded approximate: "
    f"{AREA_DIFFERENCE}. An affine warp given it (Affine, Rotate, ShiftScaleRotate, "
    "SafeRotate) is linear, as OpenCV's warpAffine reads INTER_AREA: exact.",
    "A resize given `cv2.INTER_NEAREST`, `INTER_CUBIC`, `INTER_LANCZOS4` or `INTER_NEAREST_EXACT` "
    "(Resize, SmallestMaxSize, LongestMaxSize, RandomScale, RandomSizedCrop, "
    "RandomResizedCrop) is graded approximate, its resampling as Resize's: "
    f"{'; '.join(RESAMPLING_DIFFERENCES)}.",
    "SmallestMaxSize, LongestMaxSize and RandomScale given `area_for_downscale` (with "
    f"INTER_LINEAR) are graded approximate: {AREA_FOR_DOWNSCALE}. Other resizes and crops take "
    "INTER_AREA for both sides where either shrinks: refused there.",
    "RandomCrop and CenterCrop with `pad_if_needed=True` pad an image smaller than the crop to "
    "its size first, as PadIfNeeded does (pad_position, border_mode, fill; a fixed "
    "pad_position only): the same pixels for the same window, measured against albumentations.",
    "Normalize with `normalization='image'`, `'image_per_channel'`, `'min_max'` or "
    "`'min_max_per_channel'` is graded exact: each image by its own mean and standard deviation "
    "(or minimum and maximum), over the whole image or per channel, from DALI's reductions, with "
    "albumentations' arithmetic (19 photos: max difference below 0.00001).",
    "RandomBrightnessContrast with `brightness_by_max=False` is graded exact: the shift is the "
    "draw times the image's mean, and the result truncated to 8 bits as albumentations' table "
    "of values truncates it (19 photos, two fixed draws: max 0 grey levels); on 8-bit pixels "
    "only, before Normalize or ToFloat.",
    "CoarseDropout with `fill='random'` fills each hole with values drawn uniformly from 0 to "
    "255, per pixel and channel, as albumentations draws them, by DALI's generator (8 photos, "
    "the filled values: mean 127.27 on both sides, two-sample KS p 0.93); graded distribution, "
    "on 8-bit pixels only, before Normalize or ToFloat. `fill='random_uniform'` (one colour a "
    "hole) and the inpainting fills stay refused.",
    "A file that loads its pipeline from albumentations' saved form (`t = A.load('aug.yaml')`, "
    "or `A.from_dict(json.load(f))` of the one saved file it opens) is ported from that saved "
    "file, looked for beside the file, as importing the saved file ports it. Compare "
    "(`--run-file`) runs the file from its folder and takes the pipeline by the name the file "
    "assigns it.",
)


def port(
    compose: TransformCall,
    *,
    name: str = "ported",
    data: DataSource | None = None,
    batch_size: int = 8,
    seed: int = 0,
    version: int = 2,
) -> PortResult:
    """The graph of an albumentations Compose (read from a file, a notebook or the saved form);
    `version` is the major version that wrote a saved file (a Python file says none: 2)."""
    mapping = MAPPING if version >= 2 else MAPPING_1X

    def targets_left_out(context: PortContext) -> None:
        context.refusals.extend(untargeted(compose))

    result = build_graph(
        compose,
        mapping,
        name=name,
        data=data,
        batch_size=batch_size,
        seed=seed,
        finish=targets_left_out,
    )
    return dataclasses.replace(result, notes=(*result.notes, *seeded_notes(compose)))


def untargeted(compose: TransformCall) -> list[Refusal]:
    """The Compose's box and keypoint settings, and the other images and masks it transforms
    alike, each as what the port leaves out: the graph it makes reads one image and its class
    labels a sample, so they would be dropped in silence."""
    left: list[Refusal] = []
    targets = [(name, what, annotations_left_out(what)) for name, what in TARGET_PARAMS.items()]
    for name, what, reason in (*targets, (EXTRA_TARGETS, "extra targets", _EXTRA_LEFT_OUT)):
        value = compose.kwargs.get(name)
        if value in (None, {}, {"dict": {}}):
            continue
        call = TransformCall(LIBRARY, compose.name, kwargs={name: value}, line=compose.line)
        left.append(Refusal(call, reason, part=what))
    masks = masks_left_out(compose)
    return [*left, masks] if masks is not None else left


# albumentations' other images and masks given beside the image (``image2=...``)
EXTRA_TARGETS = "additional_targets"
_EXTRA_LEFT_OUT = (
    "the port transforms one image per sample: the other images and masks the Compose is "
    "called with are not transformed (fix: one graph per image stream, or masks through the "
    "panel's COCO source: docs/annotations.md)"
)


def port_saved_file(
    path: str | Path, *, name: str | None = None, data: DataSource | None = None
) -> PortResult:
    """The graph of a pipeline albumentations saved (``A.save``: JSON or YAML), read without
    albumentations, with the semantics of the version that saved it; the graph is named after
    the file."""
    path = Path(path)
    saved = read_saved_file(path)
    version = saved.major if saved.major is not None else 2
    return port(saved.root, name=name or _graph_name(path.stem), data=data, version=version)


def _graph_name(stem: str) -> str:
    cleaned = "".join(c if c.isalnum() or c == "_" else "_" for c in stem)
    return cleaned.strip("_") or "ported"


__all__ = [
    "EXAMPLES",
    "MAPPING",
    "SavedFormError",
    "SavedPipeline",
    "is_saved_file",
    "looks_saved",
    "port",
    "port_saved_file",
    "read_saved",
    "read_saved_file",
]
