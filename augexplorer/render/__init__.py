"""Pictures of node outputs, without a UI: display conversion, grids, and result helpers."""

from .display import Normalization, to_hwc, to_rgb8
from .grid import encode, grid
from .result_view import normalization_for, render_node

__all__ = [
    "Normalization",
    "encode",
    "grid",
    "normalization_for",
    "render_node",
    "to_hwc",
    "to_rgb8",
]
