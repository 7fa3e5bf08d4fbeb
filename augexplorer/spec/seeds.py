"""Seeds a graph leaves unset: derived from the graph's seed and what each draw is for.

A node's unset seeds follow from its name, so renaming a node would draw other values; the
spec pins them first (:meth:`GraphSpec.rename`), and lowering fills the rest the same way.
"""

from __future__ import annotations

import zlib


def derive_seed(graph_seed: int, *parts: str) -> int:
    """A stable seed for one random draw, from the graph's seed and what the draw is for."""
    return zlib.crc32(":".join([str(graph_seed), *parts]).encode()) & 0x7FFFFFFF


def rank_seed(seed: int, rank: int) -> int:
    """The seed a random operator draws with on `rank` under torchrun: its own seed on rank 0
    (what the explorer shows), on every other rank a seed derived from it and the rank, so that
    no two ranks draw the same values for their k-th samples. augexplorer's preview of a rank
    and every exported module (which carries this function) use this one rule."""
    if rank == 0:
        return seed
    return zlib.crc32(f"{seed}:rank:{rank}".encode()) & 0x7FFFFFFF
