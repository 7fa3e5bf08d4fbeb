"""torchvision's transforms (``torchvision.transforms`` and ``transforms.v2``) as DALI nodes.

One module per family of transforms; :data:`MAPPING` holds a handler per class name (old
names such as ``RandomSizedCrop`` and ``Scale`` too) and the groups (``RandomApply``,
``RandomChoice``, ``RandomOrder``, a nested ``Compose``). :func:`port` turns a read pipeline
into a graph.
"""

from __future__ import annotations

from .. import local_modules
from ..argument_names import explain_unknown
from ..build import (
    DataSource,
    Grade,
    LibraryMapping,
    PortContext,
    Refuse,
    build_graph,
)
from ..model import PortResult, TransformCall
from ..picked_refusals import note_picks_doing_nothing
from . import (
    affine,
    auto_aug,
    color,
    erasing,
    fills,
    geometry,
    lambdas,
    noise,
    orders,
    own_blur,
    own_solarize,
    perspective,
    photometric,
    sharpness,
    signatures,
    sizes,
    tensor,
)
from .grades import grade
from .left_out import boxes_left_out, masks_left_out, parts_left_out


def _known(call: TransformCall) -> None:
    """Refuse a group whose own arguments (``p``) are known only when the file runs: its draw
    cannot be made without them."""
    if call.unknowns():
        raise Refuse(explain_unknown(call))


def _random_apply(call: TransformCall, context: PortContext) -> Grade:
    _known(call)
    p = float(call.argument(0, "p", 0.5))
    if not call.children:
        # nothing to apply (an empty list): no coin that gates nothing
        return grade(call.name)
    if p >= 1:
        context.port_children(call.children)
        return grade(call.name)
    coin = context.coin("random_apply", p)
    from ...spec import Clause

    context.port_children(call.children, [Clause(coin)])
    return grade(call.name)


def _random_choice(call: TransformCall, context: PortContext) -> Grade:
    _known(call)
    if not call.children:
        return grade(call.name)
    weights = call.argument(0, "p") or [1.0] * len(call.children)
    weights = [float(w) for w in weights]
    clauses = context.choice("random_choice", weights)
    refused_from = len(context.refusals)
    for child, clause in zip(call.children, clauses, strict=True):
        context.port_children([child], [clause])
    note_picks_doing_nothing(call, context, weights, refused_from)
    return grade(call.name)


def _compose(call: TransformCall, context: PortContext) -> Grade:
    context.port_children(call.children)
    return Grade("exact")


