"""`augexplorer import my_aug.py -o spec.json`: a Python pipeline back to an editable graph.

A module exported by augexplorer is read without running it (its GRAPH literal), and a spec
(.json) is read as a spec. Any other Python file can only be imported by running it, which
happens only with --run-file.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from . import check_outputs


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "import",
        help="turn a Python pipeline (an exported module or any @pipeline_def file) into a graph spec",
        description="Turn a Python file into a graph spec (JSON). A module exported by "
        "augexplorer is read without running it, and a spec (.json) is read as a spec. Any "
        "other Python file can only be imported by RUNNING it (with your permissions) to build "
        "its @pipeline_def function or Pipeline, which is then read through "
        "Pipeline.serialize(): that happens only with --run-file, so read the file first.",
    )
    parser.add_argument(
        "module", help="the file to import: an exported module, a spec, or a pipeline file"
    )
    parser.add_argument("-o", "--output", required=True, help="the spec to write (.json)")
    parser.add_argument("--pipeline", help="which pipeline, when the file defines several")
    parser.add_argument(
        "--run-file",
        action="store_true",
        help="allow running a file that is not an exported module (it runs as Python, with "
        "your permissions: import only files you have read and trust)",
    )
    parser.add_argument(
        "--overwrite", action="store_true", help="replace the output file if it exists"
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from ..export.importer import import_graph
    from ..spec import save

    check_outputs(args, "output")
    spec = import_graph(Path(args.module), pipeline=args.pipeline, run_file=args.run_file)
    path = save(spec, Path(args.output), overwrite=args.overwrite)
    print(f"wrote {path} ({len(spec.nodes)} nodes)")
    return 0
