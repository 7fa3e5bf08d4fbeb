"""Statistics over every image of a source once: one epoch, on one process or spread over the
processes of a ``torchrun`` job.

The epoch is the one the exported loader gives (``make_loader``: DALI's iterator over the first
source's reader with ``LastBatchPolicy.PARTIAL``): each process reads shard ``RANK`` of
``WORLD_SIZE`` of the reader (DALI's rule: samples ``N * RANK // WORLD_SIZE`` up to
``N * (RANK + 1) // WORLD_SIZE``), with the seeds that rank draws with, and its last batch counts
only the samples left in the shard; the reader's padding of that batch (the next epoch's first
samples) is not counted. So every image is counted exactly once over the job. Each process
counts its shard into running sums, the sums are combined with ``torch.distributed``
(:mod:`augexplorer.stats.reduce`) and every process holds the whole dataset's figures.
"""

from __future__ import annotations

import math
import os
from typing import Any

from ..engine.ast_threads import no_collection_where_ast_is_shared
from ..engine.dali_builds import engine_build
from ..engine.epoch_padding import shard_size as shard_size_of
from .reduce import Comm, TorchComm, reduce_stats
from .report import Stats
from .runner import CancelFlag, Progress, StatsRun
from .together import stage


def job_of(rank: int | None = None, world_size: int | None = None) -> tuple[int, int]:
    """This process's rank and the job's size: as given, else ``RANK`` and ``WORLD_SIZE`` as
    torchrun sets them, else a job of one."""
    from ..engine.ranks import check_rank

    if world_size is None:
        world_size = _env_int("WORLD_SIZE", 1)
    if rank is None:
        rank = _env_int("RANK", 0)
    checked_rank, checked_world = check_rank(rank, world_size)
    return checked_rank, checked_world or 1


def collect_stats_all(
    graph: Any,
    data: Any = None,
    *,
    batch_size: int | None = None,
    device_id: int | str | None = "auto",
    num_threads: int | None = None,
    progress: Progress | None = None,
    cancel: CancelFlag | None = None,
    name: str | None = None,
    epoch: int | None = None,
    rank: int | None = None,
    world_size: int | None = None,
    comm: Comm | None = None,
    sample: int | None = None,
    sample_seed: int = 0,
) -> Stats:
    """Statistics of `graph` over every image of its first source once (arguments as
    :func:`~augexplorer.stats.collect_stats`). In a job of several processes (`world_size`,
    default ``WORLD_SIZE``) this process counts its shard and the figures are combined over
    `comm` (default: the initialised ``torch.distributed`` group); every process returns the
    whole dataset's figures, for rank 0 to write. If one process fails, every process stops
    (:class:`~augexplorer.stats.together.RankFailed` names the rank and its error) once it has
    finished the stage it is in, rather than waiting for the failed one. `progress(done,
    total)` counts this process's batches. With a `sample` the dataset is that many images of
    the source drawn evenly over its classes (from `sample_seed`), each counted once."""
    rank, world_size = job_of(rank, world_size)
    sharded = world_size > 1
    if sharded and device_id == "auto":
        device_id = _local_gpu()
    together = (comm if comm is not None else TorchComm()) if sharded else None
    # a build may convert code with AutoGraph, on the Stats tab's thread while the user works
    with (
        stage(together, rank, "while building its pipeline"),
        no_collection_where_ast_is_shared(),
        engine_build(),
    ):
        run = StatsRun.prepare(
            graph,
            data,
            batch_size,
            device_id,
            num_threads,
            epoch,
            rank=rank,
            world_size=world_size if sharded else None,
            sample=sample,
            sample_seed=sample_seed,
        )
        run.pipeline.build()
        shard = shard_size(run)
    batches = math.ceil(shard / run.batch_size)
    stats = run.new_stats(name, batches)
    stats.processes, stats.counted = world_size, 0
    with stage(together, rank, "while counting its shard"):
        if batches:
            last = shard - (batches - 1) * run.batch_size
            run.count(stats, batches, last_batch=last, progress=progress, cancel=cancel)
        run.counter.fill_in(stats)
    if together is not None:
        reduce_stats(stats, together)
    return run.finish(stats)


def shard_size(run: StatsRun) -> int:
    """The samples this process reads in one epoch: its shard of the first source, which the
    exported loader's iterator follows (an array source is already this process's part)."""
    step = next(s for s in run.plan.steps if s.role == "source" and s.source is not None)
    data = run.sources[step.id]
    if data.kind == "arrays":
        return len(data.arrays)
    meta = run.pipeline.reader_meta(step.id)
    total, shards, shard = (
        int(meta["epoch_size"]),
        int(meta["number_of_shards"]),
        int(meta["shard_id"]),
    )
    return shard_size_of(total, shard, shards)


def _local_gpu() -> int | str | None:
    """This process's GPU as the exported loader picks it (``LOCAL_RANK``), or the CPU."""
    from ..devices import default_device_id

    return _env_int("LOCAL_RANK", 0) if default_device_id() is not None else None


def _env_int(name: str, default: int) -> int:
    text = os.environ.get(name)
    if text is None or not text.strip():
        return default
    try:
        return int(text)
    except ValueError:
        from ..engine.ranks import RankError

        raise RankError(
            f"the environment variable {name}={text!r} is not a whole number (fix: run under "
            "torchrun, which sets it, or unset it)"
        ) from None
