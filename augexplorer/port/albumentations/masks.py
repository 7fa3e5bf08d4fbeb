"""Whether an albumentations pipeline transforms masks beside its images, read from the mask
arguments its calls give (``mask_interpolation``, ``fill_mask``), and what the port says of them.

albumentations takes a mask with every call (``t(image=image, mask=mask)``) without the
Compose declaring it, so a segmentation pipeline reads like a classification one; its mask
arguments are what tells them apart. The graph a port makes reads images and class labels: a
pipeline shown to move masks has them said as left out, as its boxes and keypoints are.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from ..model import PortResult, Refusal, Symbol, TransformCall, written
from .arguments import CV_INTERPOLATION_NAMES
from .registry import LIBRARY

# The arguments that concern masks only, with albumentations' defaults (the panel's handling:
# nearest-neighbour, new area filled with 0); 1.x's names too (2.x ignores them, they still
# say the pipeline moves masks)
MASK_DEFAULTS: dict[str, object] = {
    "mask_interpolation": 0,
    "fill_mask": 0,
    "mask_value": None,
    "mask_fill_value": None,
    "transpose_mask": False,  # ToTensorV2's: the mask to CHW as the image
}
INTER_NEAREST = 0
INTER_NEAREST_EXACT = 6  # OpenCV's nearest with rounding fixed: the same labels


def mask_arguments(compose: TransformCall) -> list[tuple[TransformCall, str]]:
    """Every (call, argument) of the pipeline that concerns masks: as written in a file, or,
    for a live object (which holds every default), where it differs from the default."""
    found = []
    for call in compose.walk():
        for name, default in MASK_DEFAULTS.items():
            if name not in call.kwargs:
                continue
            value = call.kwargs[name]
            if value is None:  # not given (a Compose's mask_interpolation: each its own)
                continue
            if call.line is not None or not _same(value, default):
                found.append((call, name))
    return found


def masks_left_out(compose: TransformCall, called_at: Sequence[str] = ()) -> Refusal | None:
    """The pipeline's masks as a part the port leaves out, naming what shows them (its mask
    arguments; `called_at`: the file's calls with a mask, ``line 12: t(image=..., mask=...)``)
    and the arguments the panel's mask handling would not follow; None where nothing shows."""
    found = mask_arguments(compose)
    evidence = [_shown(call, name) for call, name in found[:4]]
    if len(found) > 4:
        evidence.append(f"{len(found) - 4} more mask arguments")
    evidence += [f"the call at {call}" for call in called_at[:2]]
    if not evidence:
        return None
    unfollowed = [_shown(call, name) for call, name in found if not _as_the_panel_does(call, name)]
    differs = f"; there {', '.join(unfollowed)} would not be followed" if unfollowed else ""
    reason = (
        f"the port carries the images, not their masks: this pipeline moves masks with its "
        f"images ({'; '.join(evidence)}), and the graph reads images and class labels, so the "
        "masks would no longer match the images they were made for (fix: open the graph on "
        "annotated data, a COCO file or a YOLO folder with polygon_masks, where the panel "
        "carries masks through the same flips, crops, resizes and warps with nearest-neighbour "
        f"interpolation, new area filled with 0{differs}: docs/annotations.md)"
    )
    call = TransformCall(compose.library, compose.name, line=compose.line)
    return Refusal(call, reason, part="masks")


def with_masks_called(
    result: PortResult, compose: TransformCall, called_at: Sequence[str]
) -> PortResult:
    """`result` with its masks said left out where the file calls the pipeline with masks
    (`called_at`), which the pipeline's own arguments may not show (a flip and a crop)."""
    if not called_at or compose.library != LIBRARY:
        return result
    refusal = masks_left_out(compose, called_at)
    assert refusal is not None
    kept = [r for r in result.refusals if r.part != "masks"]
    refusals = (*kept, refusal)
    spec = result.spec.with_not_ported(r.left_out(LIBRARY) for r in refusals)
    return dataclasses.replace(result, spec=spec, refusals=refusals)


def _same(value: object, default: object) -> bool:
    if isinstance(value, (int, float)) and isinstance(default, (int, float)):
        return float(value) == float(default)
    return value == default


def _as_the_panel_does(call: TransformCall, name: str) -> bool:
    """Whether the panel's masks (nearest-neighbour, filled with 0) are what the argument
    asks for; 1.x's names, which 2.x ignores, ask for nothing."""
    value = call.kwargs[name]
    if name == "mask_interpolation":
        if isinstance(value, Symbol):
            return value.last in ("INTER_NEAREST", "INTER_NEAREST_EXACT")
        return value in (INTER_NEAREST, INTER_NEAREST_EXACT)
    if name == "fill_mask":
        return _same(value, 0)
    return True


def _shown(call: TransformCall, name: str) -> str:
    value = call.kwargs[name]
    text = written(value)
    if name == "mask_interpolation" and isinstance(value, int) and not isinstance(value, bool):
        text = f"cv2.INTER_{CV_INTERPOLATION_NAMES.get(value, value)}"
    where = f", line {call.line}" if call.line is not None else ""
    return f"{call.name}'s {name}={text}{where}"
