"""Processes of one job fail together: when one rank of a whole-dataset run fails, every rank
stops with its name and reason, instead of the others waiting in a collective call for a rank
that will never come.

Each stage of the run ends in one exchange (an ``all_gather`` of "done" or the failure's text),
which every rank makes whether its stage went well or not, so no rank is ever left alone in a
collective call. A rank whose stage failed raises its own error; the others raise
:class:`RankFailed`, naming the rank and what it said.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager, suppress

from ..errors import AugExplorerError
from .reduce import Comm


class RankFailed(AugExplorerError):
    """Another process of the job failed: nothing was combined and no report is written."""

    def __init__(self, rank: int, failures: list[tuple[int, str]], stage: str) -> None:
        self.rank = rank
        self.failures = failures
        said = "; ".join(f"rank {other} failed {stage}: {text}" for other, text in failures)
        super().__init__(
            f"{said}; rank {rank} stops too and no report is written "
            "(fix: mend what the failing rank says, then run the job again)"
        )


@contextmanager
def stage(comm: Comm | None, rank: int, name: str) -> Iterator[None]:
    """Run a stage of a job's work; at its end every rank learns whether all got through it.
    `name` says what the stage does ("while counting its shard"). Without a `comm` (a job of
    one) it is a plain block."""
    if comm is None:
        yield
        return
    try:
        yield
    except Exception as error:
        # where the others cannot be told (gone too), this rank's own error still stands
        with suppress(Exception):
            comm.all_gather(f"{type(error).__name__}: {error}")
        raise
    said = comm.all_gather(None)
    failures = [(other, text) for other, text in enumerate(said) if text is not None]
    if failures:
        raise RankFailed(rank, failures, name)
