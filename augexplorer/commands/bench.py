"""`augexplorer bench SPEC`: images/s of the graph in DALI against PyTorch DataLoader versions.

`augexplorer bench --against FILE --run-file`: the user's own torchvision or albumentations
pipeline in a PyTorch DataLoader against its port's exported DALI loader (is DALI worth it?).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ..errors import AugExplorerError
from . import add_spec_argument, check_outputs, load_spec
from ._arguments import positive


class BenchArguments(AugExplorerError):
    """Options that do not go together."""


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "bench",
        help="throughput of the graph in DALI vs torchvision-style and albumentations loaders, "
        "or of your own pipeline file against its DALI port (--against FILE)",
    )
    add_spec_argument(parser)
    for action in parser._actions:  # no SPEC with --against: the file is what is timed
        if action.dest == "spec":
            action.nargs = "?"
            action.default = None
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
    against = parser.add_argument_group(
        "your own pipeline",
        "Time a torchvision or albumentations pipeline file (or notebook) in a PyTorch "
        "DataLoader against its port's exported DALI loader, on the CPU and the GPU if there "
        "is one. Timing the original RUNS the file (with your permissions): read it first.",
    )
    against.add_argument("--against", metavar="FILE", help="the pipeline file (.py or .ipynb)")
    against.add_argument(
        "--pipeline", help="which pipeline, by its name in the file, when it has several"
    )
    against.add_argument(
        "--python",
        metavar="PATH",
        help="the Python that runs the original, where its library imports (default: this "
        "one); it needs torch, Pillow and torchvision or albumentations",
    )
    against.add_argument(
        "--run-file",
        action="store_true",
        help="allow running the file to time the original (required with --against)",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.against is not None:
        return run_against(args)
    if args.spec is None:
        raise BenchArguments("give a graph spec or preset to time, or --against FILE")
    for option in ("pipeline", "python"):
        if getattr(args, option):
            raise BenchArguments(f"--{option} goes with --against FILE (fix: add --against)")
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


def run_against(args: argparse.Namespace) -> int:
    from ..bench.against import bench_against

    if args.spec is not None:
        raise BenchArguments(
            f"give a graph spec ({args.spec}) or --against FILE, not both (fix: leave one out)"
        )
    unused = [f"--{name}" for name in ("chart", "trust", "skip_bad") if getattr(args, name)]
    if unused:
        raise BenchArguments(
            f"{', '.join(unused).replace('_', '-')} do not apply to --against (fix: leave them out)"
        )
    check_outputs(args, "json_path")
    result = bench_against(
        args.against,
        pipeline=args.pipeline,
        data=args.data,
        images=args.images,
        batch_size=args.batch_size,
        workers=args.workers,
        threads=args.threads,
        python=args.python,
        rounds=args.rounds,
        run_file=args.run_file,
        progress=lambda message: print(message, file=sys.stderr, flush=True),
    )
    print(result.table())
    if args.json_path:
        print(f"wrote {result.save(Path(args.json_path), args.overwrite)}")
    return 0
