"""`augexplorer render SPEC -o grid.jpg`: run a graph on one batch and write an image grid."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from . import add_spec_argument, check_outputs, open_session
from ._arguments import MAX_CELL, cell_size, image_output


def register(subparsers: Any) -> None:
    from ..render.formats import supported_suffixes

    parser: argparse.ArgumentParser = subparsers.add_parser(
        "render", help="run a graph on one batch and write an image grid"
    )
    add_spec_argument(parser)
    parser.add_argument(
        "--node", help="show this node's output (default: the graph's image output)"
    )
    parser.add_argument(
        "-o",
        "--output",
        required=True,
        type=image_output,
        help=f"where to write the grid; the suffix picks the format ({', '.join(supported_suffixes())})",
    )
    parser.add_argument(
        "--cell", type=cell_size, default=192, help=f"tile size in pixels (1 to {MAX_CELL})"
    )
    parser.add_argument(
        "--device",
        choices=("cpu", "gpu"),
        help="put every operator on this device (default: the graph's own placement; nodes "
        "set to gpu or mixed run on the CPU on a machine without a GPU, said in a note)",
    )
    parser.add_argument(
        "--overwrite", action="store_true", help="replace the output file if it exists"
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from ..files import atomic_write_bytes
    from ..render import render_node
    from ..render.formats import encode_for
    from ..render.value_scale import scale_warning
    from ..spec import Ref

    check_outputs(args, "output")
    session = open_session(args, device=args.device)
    result = session.run()
    if args.node and args.node not in result.steps:
        raise KeyError(f"no node {args.node!r}; nodes: {', '.join(result.steps)}")
    for note in result.data_notes():
        print(f"note: {note}", file=sys.stderr)
    picture = render_node(result, args.node, cell=args.cell)
    path = Path(args.output)
    atomic_write_bytes(path, encode_for(picture, path), overwrite=args.overwrite)
    print(
        f"wrote {path} ({picture.width}x{picture.height}, {len(result.arrays(result.final))} images)"
    )
    # the picture undoes a normalization on any scale: a wrong one is said, not seen
    wrong = scale_warning(result, Ref.parse(args.node) if args.node else result.final)
    if wrong is not None:
        print(f"warning: {wrong}", file=sys.stderr)
    return 0
