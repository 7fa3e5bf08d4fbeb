"""Grids of a run result's nodes, captioned with labels and drawn values."""

from __future__ import annotations

from typing import Any

import numpy as np
from PIL import Image

from ..engine.result import RunResult
from ..plan import Plan
from ..spec import Ref
from .display import Normalization
from .grid import grid

_NORMALIZERS = {"crop_mirror_normalize": ("mean", "std"), "normalize": ("mean", "stddev")}


def normalization_for(plan: Plan, step_id: str) -> Normalization | None:
    """The normalization applied at or upstream of `step_id` (nearest first), if any."""
    for candidate in [step_id, *plan.ancestors(step_id)]:
        step = plan.step(candidate)
        names = _NORMALIZERS.get(step.op)
        if names is None:
            continue
        if step.op == "crop_mirror_normalize" and step.args.get("dtype", "FLOAT") not in (
            "FLOAT",
            "FLOAT16",
        ):
            return None
        mean, std = (
            _floats(step.args.get(name), default)
            for name, default in zip(names, (0.0, 1.0), strict=True)
        )
        return Normalization(
            mean=mean,
            std=std,
            scale=float(step.args.get("scale", 1.0)),
            shift=float(step.args.get("shift", 0.0)),
        )
    return None


def _floats(value: Any, default: float) -> tuple[float, ...]:
    if value is None:
        return (default,)
    if isinstance(value, (list, tuple)):
        return tuple(float(v) for v in value)
    return (float(value),)


def render_node(
    result: RunResult,
    ref: Ref | str | None = None,
    *,
    cell: int = 160,
    columns: int | None = None,
    captions: bool = True,
    samples: list[int] | None = None,
    annotations: bool = True,
) -> Image.Image:
    """A grid of one node's output (the graph's image output by default), captioned with each
    sample's label and the random values drawn for it; an annotated graph's boxes, class names,
    polygons, masks and keypoints drawn over its images (unless `annotations` is False), each
    kind only where the graph carried it through every geometric step to this node."""
    ref = result.final if ref is None else (Ref.parse(ref) if isinstance(ref, str) else ref)
    arrays = result.arrays(ref)
    layout = result.layout(ref)
    held = result.sample_indices(ref)  # a node inside a conditional block holds only some
    texts: list[str] = []
    if captions:
        labels = result.captions()
        draws = result.draw_captions(reaching=ref.node)
        texts = [
            " ".join(
                t
                for t in (labels[i] if i < len(labels) else "", draws[i] if i < len(draws) else "")
                if t
            )
            for i in held
        ]
    # only the kinds the graph carried to these images (RunResult.overlay_states), as the panel
    drawn = (result.drawn_annotations(ref.node) if annotations and ref.output == 0 else None) or []
    if samples is not None:
        positions = [held.index(i) for i in samples if i in held]
        arrays = [arrays[p] for p in positions]
        texts = [texts[p] for p in positions] if texts else []
        drawn = [drawn[p] for p in positions] if drawn else []
    step = result.plan.step(ref.node)
    normalization = (
        normalization_for(result.plan, step.id)
        if arrays and np.asarray(arrays[0]).dtype.kind == "f"
        else None
    )
    return grid(
        arrays,
        layout=layout,
        captions=texts,
        normalization=normalization,
        cell=cell,
        columns=columns,
        annotations=drawn,
    )
