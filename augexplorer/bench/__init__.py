"""Throughput of a graph in DALI against the same augmentation in PyTorch DataLoaders
(torchvision-style Pillow code, albumentations), on the same images."""

from __future__ import annotations

from .recipe import Recipe, recipe_for
from .suite import BenchResult, BenchRow, run_bench

__all__ = ["BenchResult", "BenchRow", "Recipe", "recipe_for", "run_bench"]