MAPPING = LibraryMapping(
    "torchvision",
    handlers={
        "Resize": geometry.resize,
        "Scale": geometry.resize,
        "CenterCrop": geometry.center_crop,
        "RandomCrop": geometry.random_crop,
        "RandomResizedCrop": geometry.random_resized_crop,
        "RandomSizedCrop": geometry.random_resized_crop,
        "RandomHorizontalFlip": geometry.flip(horizontal=True),
        "RandomVerticalFlip": geometry.flip(horizontal=False),
        "Pad": geometry.pad,
        "RandomRotation": geometry.random_rotation,
        "RandomShortestSize": sizes.random_shortest_size,
        "RandomResize": sizes.random_resize,
        "ScaleJitter": sizes.scale_jitter,
        "RandomZoomOut": sizes.random_zoom_out,
        "RandomAffine": affine.random_affine,
        "RandomPerspective": perspective.random_perspective,
        "ColorJitter": color.color_jitter,
        "Grayscale": color.grayscale,
        "RandomGrayscale": color.random_grayscale,
        "GaussianBlur": color.gaussian_blur,
        "RandomInvert": color.random_invert,
        "RandomPosterize": color.random_posterize,
        "RandomSolarize": color.random_solarize,
        "RandomEqualize": color.random_equalize,
        "RandomAutocontrast": color.random_autocontrast,
        "RandomAdjustSharpness": sharpness.random_adjust_sharpness,
        "RandomPhotometricDistort": photometric.random_photometric_distort,
        "RandomErasing": erasing.random_erasing,
        "GaussianNoise": noise.gaussian_noise,
        "ToTensor": tensor.to_tensor,
        "PILToTensor": tensor.to_image,
        "ToImage": tensor.to_image,
        "Identity": tensor.identity,
        "ToPureTensor": tensor.identity,
        "Lambda": lambdas.lambda_transform,
        "ToPILImage": tensor.to_pil_image,
        "ToDtype": tensor.to_dtype,
        "ConvertImageDtype": tensor.to_dtype,
        "Normalize": tensor.normalize,
        "AutoAugment": auto_aug.auto_augment,
        "RandAugment": auto_aug.rand_augment,
        "TrivialAugmentWide": auto_aug.trivial_augment_wide,
    },
    groups={
        "RandomApply": _random_apply,
        "RandomChoice": _random_choice,
        "RandomOrder": orders.random_order,
        "Compose": _compose,
    },
    nearest={
        "ElasticTransform": "python_function (DALI has no elastic warp)",
        "AugMix": "auto_aug (DALI has no AugMix)",
        "FiveCrop": "crop (one node per crop)",
        "TenCrop": "crop and flip (one node per crop)",
        "LinearTransformation": "python_function",
        "RandomIoUCrop": "random_bbox_crop",
        "ClampBoundingBoxes": "bbox operators",
        "ConvertBoundingBoxFormat": "bbox operators",
        "JPEG": "jpeg_compression_distortion",
        "RandomChannelPermutation": "python_function (DALI draws no channel order)",
        "CutMix": "none in the graph: it mixes a batch (do it on the loader's batch in PyTorch)",
        "MixUp": "none in the graph: it mixes a batch (do it on the loader's batch in PyTorch)",
        "SanitizeBoundingBoxes": "bbox operators",
    },
    # a call torchvision 0.29.1 fails on (an argument its class does not take): refused
    rejects=signatures.refusal,
    reads_code=frozenset({"Lambda"}),
    # MoCo's, SimCLR's and DINO's GaussianBlur classes, read from the file's source
    own_classes={
        "pil_gaussian_blur": own_blur.pil_gaussian_blur,
        "pil_solarize": own_solarize.pil_solarize,
    },
)


# An example call of each ported class, for the coverage table (augexplorer.port.coverage).
EXAMPLES: dict[str, str] = {
    "Resize": "Resize(256)",
    "Scale": "Scale(256)",
    "CenterCrop": "CenterCrop(224)",
    "RandomCrop": "RandomCrop(32, padding=4)",
    "RandomResizedCrop": "RandomResizedCrop(224)",
    "RandomSizedCrop": "RandomSizedCrop(224)",
    "RandomHorizontalFlip": "RandomHorizontalFlip()",
    "RandomVerticalFlip": "RandomVerticalFlip()",
    "Pad": "Pad(4)",
    "RandomRotation": "RandomRotation(15)",
    "RandomShortestSize": "RandomShortestSize([480, 512, 544], max_size=800)",
    "RandomResize": "RandomResize(256, 480)",
    "ScaleJitter": "ScaleJitter((512, 512), scale_range=(0.5, 1.5))",
    "RandomZoomOut": "RandomZoomOut(fill=127, side_range=(1.0, 2.0), p=0.5)",
    "RandomPerspective": "RandomPerspective(0.3, p=0.5)",
    "RandomAffine": "RandomAffine(15, translate=(0.1, 0.1), scale=(0.9, 1.1), shear=5)",
    "ColorJitter": "ColorJitter(0.4, 0.4, 0.4, 0.1)",
    "Grayscale": "Grayscale(3)",
    "RandomGrayscale": "RandomGrayscale(p=0.2)",
    "GaussianBlur": "GaussianBlur(9, sigma=(0.1, 2.0))",
    "RandomInvert": "RandomInvert()",
    "RandomPosterize": "RandomPosterize(4)",
    "RandomSolarize": "RandomSolarize(192)",
    "RandomEqualize": "RandomEqualize()",
    "RandomAutocontrast": "RandomAutocontrast()",
    "RandomAdjustSharpness": "RandomAdjustSharpness(2)",
    "RandomPhotometricDistort": "RandomPhotometricDistort()",
    "RandomErasing": "ToTensor(), T.RandomErasing()",
    "GaussianNoise": "ToImage(), T.ToDtype(torch.float32, scale=True), T.GaussianNoise()",
    "ToTensor": "ToTensor()",
    "PILToTensor": "PILToTensor()",
    "ToImage": "ToImage()",
    "Identity": "Identity()",
    "ToPureTensor": "ToImage(), T.ToPureTensor()",
    "Lambda": "Lambda(lambda img: img.convert('RGB'))",
    "ToPILImage": "ToPILImage()",
    "ToDtype": "ToImage(), T.ToDtype(torch.float32, scale=True)",
    "ConvertImageDtype": "PILToTensor(), T.ConvertImageDtype(torch.float32)",
    "Normalize": "ToTensor(), T.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])",
    "AutoAugment": "AutoAugment()",
    "RandAugment": "RandAugment()",
    "TrivialAugmentWide": "TrivialAugmentWide()",
    "RandomApply": "RandomApply([T.ColorJitter(0.4)], p=0.8)",
    "RandomChoice": "RandomChoice([T.RandomRotation(10), T.Grayscale(3)])",
    "RandomOrder": "RandomOrder([T.RandomRotation(10), T.Grayscale(3)])",
}


