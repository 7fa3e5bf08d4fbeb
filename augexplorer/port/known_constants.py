"""Constants other libraries define that pipelines import by name, with their values, so that
``T.Normalize(IMAGENET_DEFAULT_MEAN, IMAGENET_DEFAULT_STD)`` (``from timm.data import ...``)
is read without running the file or importing the library. Values as timm 1.x defines them
(``timm/data/constants.py``), unchanged since timm 0.4."""

from __future__ import annotations

_TIMM = {
    "DEFAULT_CROP_PCT": 0.875,
    "IMAGENET_DEFAULT_MEAN": (0.485, 0.456, 0.406),
    "IMAGENET_DEFAULT_STD": (0.229, 0.224, 0.225),
    "IMAGENET_INCEPTION_MEAN": (0.5, 0.5, 0.5),
    "IMAGENET_INCEPTION_STD": (0.5, 0.5, 0.5),
    "IMAGENET_DPN_MEAN": (124 / 255, 117 / 255, 104 / 255),
    "IMAGENET_DPN_STD": tuple([1 / (0.0167 * 255)] * 3),
    "OPENAI_CLIP_MEAN": (0.48145466, 0.4578275, 0.40821073),
    "OPENAI_CLIP_STD": (0.26862954, 0.26130258, 0.27577711),
}

# by the dotted names a file imports them under
KNOWN_CONSTANTS: dict[str, object] = {
    f"{module}.{name}": value
    for module in ("timm.data", "timm.data.constants")
    for name, value in _TIMM.items()
}


def known_constant(dotted: str | None) -> object | None:
    """The value of a library constant the file names (``timm.data.IMAGENET_DEFAULT_MEAN``),
    else None."""
    return KNOWN_CONSTANTS.get(dotted) if dotted else None


__all__ = ["KNOWN_CONSTANTS", "known_constant"]
