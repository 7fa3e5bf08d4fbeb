"""Per-operator timings of a graph, beside the graph's time as one fused DALI pipeline.

DALI has no per-operator timing of its own; :func:`profile` runs each user node (with its random
draws) in its own synchronous pipeline, repeated after a warm-up, and reports medians.
"""

from __future__ import annotations

from .placement import place_on
from .report import OVERLAP_NOTE, NodeTiming, Profile
from .timing import profile

__all__ = ["OVERLAP_NOTE", "NodeTiming", "Profile", "place_on", "profile"]
