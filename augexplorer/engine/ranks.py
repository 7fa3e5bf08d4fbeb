"""What one process of a ``torchrun`` job runs: the plan with the rank's seeds, and its shard.

Under ``torchrun`` an exported module gives every random operator (and the reader's shuffle)
:func:`~augexplorer.spec.seeds.rank_seed` of its seed, so each rank draws its own values and rank
0 draws the graph's own. A session previews any rank the same way: the same steps with the
seeds that rank draws with and, given a world size, the reader's shard of that rank, as the
exported ``make_loader`` reads it (``shard_id=RANK``, ``num_shards=WORLD_SIZE``).
"""

from __future__ import annotations

import dataclasses

from ..errors import AugExplorerError
from ..plan import Plan, Step
from ..spec.seeds import rank_seed

RANK_LIMIT = 1 << 16  # more processes than any job runs: a typo, not a rank


class RankError(AugExplorerError):
    """A rank or world size that no torchrun job has; says which value and the fix."""


def check_rank(rank: object, world_size: object = None) -> tuple[int, int | None]:
    """`rank` and `world_size` as integers, or :class:`RankError` naming the one at fault."""
    if isinstance(rank, bool) or not isinstance(rank, int) or not 0 <= rank < RANK_LIMIT:
        raise RankError(
            f"rank must be a whole number from 0 to {RANK_LIMIT - 1}, got {rank!r:.40} "
            "(fix: give the rank of the process to preview, 0 for the first)"
        )
    if world_size is None:
        return rank, None
    if (
        isinstance(world_size, bool)
        or not isinstance(world_size, int)
        or not 1 <= world_size <= RANK_LIMIT
    ):
        raise RankError(
            f"world_size must be a whole number from 1 to {RANK_LIMIT}, got {world_size!r:.40} "
            "(fix: give the number of processes of the job, or None to read the graph's shard)"
        )
    if rank >= world_size:
        raise RankError(
            f"rank {rank} is not a rank of a job of {world_size} process(es) (fix: a rank from "
            f"0 to {world_size - 1}, or a world_size above {rank})"
        )
    return rank, world_size


def plan_for_rank(plan: Plan, rank: int, world_size: int | None = None) -> Plan:
    """`plan` as process `rank` runs it: every seed through :func:`rank_seed`, and with a
    `world_size` the source's shard ``rank`` of ``world_size``. Rank 0 of no world size is
    `plan` itself."""
    if rank == 0 and world_size is None:
        return plan
    steps = tuple(_step_for_rank(step, rank, world_size) for step in plan.steps)
    return dataclasses.replace(plan, steps=steps)


def _step_for_rank(step: Step, rank: int, world_size: int | None) -> Step:
    seed = None if step.seed is None else rank_seed(step.seed, rank)
    source = step.source
    if source is not None and world_size is not None:
        # an arrays source has no reader: its shard rides with the reader arguments all the
        # same, for the batches the session feeds (engine.epoch_padding.array_shard)
        shard = {"shard_id": rank, "num_shards": world_size}
        source = dataclasses.replace(source, reader_args={**source.reader_args, **shard})
    if seed == step.seed and source is step.source:
        return step
    return dataclasses.replace(step, seed=seed, source=source)
