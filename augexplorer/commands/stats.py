"""`augexplorer stats SPEC`: what a graph does over many batches: draws, rates, node outputs,
fill, labels, and warnings where a figure looks wrong."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from . import add_spec_argument, check_outputs, load_spec
from ._arguments import positive

if TYPE_CHECKING:
    from ..stats import Stats

BAR = 30  # characters of the progress bar


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "stats",
        help="run a graph over many batches and sum up what it drew, ran and produced",
    )
    add_spec_argument(parser)
    how_many = parser.add_mutually_exclusive_group()
    how_many.add_argument(
        "--batches", type=positive, default=32, help="batches to run (default 32)"
    )
    how_many.add_argument(
        "--all",
        dest="whole",
        action="store_true",
        help="run every image of the source once (an epoch, the last batch partial as the "
        "exported loader reads it), with progress and an ETA; under torchrun each process "
        "counts its shard and rank 0 writes the report",
    )
    parser.add_argument(
        "--world-size",
        type=positive,
        help="with --all: spread the run over this many processes on this machine (through "
        "torchrun); under torchrun, the job's size, checked against WORLD_SIZE",
    )
    parser.add_argument("--json", dest="json_path", help="also write the figures as JSON here")
    parser.add_argument("--plot", help="also write the plots (PNG) here")
    parser.add_argument(
        "--epoch",
        type=int,
        help="count the graph as it stands at this epoch of its run (its schedules' values)",
    )
    parser.add_argument(
        "--over-run",
        action="store_true",
        help="count five epochs spread over the run and show how the draws and rates move",
    )
    parser.add_argument(
        "--overwrite", action="store_true", help="replace the JSON or plot file if it exists"
    )
    parser.set_defaults(run=run)


def progress_bar(done: int, total: int) -> None:
    """A progress bar on stderr when it is a terminal."""
    if not sys.stderr.isatty():
        return
    filled = BAR * done // total
    print(
        f"\rstats [{'#' * filled}{'.' * (BAR - filled)}] {done}/{total} batches",
        end="" if done < total else "\n",
        file=sys.stderr,
    )


def run(args: argparse.Namespace) -> int:
    from ..stats import collect_stats

    check_outputs(args, "json_path", "plot")
    spec = load_spec(args)
    if args.over_run:
        return _over_run(spec, args)
    if args.whole or args.world_size is not None:
        from ._stats_all import run_all

        return run_all(spec, args)
    try:
        stats = collect_stats(spec, batches=args.batches, progress=progress_bar, epoch=args.epoch)
    except KeyboardInterrupt:
        if sys.stderr.isatty():
            print(file=sys.stderr)  # end the progress line before the message
        raise
    return print_report(stats, args)


def print_report(stats: Stats, args: argparse.Namespace) -> int:
    """The figures' summary on stdout, and the JSON and plot files the arguments ask for."""
    print(stats.summary())
    if args.json_path:
        print(f"wrote {stats.save_json(args.json_path, overwrite=args.overwrite)}")
    if args.plot:
        print(f"wrote {stats.save_plot(args.plot, overwrite=args.overwrite)}")
    return 0


def _over_run(spec: Any, args: argparse.Namespace) -> int:
    from ..errors import AugExplorerError
    from ..stats import stats_over_run

    if args.plot or args.epoch is not None or args.whole or args.world_size is not None:
        raise AugExplorerError(
            "--over-run counts several epochs: leave out --plot, --epoch, --all and "
            "--world-size, which are for one"
        )
    over = stats_over_run(spec, batches=args.batches)
    print(over.summary())
    if args.json_path:
        print(f"wrote {over.save_json(args.json_path, overwrite=args.overwrite)}")
    return 0
