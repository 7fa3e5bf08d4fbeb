"""albumentations' CLAHE as DALI's ``clahe``: OpenCV's contrast-limited adaptive histogram
equalization of the lightness (DALI's ``luma_only``), tile for tile.

albumentations draws the clip limit per image, uniformly over its range; DALI's ``clahe`` takes
one clip limit for the whole pipeline. A range is cut into equal parts no wider than
`PART_WIDTH`, each with a ``clahe`` node at its centre that runs only on the images that drew its
part: every image is equalized once, at most a quarter of a clip limit from albumentations' draw.
Measured against albumentations 2.0.8 (tests/test_port_albumentations_parity.py): at a fixed
clip limit the same pixels (max 0 grey levels, four clip limits and tile grids on 12 photos).
"""

from __future__ import annotations

import math

from ...expressions.nodes import constant
from ...spec import Clause, Node, Ref
from .arguments import Args, NotPorted
from .nodes import expr, step
from .registry import IMAGE, Mapped, mapping

# The widest part of a clip-limit range one clahe node stands for.
PART_WIDTH = 0.5
MOST_PARTS = 8


def parts(low: float, high: float) -> list[float]:
    """The clip limits standing for the range `low` to `high`: the centres of its equal parts."""
    if low == high:
        return [low]
    count = min(MOST_PARTS, max(2, math.ceil((high - low) / PART_WIDTH - 1e-9)))
    width = (high - low) / count
    return [low + width * (index + 0.5) for index in range(count)]


@mapping("CLAHE", positional=("clip_limit", "tile_grid_size"))
def clahe(args: Args) -> Mapped:
    low, high = args.pair("clip_limit", 4.0, least=1.0)
    if low < 1 or high < low:
        raise NotPorted(f"clip_limit=({low}, {high}): albumentations takes 1 <= low <= high")
    tiles = args.get("tile_grid_size", (8, 8))
    if not (
        isinstance(tiles, (tuple, list))
        and len(tiles) == 2
        and all(isinstance(t, int) and not isinstance(t, bool) and t >= 1 for t in tiles)
    ):
        raise NotPorted(f"tile_grid_size={tiles!r} is not two whole numbers of 1 or more")
    # OpenCV's tileGridSize is (columns, rows), as albumentations hands it over
    grid = {"tiles_x": int(tiles[0]), "tiles_y": int(tiles[1]), "luma_only": True}
    limits = parts(low, high)
    if len(limits) == 1:
        node = step("clahe", "clahe", {**grid, "clip_limit": limits[0]})
        return Mapped((node,), "exact", ("the same pixels as albumentations' (OpenCV's CLAHE)",))
    nodes: list[Node] = [
        constant("clahe_parts", list(range(len(limits))), "INT32"),
        Node("clahe_part", "random.choice", inputs=(Ref("clahe_parts"),)),
    ]
    reads = IMAGE
    for index, limit in enumerate(limits):
        nodes.append(expr(f"clahe_part_{index}", f"clahe_part == {index}", ["clahe_part"]))
        nodes.append(
            Node(
                f"clahe_{index}",
                "clahe",
                inputs=(Ref(reads),),
                args={**grid, "clip_limit": round(limit, 4)},
                when=(Clause(Ref(f"clahe_part_{index}")),),
            )
        )
        reads = f"clahe_{index}"
    width = (high - low) / len(limits)
    return Mapped(
        tuple(nodes),
        "approximate",
        (
            "the same pixels as albumentations' (OpenCV's CLAHE) for the same clip limit; DALI "
            "takes one clip limit per pipeline, not per image, so the range is cut in "
            f"{len(limits)} parts of {width:g} and each image drawn uniformly to the centre of "
            f"one (at most {width / 2:g} from albumentations' uniform draw)",
        ),
    )
