"""What each operator's first input takes, and what its output is.

The layouts come from DALI's schemas where they list them (``OpInfo.input_layouts``). What the
schemas do not say (which operators read encoded files, which want uint8, the layouts of the
operators whose schema lists none) is the small curated table below, measured on DALI 2.4's CPU
backends with HWC/CHW uint8/float images and encoded bytes (``tests/test_insertion.py`` runs
every image operator the table lets the picker place).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from .auto_aug import AUTO_AUG_OPS
from .model import OpInfo

Kind = Literal["encoded", "image", "matrix", "number", "labels", "any", "other"]

# 2-D image layouts the panel works with; video and volume layouts are not offered.
IMAGE_LAYOUTS = ("HWC", "CHW", "HW")

DECODERS = frozenset(
    {"decoders.image", "decoders.image_crop", "decoders.image_random_crop", "decoders.image_slice"}
)
# Operators that read encoded files other than the decoders.
READS_ENCODED = DECODERS | {"peek_image_shape"}

# Image operators whose schema lists no layouts: the layouts they handle correctly.
CURATED_LAYOUTS: dict[str, tuple[str, ...]] = {
    "gaussian_blur": ("HWC", "CHW", "HW"),
    "laplacian": ("HWC", "CHW", "HW"),
    "noise.gaussian": ("HWC", "CHW", "HW"),
    "noise.shot": ("HWC", "CHW", "HW"),
    "noise.salt_and_pepper": ("HWC", "CHW"),  # fails on HW
    "normalize": ("HWC", "CHW", "HW"),
    "cast": ("HWC", "CHW", "HW"),
    "transpose": ("HWC", "CHW"),
    "pad": ("HWC", "CHW", "HW"),
    "slice": ("HWC", "CHW", "HW"),
    "erase": ("HWC", "CHW", "HW"),
    "grid_mask": ("HWC",),  # crashes the process on 1-D input; documented for HWC
}
# Image operators that refuse float input.
UINT8_ONLY = frozenset(
    {"jpeg_compression_distortion", "color_space_conversion", "clahe", "equalize", "paste"}
)
# Schemas list image layouts for these, but they need more than an image (a Bayer pattern,
# paste ids, three inputs): not offered as image steps.
NOT_IMAGE_STEPS = frozenset({"debayer", "multi_paste", "experimental.remap", "optical_flow"})
# Operators that read whatever they are given.
ANY_INPUT = frozenset({"python_function", "copy"})
# Image steps that convert or pad any data, not only images (labels to int64 for PyTorch, a
# coin to a float weight, a batch's labels padded to its most boxes): they take an image where
# the picker places them, and anything else where a graph (an imported pipeline) gives them
# that; they keep its kind.
ANY_DATA_TOO = frozenset({"cast", "pad"})
# What the picker places on masks (one channel of class ids): steps that move or cast the ids
# and keep them ids; a colour operator wants three channels, and a blur makes ids of no class.
MASK_STEPS = frozenset({"crop", "flip", "resize", "rotate", "pad", "slice", "transpose", "cast"})


@dataclass(frozen=True)
class Data:
    """What flows out of a node: its kind and, for images, layout and type (DALI's names)."""

    kind: Kind
    layout: str = ""
    dtype: str = ""  # "UINT8", "FLOAT", ...; empty when not known
    # worked out from what the operator does with its inputs (an expression over images, a
    # stack of their channels), not from its schema: enough for the picker, not for a check
    inferred: bool = False
    # pixel masks: one class id per pixel (a COCO source's masks and what moves them), images
    # to the operators that read them, but resampled only with nearest-neighbour interpolation
    mask: bool = False

    def describe(self) -> str:
        if self.mask:
            return " ".join(p for p in (self.layout, self.dtype, "masks (class ids)") if p)
        if self.kind == "encoded":
            return "encoded image files (bytes)"
        if self.kind == "image":
            return " ".join(p for p in (self.layout, self.dtype, "images") if p)
        return {
            "matrix": "an affine matrix",
            "number": "numbers",
            "labels": "labels",
            "any": "data",
        }.get(self.kind, "data that is not images")


DECODED = Data("image", "HWC", "UINT8")


@dataclass(frozen=True)
class Takes:
    """What an operator's first input accepts: a kind and, for images, layouts and types."""

    kind: Kind
    layouts: tuple[str, ...] = ()  # empty: any
    dtypes: tuple[str, ...] = ()  # empty: any
    optional: bool = False  # the operator also runs with no input (transforms, random)

    def describe(self) -> str:
        if self.kind == "image":
            dtypes = "/".join(self.dtypes)
            return " ".join(p for p in ("/".join(self.layouts), dtypes, "images") if p)
        return Data(self.kind).describe()


def takes(op: OpInfo) -> Takes | None:
    """What `op` reads; None for operators the panel does not place (audio, boxes, ...)."""
    name = op.name
    if op.max_inputs == 0:
        return None
    if name in READS_ENCODED:
        return Takes("encoded")
    if name in AUTO_AUG_OPS:
        return Takes("image", ("HWC",), ("UINT8",))
    if name in ANY_INPUT:
        return Takes("any", optional=op.min_inputs == 0)
    if name.startswith("transforms.") and name != "transforms.combine":
        return Takes("matrix", optional=True)
    if name.startswith("random."):
        # draws read at most a shape to copy: added on their own, as an argument's source
        return Takes("number", optional=True) if op.min_inputs == 0 else None
    if name in NOT_IMAGE_STEPS:
        return None
    layouts = tuple(layout for layout in op.input_layouts if layout in IMAGE_LAYOUTS)
    if not layouts:
        layouts = CURATED_LAYOUTS.get(name, ())
    if not layouts:
        return None
    return Takes("image", layouts, ("UINT8",) if name in UINT8_ONLY else ())


def is_image_step(op: OpInfo) -> bool:
    """An operator that reads images and writes images: what the picker places in a chain."""
    found = takes(op)
    # The auto_aug policies are image steps too (the picker places them by `takes`), but each
    # run of one builds a pipeline (about a second): the every-placement tests that use this
    # list leave them out, and tests/test_widgets_editing.py places them on their own.
    return found is not None and found.kind == "image" and op.name not in AUTO_AUG_OPS


def refusal(op: OpInfo, data: Data, *, placing: bool = False) -> str | None:
    """Why `op` cannot read `data` (None: it can); `placing`: as the picker places it, an image
    step (a cast converts labels in a graph, but the picker offers it on images only)."""
    want = takes(op)
    if want is None:
        return f"{op.name} does not read images (it is not an image step)"
    # "any" is what Python code writes: nothing is known of it, so nothing is refused.
    if want.kind == "any" or data.kind == "any" or (want.kind == data.kind == "encoded"):
        return None
    if op.name.startswith("random."):  # a draw reads only its input's shape (shape_like)
        return None
    if op.name in ANY_DATA_TOO and data.kind not in ("image", "encoded") and not placing:
        return None  # (a cast of encoded files is a decoder's place mistaken)
    if want.kind != data.kind:
        return f"{op.name} takes {want.describe()}; here there are {data.describe()}"
    if placing and data.mask and op.name not in MASK_STEPS:
        return (
            f"{op.name} does not keep class ids: on {data.describe()} the picker places "
            f"{', '.join(sorted(MASK_STEPS))}"
        )
    if want.layouts and data.layout and data.layout not in want.layouts:
        return f"{op.name} takes {'/'.join(want.layouts)} images; here they are {data.layout}"
    if want.dtypes and data.dtype and data.dtype not in want.dtypes:
        return f"{op.name} takes {'/'.join(want.dtypes)} images; here they are {data.dtype}"
    if want.dtypes and data.inferred and not data.dtype:  # an expression's type: unknown here
        return (
            f"{op.name} takes {'/'.join(want.dtypes)} images; the type here is not known (fix: "
            "cast to UINT8 before it)"
        )
    return None


def output_of(op: OpInfo | None, args: Mapping[str, Any], data: Data | None) -> Data:
    """What `op` with `args` writes when it reads `data` (None: no input)."""
    if op is None:
        return Data("other")
    name = op.name
    if name in DECODERS:
        return DECODED
    if name.startswith("transforms."):
        return Data("matrix")
    if name.startswith("random."):
        return Data("number")
    if name in ANY_INPUT:
        return data if data is not None and name == "copy" else Data("any")
    if name in AUTO_AUG_OPS:  # a policy keeps its images' layout, size and type
        return data if data is not None and data.kind == "image" else Data("other")
    if name in ANY_DATA_TOO and data is not None and data.kind not in ("image", "encoded"):
        return Data(data.kind)  # labels cast to int64 are labels still
    if not is_image_step(op) or data is None or data.kind != "image":
        return Data("other")
    layout, dtype = data.layout, data.dtype
    if name == "crop_mirror_normalize":
        layout = str(args.get("output_layout", "CHW"))
        dtype = str(args.get("dtype", "FLOAT"))
    elif name == "normalize":
        dtype = str(args.get("dtype", "FLOAT"))
    elif name == "transpose":
        layout = _transposed(layout, args)
    elif isinstance(args.get("dtype"), str):
        dtype = str(args["dtype"])
    return Data("image", layout, dtype, inferred=data.inferred)


# Operators outside the image steps that keep images images, as the ports use them: elementwise
# arithmetic (``expression``), joining channels (``cat``, ``stack``), a convolution with a
# kernel built in the graph (``filter``), a per-value table (``lookup_table``).
PASSES_IMAGES = frozenset({"expression", "cat", "stack", "filter", "lookup_table"})


def passed_on(name: str, args: Mapping[str, Any], inputs: Sequence[Data]) -> Data:
    """What operator `name` (one of :data:`PASSES_IMAGES`) writes from `inputs`."""
    images = [d for d in inputs if d.kind == "image"]
    if not images:
        return Data("any") if any(d.kind == "any" for d in inputs) else Data("other")
    first = images[0]
    if name == "filter":
        return Data("image", first.layout, str(args.get("dtype", first.dtype)), inferred=True)
    if name == "lookup_table":
        return Data("image", first.layout, str(args.get("dtype", "UINT8")), inferred=True)
    if name == "cat":
        return Data("image", first.layout, first.dtype, inferred=True)
    if name == "stack":  # channels stacked back into an image: the axis names its place
        axis, axis_name = args.get("axis"), args.get("axis_name")
        layout = first.layout
        if isinstance(axis, int) and isinstance(axis_name, str) and 0 <= axis <= len(layout):
            layout = layout[:axis] + axis_name + layout[axis:]
        else:
            layout = ""
        return Data("image", layout, first.dtype, inferred=True)
    # an expression: elementwise over the image; the type follows DALI's promotions, so it is
    # left unknown
    return Data("image", _subscripted(str(args.get("expression", "")), first.layout), "", True)


def _subscripted(expression: str, layout: str) -> str:
    """The layout an expression keeps of its image's: all of it, or the axes its subscript
    slices (``img[:, :, 0:1]`` keeps HWC, ``img[:, :, k]`` gives HW); unknown ("") otherwise."""
    found = re.findall(r"\[([^\[\]]*)\]", expression)
    if not found:
        return layout
    kept = set()
    for inside in found:
        parts = inside.split(",")
        if len(parts) != len(layout):
            return ""
        kept.add("".join(axis for axis, part in zip(layout, parts, strict=True) if ":" in part))
    return kept.pop() if len(kept) == 1 else ""


def _transposed(layout: str, args: Mapping[str, Any]) -> str:
    if isinstance(args.get("output_layout"), str) and args["output_layout"]:
        return str(args["output_layout"])
    perm = args.get("perm")
    if args.get("transpose_layout") is False or not isinstance(perm, list):
        return layout
    if len(perm) != len(layout) or sorted(perm) != list(range(len(layout))):
        return ""
    return "".join(layout[int(i)] for i in perm)