# Paragraphs under the coverage table: what a handler ports beyond its example call.
NOTES: tuple[str, ...] = (
    "RandomRotation and RandomAffine given `fill=(124, 116, 104)` (the ImageNet mean in "
    "pixels, one value per channel) are ported with the grades above. "
    + fills.CHANNEL_FILLS
    + " RandomPerspective's warp takes a fill per channel itself.",
    "v2's ToDtype: no node where the image is still PIL's. "
    + tensor.PASSES_PIL
    + " ConvertImageDtype (v1's fails on a PIL image) or Normalize before any conversion make "
    "the pipeline one written for tensors (torchvision.io.read_image's uint8 tensors, which "
    "Compare gives it): ConvertImageDtype converts them.",
    "A GaussianBlur class of the file's own, as MoCo v2, SimCLR and DINO write it "
    "(`__call__` draws `random.uniform` in its sigma or radius range and returns "
    "`x.filter(ImageFilter.GaussianBlur(radius=...))`, DINO's under a coin of p), is read from "
    "its source and ported as DALI's gaussian_blur at that draw, with that p: approximate. "
    + own_blur.MEASURED
    + " DINO's Solarization class (`ImageOps.solarize(img)` under a coin of p) is read the "
    "same way and ported as RandomSolarize(threshold, p) at the class's threshold (PIL's "
    "default 128): exact, the same pixels as PIL's "
    "(torchvision's RandomSolarize calls ImageOps.solarize on a PIL image). Such a class, or a "
    "function returning a Compose, defined in another of the project's files the file imports "
    "(`import moco.loader`, `import utils`, `from .transforms import build_transforms`) is read "
    "from that file, never run: looked for beside the file, then in its parents up to the "
    f"project's root, at most {local_modules.MAX_UP} folders up (a relative import from the "
    "file's package), never in site-packages, at most "
    f"{local_modules.MAX_FILES} files; refusals name the other file and line. A class doing "
    "anything else is "
    "refused as a class of one's own. Compare (`--run-file`) runs the class the file defines "
    "or imports, never the library's class of that name, and compares its pixels at one "
    "radius (1.2 where its range holds it), always applied, its own arguments set so on both "
    "sides; under a coin, how often it applies is a rate as a RandomApply's is: the port's "
    "coin against the class run alone, applied where it returns another image than the one "
    "it was given (not read from pixels, which a blur of a flat image keeps).",
)


def port(
    compose: TransformCall,
    *,
    name: str = "ported",
    data: DataSource | None = None,
    batch_size: int = 8,
    seed: int = 0,
) -> PortResult:
    """The graph of a torchvision Compose (as read by :mod:`augexplorer.port.reading`)."""

    def finish(context: PortContext) -> None:
        tensor.finish(context)
        context.refusals.extend(parts_left_out(compose))

    return build_graph(
        compose,
        MAPPING,
        name=name,
        data=data,
        batch_size=batch_size,
        seed=seed,
        finish=finish,
    )


__all__ = ["EXAMPLES", "MAPPING", "NOTES", "boxes_left_out", "masks_left_out", "port"]
