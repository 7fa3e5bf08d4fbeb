"""What every pipeline the engine builds is built under.

AutoGraph's source maps are made when DALI reads them (:mod:`.autograph_maps`) and DALI's
recording of each operator's origin is off (:mod:`.origin_stacks`): an auto_aug policy then
builds 3-5x faster (BENCHMARKS.md), with nothing the user sees changed.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from . import autograph_maps
from .origin_stacks import without_origin_stacks

# benchmarks/bench_policy_edits.py turns these to time builds as DALI makes them
maps_when_read = True
origins_recorded = False


@contextmanager
def engine_build() -> Iterator[None]:
    """Build (define and build DALI pipelines) in the block as the engine does."""
    if maps_when_read:
        autograph_maps.install()
    if origins_recorded:
        yield
        return
    with without_origin_stacks():
        yield
