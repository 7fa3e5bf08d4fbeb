"""albumentations' GridDropout as DALI's ``erase``: one hole per cell of a grid, built as
albumentations 2.x builds it (``GridDropout.get_params_dependent_on_data``,
``generate_grid_holes``, ``split_uniform_grid``):

- the grid: ``holes_number_xy`` as (rows, columns) in that order (albumentations reads its x
  count as rows), else the image's size over a unit (``unit_size_range``: one unit drawn per
  image, uniform over whole pixels, the top excluded; neither given: ``max(2, side // 10)`` per
  axis);
- each axis cut into almost equal parts (``side // n``, the first ``side % n`` one pixel
  longer) in a random order: which parts are the longer ones is drawn per image, each ranked
  by a uniform draw (the comparisons of every pair, DALI's broadcasting), and a part starts
  where the parts before it end (a sum over pairs again, as DALI has no cumulative sum);
- a hole per cell of ``int(clip(cell * ratio, 1, cell - 1))`` pixels a side, placed at a
  uniform whole-pixel offset in its cell (``random_offset``) or at ``shift_xy``, kept inside
  the image.

The vectors' lengths follow each image's grid (slices of a constant 0, 1, 2, ... as long as
:data:`MOST_CELLS`). Measured by ``tests/test_port_albumentations_grid.py``.
"""

from __future__ import annotations

from ...expressions.nodes import constant
from ...spec import Node, Ref
from .arguments import Args, NotPorted
from .nodes import expr, step
from .registry import IMAGE, Mapped, mapping

# The most rows or columns a grid may have (a 2 px unit of an image 8192 px a side)
MOST_CELLS = 64 * 64


def _axis(axis: str, side: int) -> list[Node]:
    """The nodes giving axis `axis`'s ("y": rows, "x": columns) part starts and lengths as
    vectors ``{axis}_start`` and ``{axis}_part`` (as long as the grid's count on that axis)."""
    name = f"grid_{axis}"
    size = f"grid_size[{side}]"
    nodes: list[Node] = [
        Node(f"{name}_n", "cast", inputs=(Ref(f"{name}_count"),), args={"dtype": "INT32"}),
        expr(f"{name}_index", f"grid_arange[0:{name}_n]", ["grid_arange", f"{name}_n"]),
        Node(
            f"{name}_key",
            "random.uniform",
            inputs=(Ref(f"{name}_index"),),
            args={"range": [0.0, 1.0]},
        ),
        Node(f"{name}_key_col", "reshape", inputs=(Ref(f"{name}_key"),), args={"shape": [-1, 1]}),
        Node(f"{name}_key_row", "reshape", inputs=(Ref(f"{name}_key"),), args={"shape": [1, -1]}),
        # each part's rank among the draws: the longer parts are the lowest ranks
        expr(
            f"{name}_below",
            f"({name}_key_row < {name}_key_col) * 1",
            [f"{name}_key_row", f"{name}_key_col"],
        ),
        Node(f"{name}_rank", "reductions.sum", inputs=(Ref(f"{name}_below"),), args={"axes": [1]}),
        expr(
            f"{name}_part",
            f"math.floor({size} / {name}_count) + ({name}_rank < {size} - math.floor({size} / "
            f"{name}_count) * {name}_count)",
            ["grid_size", f"{name}_count", f"{name}_rank"],
        ),
        Node(f"{name}_part_row", "reshape", inputs=(Ref(f"{name}_part"),), args={"shape": [1, -1]}),
        Node(
            f"{name}_index_col", "reshape", inputs=(Ref(f"{name}_index"),), args={"shape": [-1, 1]}
        ),
        Node(
            f"{name}_index_row", "reshape", inputs=(Ref(f"{name}_index"),), args={"shape": [1, -1]}
        ),
        # a part starts where the parts before it end
        expr(
            f"{name}_before",
            f"{name}_part_row * ({name}_index_row < {name}_index_col)",
            [f"{name}_part_row", f"{name}_index_row", f"{name}_index_col"],
        ),
        Node(
            f"{name}_start", "reductions.sum", inputs=(Ref(f"{name}_before"),), args={"axes": [1]}
        ),
    ]
    return nodes


