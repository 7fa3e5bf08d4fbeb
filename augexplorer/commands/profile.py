"""`augexplorer profile SPEC`: per-operator times of a graph beside its fused pipeline time."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from . import add_spec_argument, check_outputs, load_spec
from ._arguments import at_least_zero, positive


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "profile",
        help="time every operator of a graph (median of repeats) and the graph as one pipeline",
    )
    add_spec_argument(parser)
    parser.add_argument(
        "--device",
        choices=["cpu", "gpu"],
        help="put every operator on this device (default: the graph's own placement)",
    )
    parser.add_argument("--repeats", type=positive, default=5, help="timed runs (default 5)")
    parser.add_argument(
        "--warmup", type=at_least_zero, default=2, help="untimed runs first (default 2)"
    )
    parser.add_argument(
        "--attempts",
        type=positive,
        default=1,
        help="runs of each batch per side, keeping the fastest (default 1; 3 on a busy machine)",
    )
    parser.add_argument("--threads", type=positive, help="DALI threads (default: cores, at most 8)")
    parser.add_argument("--json", dest="json_path", help="also write the figures as JSON here")
    parser.add_argument("--chart", help="also write a bar chart (PNG) here")
    parser.add_argument(
        "--overwrite", action="store_true", help="replace the JSON or chart file if it exists"
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from ..files import atomic_write_text
    from ..profiling import profile

    check_outputs(args, "json_path", "chart")
    spec = load_spec(args)

    def progress(done: int, total: int) -> None:
        if sys.stderr.isatty():
            print(f"\rrun {done}/{total}", end="" if done < total else "\n", file=sys.stderr)

    try:
        result = profile(
            spec,
            repeats=args.repeats,
            warmup=args.warmup,
            device=args.device,
            num_threads=args.threads,
            attempts=args.attempts,
            progress=progress,
        )
    except KeyboardInterrupt:
        if sys.stderr.isatty():
            print(file=sys.stderr)  # end the "run i/n" line before the message
        raise
    print(result.table())
    if args.json_path:
        path = atomic_write_text(
            Path(args.json_path),
            json.dumps(result.to_json(), indent=2) + "\n",
            overwrite=args.overwrite,
        )
        print(f"wrote {path}")
    if args.chart:
        path = result.save_chart(args.chart, overwrite=args.overwrite)
        print(f"wrote {path}")
    return 0
