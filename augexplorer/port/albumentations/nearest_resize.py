"""OpenCV's INTER_NEAREST resize as DALI's nearest resize with a shifted window.

OpenCV's nearest takes source pixel ``floor(x * scale)`` for output pixel x (the pixel's
corner), DALI's ``floor(roi_start + (x + 0.5) * scale)`` (its centre): a window that starts
half a pixel early, ``roi_start = -0.5 * scale``, gives OpenCV's pick. A small nudge keeps a
product that is a whole number in OpenCV's float64 on that pixel in DALI's float32.
Given ``fx``/``fy`` (Downscale), OpenCV sizes the result ``round(side * f)``, half to even,
and scales by ``1 / f`` itself, not by the ratio of the sizes.
"""

from __future__ import annotations

from ...spec import Node, Ref
from .nodes import expr

# float32 positions of a 2000-pixel side are good to about 1e-4: the nudge is above that and
# below any fraction OpenCV's float64 products fall short of a whole pixel by, at these scales
NUDGE = 1e-3


def rounded_size(node_id: str, factor: str) -> Node:
    """OpenCV's ``saturate_cast<int>(side * f)``: rounded half to even (97 x 0.5 is 48)."""
    x = f"(image.shape()[0:2] * {factor})"
    up = f"math.floor({x} + 0.5)"
    tie = f"(({up} - {x}) == 0.5) & (({up} - math.floor({up} * 0.5) * 2.0) == 1.0)"
    return expr(node_id, f"{up} - ({tie}) * 1.0", ["image", factor])


def as_float(node_id: str, reads: str) -> Node:
    """DALI's resize takes its size and window in float32; a factor given in float64 makes
    them float64 first."""
    return Node(node_id, "cast", inputs=(Ref(reads),), args={"dtype": "FLOAT"})


def window(base: str, size: str, scale: str, inputs: list[str]) -> list[Node]:
    """``{base}_start`` and ``{base}_end``: the window, per axis, whose centre sampling by
    DALI's nearest picks ``floor(x * scale)``; `size` the output's, `scale` source pixels per
    output pixel (expressions of `inputs`)."""
    start = f"({scale}) * -0.5 + {NUDGE}"
    return [
        expr(f"{base}_start_wide", f"{start} + 0.0 * {size}", inputs),
        as_float(f"{base}_start", f"{base}_start_wide"),
        expr(f"{base}_end_wide", f"{start} + ({size}) * ({scale})", inputs),
        as_float(f"{base}_end", f"{base}_end_wide"),
    ]


def nearest_args(base: str, size: str) -> dict[str, object]:
    """DALI resize arguments for OpenCV's nearest to `size`, through `base`'s window."""
    return {
        "size": Ref(size),
        "interp_type": "INTERP_NN",
        "antialias": False,
        "roi_start": Ref(f"{base}_start"),
        "roi_end": Ref(f"{base}_end"),
        "roi_relative": False,
    }
