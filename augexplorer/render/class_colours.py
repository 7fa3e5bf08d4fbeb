"""Pixel masks drawn as class colours: a mask node's class ids (0 for background, 1..N for the
classes) drawn as grey levels are near black, and two classes a grey level apart look the same.

A node whose output is masks (the segmentation preset's ``mask_cast`` ... ``mask_rotate``, or a
COCO source's masks output itself) is drawn with one colour per class id, the colours of the
overlays' masks (:mod:`.palette`), background a dark grey: the same id has the same colour on
every tile and in the large view. Only integer masks are drawn so; a float mask (interpolated,
normalized) is drawn as the values it holds, since its values are no longer class ids.
"""

from __future__ import annotations

import numpy as np

from ..annotations.tracks import chain_reads, image_chain
from ..spec import GraphSpec, Ref, Source
from .display import to_hwc
from .palette import class_rgb

# Class id 0 (no object): dark, so the classes stand out on it.
BACKGROUND = (32, 32, 36)
CLASS_IDS_SAID = "class ids drawn as colours (0 background, dark; each id its own colour)"


def is_mask_output(spec: GraphSpec, ref: Ref) -> bool:
    """Whether `ref` holds pixel masks: a source's masks output, or a node whose chain of first
    inputs starts from one (the masks' own resize, crop, flip and rotation)."""
    if ref.node not in spec:
        return False
    node = spec.node(ref.node)
    if isinstance(node, Source):
        return node.output_name(ref.output) == "masks"
    return ref.output == 0 and chain_reads(spec, image_chain(spec, ref.node)) == "masks"


def draws_classes(sample: np.ndarray, layout: str) -> bool:
    """Whether `sample` can be drawn as class colours: whole numbers, one channel."""
    array = np.asarray(sample)
    if array.dtype.kind not in "iu" or array.ndim not in (2, 3):
        return False
    return bool(to_hwc(array, layout).shape[2] == 1)


def class_pixels(sample: np.ndarray, layout: str) -> np.ndarray:
    """`sample` (integer class ids, one channel) as (H, W, 3) uint8: the background dark, each
    id its overlay colour (negative ids, never a class, drawn as background)."""
    ids = to_hwc(np.asarray(sample), layout)[..., 0].astype(np.int64)
    top = max(int(ids.max(initial=0)), 0)
    lut = np.empty((top + 1, 3), np.uint8)
    lut[0] = BACKGROUND
    for label in range(1, top + 1):
        lut[label] = class_rgb(label)
    return lut[np.clip(ids, 0, top)]
