"""A run that fails in a node ported from another library, said in that library's words.

DALI's message names the DALI operator and argument the port wrote (a ``slice`` with
``shape=[56, 56]``), which a torchvision user never wrote; where the library itself fails the
same way, the fix is the library's own argument. Keyed by library and transform class.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import RunError
from ..spec import Origin


@dataclass(frozen=True)
class PortedFailure:
    """What a ported transform's failure means (`explanation`) and the fix in its library."""

    explanation: str
    fix: str
    # the words in DALI's message that mark this failure (any other failure is left as it is)
    marks: tuple[str, ...]


_OUTSIDE = ("out of bounds", "outside", "out_of_bounds_policy")

_ALBUMENTATIONS_CROP = PortedFailure(
    "an image is smaller than the crop: albumentations raises here too (CropSizeError)",
    "make every image at least the crop's size before it (A.SmallestMaxSize or A.PadIfNeeded "
    "before the crop)",
    _OUTSIDE,
)

PORTED_FAILURES: dict[tuple[str, str], PortedFailure] = {
    ("albumentations", "RandomCrop"): _ALBUMENTATIONS_CROP,
    ("albumentations", "CenterCrop"): _ALBUMENTATIONS_CROP,
    ("torchvision", "RandomCrop"): PortedFailure(
        "an image (padded by padding=, if given) is smaller than the crop: torchvision raises "
        "here too",
        "pass pad_if_needed=True to RandomCrop (it pads a small image to the crop), or resize "
        "the images first",
        _OUTSIDE,
    ),
}


def transform_class(origin: Origin) -> str:
    """``RandomCrop`` of ``RandomCrop(64, padding=4)`` (``T.`` or ``v2.`` left out)."""
    return origin.transform.split("(", 1)[0].rsplit(".", 1)[-1].strip()


def in_library_words(error: RunError, origin: Origin | None) -> RunError:
    """`error` said as the library of the transform its node was ported from would say it,
    where that library fails the same way; else `error` itself. DALI's text stays beside it."""
    if origin is None or origin.edited:
        # edited since the port, the node is the user's DALI arguments: DALI's words fit them
        return error
    failure = PORTED_FAILURES.get((origin.library, transform_class(origin)))
    text = error.dali_message.lower()
    if failure is None or not any(mark in text for mark in failure.marks):
        return error
    return RunError(
        error.node,
        error.dali_message,
        fix=failure.fix,
        files=error.files,
        explanation=f"{origin.library} {origin.transform}: {failure.explanation}",
    )
