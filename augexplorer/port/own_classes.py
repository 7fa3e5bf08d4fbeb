"""The library transform a project's own class is near by name (DINO's ``utils.Solarization``
-> torchvision's ``RandomSolarize``): its refusal names what to write instead."""

from __future__ import annotations

import re
from collections.abc import Iterable

# how the usual project class of that name is written with the library's transform (DINO's
# Solarization(p) inverts pixels at or above 128 with probability p)
_WRITTEN = {
    "RandomSolarize": "RandomSolarize(threshold=128, p=P)",
    "Solarize": "Solarize(threshold_range=(0.5, 0.5), p=P)",
}


def _stem(name: str) -> str:
    """A name without case, a leading Random and a noun's ending: Solarization, Solarize
    and RandomSolarize are one stem."""
    stem = name.rsplit(".", 1)[-1].lower().removeprefix("random")
    return re.sub(r"(ation|ion|e|s)$", "", stem)


def near_transform(own: str, transforms: Iterable[str]) -> str | None:
    """The one library transform whose name is `own`'s near kin; None where none or several."""
    wanted = _stem(own)
    if len(wanted) < 5:  # "Crop" or "Flip" alone says too little of what the class does
        return None
    found = sorted({name for name in transforms if _stem(name) == wanted})
    return found[0] if len(found) == 1 else None


def near_refusal(own: str, library: str, near: str) -> str:
    """The refusal of the project's class `own`, naming `near` to write instead."""
    written = _WRITTEN.get(near, f"{near}(...)")
    return (
        f"{own} is a class of your own, so it cannot be read without running it; its name is "
        f"near {library}'s {near}, which is ported (fix: where it does what {near} does, write "
        f"{written} instead; else write it as a DALI node, or a python_function node)"
    )
