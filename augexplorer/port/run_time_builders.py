"""Pipelines a file does not write out: another library's function builds the Compose when the
code runs (timm's ``create_transform(224, is_training=True, auto_augment=...)``). The port reads
files without running them, so such a pipeline has no transforms to read; it is listed by the
name it is assigned to and refused with what to do, rather than left unmentioned while another
pipeline of the same file (often the evaluation one) is ported in its place."""

from __future__ import annotations

import ast

# resolved dotted name -> (library, function) of a call that returns a torchvision Compose
BUILDERS: dict[str, tuple[str, str]] = {
    f"timm.data.{module}{function}": ("timm", function)
    for module in ("", "transforms_factory.")
    for function in (
        "create_transform",
        "transforms_imagenet_train",
        "transforms_imagenet_eval",
        "transforms_noaug_train",
    )
}
SHOWN_CALL = 90  # characters of the call quoted in a refusal

# torchvision's ``weights.transforms()`` (``ResNet50_Weights.DEFAULT.transforms()``): the weights'
# ImageClassification preset, whose sizes, mean and std are the weights' own
WEIGHTS_PRESET = ("torchvision", "weights.transforms()")
# what that preset runs (torchvision.transforms._presets.ImageClassification.forward), to write
PRESET_WRITTEN = (
    "T.Compose([T.Resize(resize_size, interpolation=interpolation, antialias=True), "
    "T.CenterCrop(crop_size), T.PILToTensor(), T.ConvertImageDtype(torch.float), "
    "T.Normalize(mean, std)])"
)


def is_weights(dotted: str | None) -> bool:
    """Whether `dotted` names torchvision's weights of a model (``torchvision.models.
    ResNet50_Weights.DEFAULT``, or ``torchvision.models.get_weight``'s result)."""
    parts = (dotted or "").split(".")
    return parts[:2] == ["torchvision", "models"] and any(p.endswith("_Weights") for p in parts)


def builder_of(dotted: str | None) -> tuple[str, str] | None:
    """(library, function) where `dotted` names a function that builds a Compose at run time."""
    return BUILDERS.get(dotted or "")


def refusal(name: str, call: ast.Call, library: str, function: str) -> str:
    """Why the pipeline `name` (made by `call`) cannot be read, and what to do."""
    text = ast.unparse(call)
    if len(text) > SHOWN_CALL:
        text = text[: SHOWN_CALL - 3] + "..."
    fix = (
        f"print({name}) shows the Compose {library} made; write it out with torchvision's "
        "transforms and port that"
    )
    if (library, function) == WEIGHTS_PRESET:
        fix = (
            f"print({name}) shows the preset's crop_size, resize_size, mean, std and "
            f"interpolation; write out what it runs, {PRESET_WRITTEN}, and port that"
        )
    return (
        f"{name} is made by {library}'s {function} when the code runs (line {call.lineno}: "
        f"{text}), and the port reads the transforms a file writes out, without running it "
        f"(fix: {fix})"
    )
