"""Throughput of a graph in DALI against the same augmentation in PyTorch DataLoaders
(torchvision-style Pillow code, albumentations), on the same images; and of a user's own
torchvision or albumentations pipeline file against its port (:func:`bench_against`)."""

from __future__ import annotations

from .against import AgainstResult, AgainstRow, bench_against
from .recipe import Recipe, recipe_for
from .suite import BenchResult, BenchRow, run_bench

__all__ = [
    "AgainstResult",
    "AgainstRow",
    "BenchResult",
    "BenchRow",
    "Recipe",
    "bench_against",
    "recipe_for",
    "run_bench",
]
