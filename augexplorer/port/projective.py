"""The projective map of the unit square onto a quadrilateral in closed form (after Heckbert),
as expression texts: the torchvision and albumentations perspective ports both warp by it, so
that no linear system is solved per sample."""

from __future__ import annotations

from collections.abc import Sequence


def square_to_quad(
    x: Sequence[str], y: Sequence[str], g: str, h: str
) -> tuple[str, str, list[str]]:
    """Heckbert's closed form of the projective map of the unit square's corners (0, 0), (1, 0),
    (1, 1), (0, 1) onto the corners ``x[i], y[i]`` (four texts each, in that order): the texts
    of its last row's g and h, and of its first two rows (a, b, c, d, e, f) given the nodes
    named `g` and `h` hold those; its last entry is 1."""
    dx1, dx2 = f"({x[1]} - {x[2]})", f"({x[3]} - {x[2]})"
    dx3 = f"({x[0]} - {x[1]} + {x[2]} - {x[3]})"
    dy1, dy2 = f"({y[1]} - {y[2]})", f"({y[3]} - {y[2]})"
    dy3 = f"({y[0]} - {y[1]} + {y[2]} - {y[3]})"
    den = f"({dx1} * {dy2} - {dx2} * {dy1})"
    g_text = f"({dx3} * {dy2} - {dx2} * {dy3}) / {den}"
    h_text = f"({dx1} * {dy3} - {dx3} * {dy1}) / {den}"
    return (
        g_text,
        h_text,
        [
            f"{x[1]} - {x[0]} + {g} * {x[1]}",
            f"{x[3]} - {x[0]} + {h} * {x[3]}",
            f"{x[0]}",
            f"{y[1]} - {y[0]} + {g} * {y[1]}",
            f"{y[3]} - {y[0]} + {h} * {y[3]}",
            f"{y[0]}",
        ],
    )
