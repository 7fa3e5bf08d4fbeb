"""Seeds a graph leaves unset: derived from the graph's seed and what each draw is for.

A node's unset seeds follow from its name, so renaming a node would draw other values; the
spec pins them first (:meth:`GraphSpec.rename`), and lowering fills the rest the same way.
"""

from __future__ import annotations

import zlib


def derive_seed(graph_seed: int, *parts: str) -> int:
    """A stable seed for one random draw, from the graph's seed and what the draw is for."""
    return zlib.crc32(":".join([str(graph_seed), *parts]).encode()) & 0x7FFFFFFF
