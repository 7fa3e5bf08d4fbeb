"""COCO pixel masks given, still int32, to an operator that takes no int32 data.

``readers.coco(pixelwise_masks=True)`` gives its masks as int32 class ids. DALI's resize (and
``random_resized_crop``, ``resize_crop_mirror``, ``experimental.warp_perspective``, ``paste``)
takes uint8, int16, uint16 or float, and fails the first batch (measured on DALI 2.4: "Unsupported
type: int32"), where flip, crop, slice, rotate, warp_affine, transpose and pad move int32 as it
is. A segmentation pipeline that resizes the masks as read is refused at import, naming the call,
its line and the cast to write, not met later as a resize error that blames its ``dtype``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .coco_upstream import coco_output_of, made_by
from .protobuf import OpRecord, Port
from .refusals import Construct

# Operators DALI 2.4 runs on no int32 input, measured with readers.coco's pixel masks, and the
# types they take.
_RESAMPLED = "uint8, int16, uint16 or float"
NO_INT32 = {
    "resize": _RESAMPLED,
    "random_resized_crop": _RESAMPLED,
    "resize_crop_mirror": _RESAMPLED,
    "experimental.warp_perspective": _RESAMPLED,
    "paste": "uint8 only",
}
# Operators that give their first input's int32 masks on as int32.
KEEPS_INT32 = frozenset(
    {
        "flip",
        "crop",
        "slice",
        "rotate",
        "warp_affine",
        "transpose",
        "pad",
        "copy",
        "reshape",
        "_conditional.split",
        "_conditional.merge",
    }
)
_MASKS_OUTPUT = 3  # readers.coco: images, boxes, labels, masks (pixelwise_masks=True)


def int32_masks(
    ops: list[OpRecord], name_of: Callable[[OpRecord], str]
) -> tuple[OpRecord, str] | None:
    """The first operator of `ops` that takes no int32 data and is given a COCO reader's pixel
    masks as they are read (int32), with what to say of it; None where there is none."""
    made = made_by(ops)
    for op in ops:
        name = name_of(op)
        data = [port for port in op.inputs if not port.is_argument]
        if name not in NO_INT32 or not data or not _reads_coco_masks(data[0].name, made, name_of):
            continue
        return op, name
    return None


def int32_masks_refused(name: str) -> Construct:
    """What to say of operator `name` given the reader's int32 pixel masks."""
    short = name.rsplit(".", 1)[-1]
    return Construct(
        f"fn.{name}",
        why=f"it is given fn.readers.coco's pixel masks as the reader gives them, int32 class "
        f"ids, and DALI's {short} takes {NO_INT32[name]}, so DALI fails the first batch on "
        "int32 data",
        fix="cast the masks first, masks = fn.cast(masks, dtype=types.UINT8) (class ids up to "
        "255), and resample them with interp_type=types.INTERP_NN",
    )


def _reads_coco_masks(
    output: str, made: dict[str, tuple[OpRecord, int]], name_of: Callable[[OpRecord], str]
) -> bool:
    found = coco_output_of(output, made, name_of, _keeps_int32)
    if found is None:
        return False
    reader, index = found
    masks = reader.args.get("pixelwise_masks")
    return index == _MASKS_OUTPUT and masks is not None and bool(masks.value())


def _keeps_int32(name: str, index: int, data: Sequence[Port]) -> str | None:
    """The input `name`'s output `index` passes int32 masks on from, unchanged in type."""
    if name not in KEEPS_INT32 or not data:
        return None
    if index != 0 and not name.startswith("_conditional."):  # a split's either side
        return None
    return data[0].name