@mapping(
    "GridDropout",
    positional=("ratio", "random_offset", "unit_size_range", "holes_number_xy", "shift_xy"),
)
def grid_dropout(args: Args) -> Mapped:
    ratio = args.number("ratio", 0.5)
    if not 0 < ratio <= 1:
        raise NotPorted(f"ratio={ratio:g}: albumentations takes 0 < ratio <= 1 and fails on it")
    fill = args.get("fill", 0)
    if isinstance(fill, str):
        raise NotPorted(
            f"fill={fill!r} (random values or inpainting) is not ported (fix: a number, or one "
            "per channel)"
        )
    fill_value = args.fill()
    random_offset = bool(args.get("random_offset", True))
    shift = args.get("shift_xy", (0, 0))
    holes = args.get("holes_number_xy")
    units = args.get("unit_size_range")
    nodes: list[Node] = [
        expr("grid_size", "image.shape()[0:2] * 1.0", [IMAGE]),
        # 0, 1, ..., MOST_CELLS - 1 as tens and units of base 64 (two short constants in the
        # graph's file, not one of 4096 values)
        constant("grid_high", [float(64 * i) for i in range(64)], "FLOAT", shape=[64, 1]),
        constant("grid_low", [float(i) for i in range(64)], "FLOAT", shape=[1, 64]),
        expr("grid_square", "grid_high + grid_low", ["grid_high", "grid_low"]),
        Node("grid_arange", "reshape", inputs=(Ref("grid_square"),), args={"shape": [-1]}),
    ]
    if holes:
        rows, columns = (int(v) for v in holes)  # albumentations' x count is the rows'
        nodes += [
            # as scalars per image, as the other grids' counts are
            expr("grid_y_count", f"grid_size[0] * 0 + {rows}", ["grid_size"]),
            expr("grid_x_count", f"grid_size[1] * 0 + {columns}", ["grid_size"]),
        ]
    elif units is not None:
        low, high = (int(v) for v in units)
        if low < 2 or high < low:
            raise NotPorted(
                f"unit_size_range={tuple(units)!r}: albumentations takes 2 <= low <= high and "
                "fails on it"
            )
        if high == low:  # integers(low, low) fails in numpy: albumentations fails there
            raise NotPorted(
                f"unit_size_range=({low}, {high}): albumentations draws integers(low, high), "
                "which fails where they are equal (fix: (low, low + 1) for a unit of low)"
            )
        nodes += [
            Node(
                "grid_unit",
                "random.uniform",
                args={"values": [float(v) for v in range(low, high)]},
            ),
            expr(
                "grid_y_count", "math.floor(grid_size[0] / grid_unit)", ["grid_size", "grid_unit"]
            ),
            expr(
                "grid_x_count", "math.floor(grid_size[1] / grid_unit)", ["grid_size", "grid_unit"]
            ),
        ]
    else:
        nodes += [
            expr(
                "grid_y_count",
                "math.floor(grid_size[0] / math.max(2, math.floor(grid_size[0] / 10)))",
                ["grid_size"],
            ),
            expr(
                "grid_x_count",
                "math.floor(grid_size[1] / math.max(2, math.floor(grid_size[1] / 10)))",
                ["grid_size"],
            ),
        ]
    nodes += _axis("y", 0) + _axis("x", 1)
    nodes += [
        Node("grid_y_start_col", "reshape", inputs=(Ref("grid_y_start"),), args={"shape": [-1, 1]}),
        Node("grid_y_part_col", "reshape", inputs=(Ref("grid_y_part"),), args={"shape": [-1, 1]}),
        Node("grid_x_start_row", "reshape", inputs=(Ref("grid_x_start"),), args={"shape": [1, -1]}),
        # every cell: rows by columns
        expr(
            "grid_cell_h",
            "grid_y_part_col + grid_x_part_row * 0",
            ["grid_y_part_col", "grid_x_part_row"],
        ),
        expr(
            "grid_cell_w",
            "grid_x_part_row + grid_y_part_col * 0",
            ["grid_x_part_row", "grid_y_part_col"],
        ),
        expr(
            "grid_hole_h",
            f"math.floor(math.clamp(grid_cell_h * {ratio!r}, 1, grid_cell_h - 1))",
            ["grid_cell_h"],
        ),
        expr(
            "grid_hole_w",
            f"math.floor(math.clamp(grid_cell_w * {ratio!r}, 1, grid_cell_w - 1))",
            ["grid_cell_w"],
        ),
    ]
    if random_offset:  # integers(0, cell - hole + 1) per cell, rows' offsets and columns'
        nodes += [
            Node(
                "grid_offset_y_draw",
                "random.uniform",
                inputs=(Ref("grid_cell_h"),),
                args={"range": [0.0, 1.0]},
            ),
            Node(
                "grid_offset_x_draw",
                "random.uniform",
                inputs=(Ref("grid_cell_h"),),
                args={"range": [0.0, 1.0]},
            ),
            expr(
                "grid_offset_y",
                "math.floor(grid_offset_y_draw * (grid_cell_h - grid_hole_h + 1))",
                ["grid_offset_y_draw", "grid_cell_h", "grid_hole_h"],
            ),
            expr(
                "grid_offset_x",
                "math.floor(grid_offset_x_draw * (grid_cell_w - grid_hole_w + 1))",
                ["grid_offset_x_draw", "grid_cell_w", "grid_hole_w"],
            ),
        ]
    else:
        shift_x, shift_y = (int(v) for v in shift)
        nodes += [
            expr("grid_offset_y", f"grid_cell_h * 0 + {shift_y}", ["grid_cell_h"]),
            expr("grid_offset_x", f"grid_cell_h * 0 + {shift_x}", ["grid_cell_h"]),
        ]
    nodes += [
        # inside the image: clip(start + offset, 0, side - hole)
        expr(
            "grid_anchor_y",
            "math.clamp(grid_y_start_col + grid_offset_y, 0, grid_size[0] - grid_hole_h)",
            ["grid_y_start_col", "grid_offset_y", "grid_size", "grid_hole_h"],
        ),
        expr(
            "grid_anchor_x",
            "math.clamp(grid_x_start_row + grid_offset_x, 0, grid_size[1] - grid_hole_w)",
            ["grid_x_start_row", "grid_offset_x", "grid_size", "grid_hole_w"],
        ),
        Node(
            "grid_anchors",
            "stack",
            inputs=(Ref("grid_anchor_y"), Ref("grid_anchor_x")),
            args={"axis": 2},
        ),
        Node(
            "grid_shapes",
            "stack",
            inputs=(Ref("grid_hole_h"), Ref("grid_hole_w")),
            args={"axis": 2},
        ),
        Node("grid_anchor", "reshape", inputs=(Ref("grid_anchors"),), args={"shape": [-1]}),
        Node("grid_shape", "reshape", inputs=(Ref("grid_shapes"),), args={"shape": [-1]}),
        step(
            "grid_dropout",
            "erase",
            {
                "anchor": Ref("grid_anchor"),
                "shape": Ref("grid_shape"),
                "axis_names": "HW",
                "fill_value": fill_value,
            },
        ),
    ]
    return Mapped(tuple(nodes), "distribution", DIFFERENCES, frozenset({"grid_size"}))


# Measured by tests/test_port_albumentations_grid.py against albumentations 2.0.8 on white
# images of 200 x 300, 120 x 170 and 57 x 91 pixels, 320 draws a side
DIFFERENCES = (
    "holes drawn as albumentations draws them (the unit, which of the grid's uneven parts are "
    "the longer ones, each hole's offset in its cell), by DALI's generator: KS over 320 draws "
    "of the share erased, the first erased row and column and the holes' centre, p 0.02 to "
    "1.0; a grid with nothing to draw (even parts, random_offset=False) gives the same pixels",
    "with holes_number_xy=(x, y) the grid has x rows and y columns, as albumentations 2.0.8 "
    "reads it",
    "where unit_size_range's top exceeds the image's shorter side albumentations fails; the "
    "port erases as the unit drawn allows (nothing where it exceeds a side: a 30 x 60 image, "
    "units of 40 to 49)",
    f"a grid of more than {MOST_CELLS} rows or columns (a 2 px unit on a side over 8192 px) "
    f"gets holes in its first {MOST_CELLS} only (a 9000 px side: none past row 8191)",
)
