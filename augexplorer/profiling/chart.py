"""Bar charts of profiles and benchmarks. matplotlib is imported inside the functions only, so the
engine stays free of plotting imports."""

from __future__ import annotations

import io
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .report import Profile


def profile_chart(profile: Profile) -> Any:
    """Horizontal bars: each node's median ms per batch, the fused pipeline's time as a line."""
    from matplotlib.figure import Figure

    rows = list(reversed(profile.rows))  # first node on top
    height = 1.2 + 0.35 * len(rows)
    figure = Figure(figsize=(7.5, height), layout="constrained")
    axes = figure.add_subplot()
    colours = {"cpu": "#4c78a8", "gpu": "#59a14f", "mixed": "#f28e2b"}
    axes.barh(
        [f"{row.node} ({row.op})" for row in rows],
        [row.median_ms for row in rows],
        color=[colours.get(row.device, "#888888") for row in rows],
    )
    axes.axvline(profile.fused_ms, color="#e15759", linestyle="--", linewidth=1)
    axes.set_xlabel(
        f"ms per batch of {profile.batch_size} (median of {profile.repeats}); dashed: whole "
        f"graph fused, {profile.fused_ms:.1f} ms"
    )
    axes.set_title(
        f"{profile.name}: operators summed {profile.operator_sum_ms:.1f} ms "
        f"(an upper bound: DALI overlaps operators)",
        fontsize=9,
    )
    return figure


def bars_chart(labels: list[str], values: list[float], *, xlabel: str, title: str) -> Any:
    """Horizontal bars of one value per label (first label on top)."""
    from matplotlib.figure import Figure

    figure = Figure(figsize=(7.5, 1.2 + 0.4 * len(labels)), layout="constrained")
    axes = figure.add_subplot()
    axes.barh(list(reversed(labels)), list(reversed(values)), color="#4c78a8")
    for y, value in enumerate(reversed(values)):
        axes.annotate(f" {value:.0f}", (value, y), va="center", fontsize=8)
    axes.set_xlabel(xlabel)
    axes.set_title(title, fontsize=9)
    return figure


def figure_png(figure: Any) -> bytes:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=110)
    return buffer.getvalue()
