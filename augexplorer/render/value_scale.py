"""Whether a batch's normalized floats are on the scale a model expects, said beside their
pictures. A grid undoes the normalization to draw floats as a photo, so mean and std meant for
0-1 values applied to 0-255 pixels (values up to ~1100, a common porting slip) look exactly like
a right one: the pictures cannot show it, so the caption says it, from this batch's values by
the statistics report's own rule (:func:`augexplorer.stats.findings.scale_problem`)."""

from __future__ import annotations

import numpy as np

from ..engine.result import RunResult
from ..spec import Ref
from ..stats.findings import NORMALIZERS, StatsWarning, scale_problem
from .result_view import normalization_for


def scale_warning(result: RunResult, ref: Ref) -> StatsWarning | None:
    """The problem with the scale of `ref`'s normalized float output in this batch, or None
    (not floats, not normalized upstream, or on a sensible scale)."""
    norm = normalization_for(result.plan, ref.node)
    if norm is None:
        return None
    step = result.plan.step(norm.node)
    if step.op not in NORMALIZERS:
        return None
    values = _floats(result.arrays(Ref(norm.node)))
    if values is None:
        return None
    before = result.input_of(norm.node)
    inputs = result.arrays(before) if before is not None else []
    input_max = max((float(np.max(_strided(a))) for a in inputs if a.size), default=None)
    return scale_problem(
        norm.node, step.op, float(values.mean()), float(values.std()), step.args, input_max
    )


# Every STRIDE-th value: the rule's bounds are a factor of 10 apart from a right scale, which a
# sixteenth of a batch's values shows as well as all of them, at a sixteenth of the time (this
# runs on every grid an edit draws).
STRIDE = 16


def _strided(array: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(array).reshape(-1)[::STRIDE]


def _floats(arrays: list[np.ndarray]) -> np.ndarray | None:
    """Every STRIDE-th finite value of the batch's float samples, as one float64 vector."""
    kept = [_strided(a).astype(np.float64) for a in arrays if a.dtype.kind == "f" and a.size]
    if not kept:
        return None
    values = np.concatenate(kept)
    values = values[np.isfinite(values)]
    return values if values.size else None
