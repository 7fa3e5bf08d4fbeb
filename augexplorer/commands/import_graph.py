"""`augexplorer import my_aug.py -o spec.json`: a Python pipeline back to an editable graph.

A module exported by augexplorer is read without running it (its GRAPH literal). Any other file
is executed to build its pipeline, so import only files you trust.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "import",
        help="turn a Python pipeline (an exported module or any @pipeline_def file) into a graph spec",
        description="Turn a Python file into a graph spec (JSON). A module exported by "
        "augexplorer is read without running it. ANY OTHER FILE IS EXECUTED to build its "
        "@pipeline_def function or Pipeline, which is then read through Pipeline.serialize(): "
        "import only files you trust.",
    )
    parser.add_argument("module", help="the Python file to import")
    parser.add_argument("-o", "--output", required=True, help="the spec to write (.json)")
    parser.add_argument("--pipeline", help="which pipeline, when the file defines several")
    parser.add_argument(
        "--overwrite", action="store_true", help="replace the output file if it exists"
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from ..export.importer import import_graph
    from ..spec import save

    spec = import_graph(Path(args.module), pipeline=args.pipeline)
    path = save(spec, Path(args.output), overwrite=args.overwrite)
    print(f"wrote {path} ({len(spec.nodes)} nodes)")
    return 0
