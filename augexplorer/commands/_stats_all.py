"""`augexplorer stats SPEC --all`: every image of the source once, with progress and an ETA on
stderr; under torchrun (or with ``--world-size N``, which starts N processes through torchrun)
each process counts its shard and rank 0 writes the report."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any, TextIO

from ..errors import AugExplorerError

STEPS = 10  # progress lines off a terminal: one per tenth of the run


class EtaLines:
    """Progress of a long run on `stream`: batches done, images per second and the time left;
    on a terminal one line rewritten in place, else a plain line every tenth of the run."""

    def __init__(
        self,
        batch_size: int,
        stream: TextIO | None = None,
        clock: Callable[[], float] = time.perf_counter,
        prefix: str = "stats --all",
    ) -> None:
        self.batch_size = batch_size
        self.stream = stream if stream is not None else sys.stderr
        self.clock = clock
        self.prefix = prefix
        self.start = clock()
        self.step = -1

    def __call__(self, done: int, total: int) -> None:
        terminal = self.stream.isatty()
        step = STEPS * done // max(total, 1)
        if not terminal and step == self.step and done < total:
            return
        self.step = step
        elapsed = max(self.clock() - self.start, 1e-9)
        rate = done * self.batch_size / elapsed
        left = elapsed / done * (total - done) if done else 0.0
        line = (
            f"{self.prefix}: {done}/{total} batches ({100 * done // max(total, 1)}%), "
            f"{rate:.1f} images/s, "
            + ("done in " if done == total else "ETA ")
            + _clock(elapsed if done == total else left)
        )
        if terminal:
            print(f"\r{line}", end="\n" if done == total else "", file=self.stream, flush=True)
        else:
            print(line, file=self.stream, flush=True)


def _clock(seconds: float) -> str:
    whole = round(seconds)
    return f"{whole // 3600}:{whole // 60 % 60:02d}:{whole % 60:02d}"


def run_all(spec: Any, args: argparse.Namespace) -> int:
    from ..stats.whole import collect_stats_all, job_of
    from .stats import print_report

    if not args.whole:
        raise AugExplorerError(
            "--world-size spreads a whole-dataset run over processes (fix: add --all)"
        )
    launched = os.environ.get("WORLD_SIZE")
    if args.world_size is not None and launched is None:
        if args.world_size == 1:
            args.world_size = None  # a job of one: run here
        else:
            return _launch(args.world_size, getattr(args, "argv", None))
    rank, world_size = job_of()
    if args.world_size is not None and args.world_size != world_size:
        raise AugExplorerError(
            f"--world-size {args.world_size} but torchrun started {world_size} processes "
            f"(WORLD_SIZE={launched}) (fix: leave out --world-size under torchrun)"
        )
    joined = _join(world_size)
    progress = EtaLines(args.batch_size or spec.batch_size, prefix=_prefix(rank, world_size))
    try:
        stats = collect_stats_all(spec, epoch=args.epoch, progress=progress if rank == 0 else None)
    finally:
        if joined:
            import torch.distributed as dist

            dist.destroy_process_group()
    if rank != 0:
        return 0  # rank 0 writes the report
    return print_report(stats, args)


def _prefix(rank: int, world_size: int) -> str:
    return "stats --all" if world_size == 1 else f"stats --all (rank {rank} of {world_size})"


def _join(world_size: int) -> bool:
    """Join the job's process group (gloo: the sums travel as CPU tensors, whatever the
    device) unless the caller already did; whether this process joined it."""
    if world_size == 1:
        return False
    import torch.distributed as dist

    if dist.is_initialized():
        return False
    dist.init_process_group("gloo")
    return True


def _launch(world_size: int, argv: list[str] | None) -> int:
    """Run this very command as `world_size` processes on this machine through torchrun."""
    if argv is None:
        raise AugExplorerError(
            "--world-size needs the command line to start it again (fix: run it as "
            "`augexplorer stats ... --all --world-size N`, or under torchrun yourself)"
        )
    command = [
        sys.executable,
        "-m",
        "torch.distributed.run",
        "--standalone",
        f"--nproc-per-node={world_size}",
        "-m",
        "augexplorer",
        *argv,
    ]
    return subprocess.run(command, check=False).returncode
