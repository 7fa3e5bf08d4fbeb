"""`augexplorer render SPEC -o grid.jpg`: run a graph on one batch and write an image grid."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from . import add_spec_argument, open_session


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "render", help="run a graph on one batch and write an image grid"
    )
    add_spec_argument(parser)
    parser.add_argument(
        "--node", help="show this node's output (default: the graph's image output)"
    )
    parser.add_argument(
        "-o", "--output", required=True, help="where to write the grid (.jpg or .png)"
    )
    parser.add_argument("--cell", type=int, default=192, help="tile size in pixels")
    parser.add_argument(
        "--overwrite", action="store_true", help="replace the output file if it exists"
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from ..files import atomic_write_bytes
    from ..render import encode, render_node

    session = open_session(args)
    result = session.run()
    if args.node and args.node not in result.steps:
        raise KeyError(f"no node {args.node!r}; nodes: {', '.join(result.steps)}")
    picture = render_node(result, args.node, cell=args.cell)
    path = Path(args.output)
    data = encode(picture, "png") if path.suffix.lower() == ".png" else encode(picture, "jpeg")
    atomic_write_bytes(path, data, overwrite=args.overwrite)
    print(
        f"wrote {path} ({picture.width}x{picture.height}, {len(result.arrays(result.final))} images)"
    )
    return 0
