"""albumentations' XYMasking as DALI's ``erase``: vertical stripes as regions along W alone
(every row), horizontal ones along H alone (every column), drawn as albumentations 2.x draws
them (``XYMasking.get_params_dependent_on_data``): a count uniform over whole numbers in
`num_masks_x` (a single number n is 0..n, as its schema widens it), then for each stripe a
length uniform over whole pixels in `mask_x_length` (likewise) and a start uniform over
``0..width - length``. Stripes beyond the count drawn are sized 0. Measured by
``tests/test_port_albumentations_grid.py``."""

from __future__ import annotations

from typing import Any

from ...spec import Node, Ref
from .arguments import Args, NotPorted
from .nodes import const, expr, step, uniform_node, values_node
from .registry import IMAGE, Mapped, mapping

Range = tuple[int, int]


def _whole_range(args: Args, name: str) -> Range:
    """An argument as albumentations' NonNegativeIntRangeType reads it: n is (0, n)."""
    low, high = args.pair(name, 0, least=0.0)
    if low != int(low) or high != int(high) or low < 0 or high < low:
        raise NotPorted(
            f"XYMasking: {name}={args.get(name)!r}: albumentations takes whole numbers 0 <= low "
            "<= high and fails on it"
        )
    return int(low), int(high)


def _stripes(axis: str, counts: Range, lengths: Range, fill: Any, reads: str) -> list[Node]:
    """The nodes erasing up to counts[1] stripes across `axis` ("x": vertical stripes along W,
    "y": horizontal ones along H), the erase reading node `reads`."""
    name = f"{axis}_mask"
    most = counts[1]
    side = "1" if axis == "x" else "0"
    low, high = lengths
    nodes: list[Node] = [
        expr(f"{name}_room", f"image.shape()[{side}] * 1.0", [IMAGE]),
        uniform_node(f"{name}_draw", 0.0, 1.0, shape=2 * most),
        # py_random.randint(low, high): both ends included
        expr(
            f"{name}_length",
            f"math.floor({low} + {name}_draw[0:{most}] * {high - low + 1})",
            [f"{name}_draw"],
        ),
        expr(
            f"{name}_start",
            f"math.floor({name}_draw[{most}:] * ({name}_room - {name}_length + 1))",
            [f"{name}_draw", f"{name}_room", f"{name}_length"],
        ),
    ]
    size = f"{name}_length"
    if counts[0] < counts[1]:
        nodes += [
            values_node(f"{name}_count", [float(k) for k in range(counts[0], most + 1)]),
            const(f"{name}_index", [float(i) for i in range(most)]),
            expr(
                f"{name}_kept",
                f"{name}_length * ({name}_index < {name}_count)",
                [f"{name}_length", f"{name}_index", f"{name}_count"],
            ),
        ]
        size = f"{name}_kept"
    nodes.append(
        step(
            name,
            "erase",
            {
                "anchor": Ref(f"{name}_start"),
                "shape": Ref(size),
                "axis_names": "W" if axis == "x" else "H",
                "fill_value": fill,
            },
            reads=reads,
        )
    )
    return nodes


@mapping(
    "XYMasking",
    positional=("num_masks_x", "num_masks_y", "mask_x_length", "mask_y_length", "fill"),
)
def xy_masking(args: Args) -> Mapped:
    lengths = {axis: args.get(f"mask_{axis}_length", 0) for axis in "xy"}
    if all(isinstance(v, int) and not isinstance(v, bool) and v <= 0 for v in lengths.values()):
        raise NotPorted(
            "XYMasking needs mask_x_length or mask_y_length above 0: albumentations fails "
            "without one (fix: mask_x_length=(10, 20), for one)"
        )
    if isinstance(args.get("fill", 0), str):
        raise NotPorted(
            f"fill={args.get('fill')!r} (random values or inpainting) is not ported (fix: a "
            "number, or one per channel)"
        )
    fill = args.fill()
    nodes: list[Node] = []
    reads = IMAGE
    measures: set[str] = set()
    for axis in "xy":
        counts = _whole_range(args, f"num_masks_{axis}")
        length = _whole_range(args, f"mask_{axis}_length")
        if counts[1] == 0 or length == (0, 0):
            continue  # albumentations draws no stripe across this axis
        nodes += _stripes(axis, counts, length, fill, reads)
        reads = f"{axis}_mask"
        measures.add(f"{axis}_mask_room")
    if not nodes:  # every count or length is 0: the image as it is
        return Mapped((), "exact", ("no node: no stripe is ever drawn",))
    return Mapped(tuple(nodes), "distribution", DIFFERENCES, frozenset(measures))


# Measured by tests/test_port_albumentations_grid.py against albumentations 2.0.8 on a
# 200 x 300 image, 320 draws a side
DIFFERENCES = (
    "stripes of whole rows and columns filled as albumentations fills them, drawn as it draws "
    "them (a count, then each stripe's length and start, over whole pixels), by DALI's "
    "generator: KS over 320 draws, p 0.14 to 0.92 for the share of rows and of columns erased "
    "and p 0.20 to 0.82 for the first erased one; a stripe's length chi-square p 0.25",
    "where mask_x_length's top exceeds the image's width (mask_y_length's its height) "
    "albumentations fails; the port erases the whole image wherever a stripe drawn is longer "
    "than the side (measured on a 20 x 30 image)",
)
