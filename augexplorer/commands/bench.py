"""`augexplorer bench SPEC`: images/s of the graph in DALI against PyTorch DataLoader versions."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from . import add_spec_argument, check_outputs, load_spec
from ._arguments import positive


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "bench",
        help="throughput of the graph in DALI vs torchvision-style and albumentations loaders",
    )
    add_spec_argument(parser)
    parser.add_argument(
        "--images", type=positive, default=256, help="images per loader (default 256)"
    )
    parser.add_argument("--rounds", type=positive, default=1, help="timed runs per loader (median)")
    parser.add_argument("--workers", type=positive, help="DataLoader workers (default: cores)")
    parser.add_argument("--threads", type=positive, help="DALI threads (default: cores)")
    parser.add_argument("--json", dest="json_path", help="write the figures as JSON here")
    parser.add_argument("--chart", help="write a bar chart (PNG) here")
    parser.add_argument(
        "--overwrite", action="store_true", help="replace the JSON or chart file if it exists"
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from ..bench import run_bench
    from ..bench.suite import BenchInterrupted

    check_outputs(args, "json_path", "chart")
    try:
        result = run_bench(
            load_spec(args),
            images=args.images,
            workers=args.workers,
            threads=args.threads,
            rounds=args.rounds,
            progress=lambda message: print(message, file=sys.stderr, flush=True),
        )
    except BenchInterrupted as interrupted:
        print(interrupted.result.table())  # what was measured before Ctrl-C
        raise
    print(result.table())
    written = result.save(
        Path(args.json_path) if args.json_path else None,
        Path(args.chart) if args.chart else None,
        args.overwrite,
    )
    for path in written:
        print(f"wrote {path}")
    return 0
