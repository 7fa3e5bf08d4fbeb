"""Grids of a run result's nodes, captioned with labels and drawn values.

A grid is composed from one cell picture per sample, kept under the version of the pixels it
was made of (:mod:`.pixel_history`): an edit redraws only the samples it changed, and captions
are drawn once per text."""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np
from PIL import Image

from ..annotations import SampleAnnotations
from ..engine.result import RunResult
from ..plan import Plan
from ..spec import Ref
from .display import Normalization
from .grid import cell_picture, compose, grid
from .pixel_history import Histories, PixelHistory

# The static grids' pixel histories, apart from the panel's tiles (other sizes, other pictures).
GRID_HISTORIES = Histories()

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
            node=candidate,
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
    reuse: bool = True,
    caption_lines: int = 2,
) -> Image.Image:
    """A grid of one node's output (the graph's image output by default), captioned with each
    sample's label and the random values drawn for it; an annotated graph's boxes, class names,
    polygons, masks and keypoints drawn over its images (unless `annotations` is False), each
    kind only where the graph carried it through every geometric step to this node.

    The cells of samples whose pixels are those this node's grid showed last are reused
    (`reuse` False draws every cell anew, as the first grid of a node is drawn). A caption
    takes at most `caption_lines` lines, cut with "..." past them."""
    ref = result.final if ref is None else (Ref.parse(ref) if isinstance(ref, str) else ref)
    history = GRID_HISTORIES.of(("grid", str(ref))) if reuse else None
    if history is not None:
        arrays, _ = history.update(result.output(ref), lambda: result.arrays(ref))
    else:
        arrays = result.arrays(ref)
    layout = result.layout(ref)
    held = result.sample_indices(ref)  # a node inside a conditional block holds only some
    texts: list[str] = []
    if captions:
        labels = result.captions(node_id=ref.node)
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
    positions = list(range(len(arrays)))
    if samples is not None:
        positions = [held.index(i) for i in samples if i in held]
        texts = [texts[p] for p in positions] if texts else []
    step = result.plan.step(ref.node)
    normalization = (
        normalization_for(result.plan, step.id)
        if arrays and np.asarray(arrays[0]).dtype.kind == "f"
        else None
    )
    if history is None:
        return grid(
            [arrays[p] for p in positions],
            layout=layout,
            captions=texts,
            normalization=normalization,
            cell=cell,
            columns=columns,
            annotations=[drawn[p] if p < len(drawn) else None for p in positions],
            caption_lines=caption_lines,
        )
    if drawn:  # annotations are drawn into the cell: its pictures are kept per annotation
        cells = [
            _annotated_cell(
                history,
                p,
                arrays[p],
                layout,
                normalization,
                cell,
                drawn[p] if p < len(drawn) else None,
            )
            for p in positions
        ]
    else:
        cells = history.made(
            ("cell", cell, layout, normalization),
            lambda p: cell_picture(arrays[p], layout, normalization, cell),
            positions,
        )
    return compose(cells, captions=texts, cell=cell, columns=columns, caption_lines=caption_lines)


def _annotated_cell(
    history: PixelHistory,
    place: int,
    array: np.ndarray,
    layout: str,
    normalization: Normalization | None,
    cell: int,
    annotations: SampleAnnotations | None,
) -> np.ndarray:
    variant = ("cell", cell, layout, normalization, _annotation_key(annotations))
    kept = history.lookup(place, variant)
    if kept is None:
        kept = cell_picture(array, layout, normalization, cell, annotations)
        history.store(place, variant, kept)
    return np.asarray(kept)


def _annotation_key(annotations: SampleAnnotations | None) -> str:
    """A digest of what is drawn over a sample (a few hundred bytes of boxes, outlines, a mask)."""
    if annotations is None:
        return ""
    digest = hashlib.blake2b(digest_size=16)
    for name, value in sorted(vars(annotations).items()):
        digest.update(name.encode())
        for part in value if isinstance(value, tuple) else (value,):
            if isinstance(part, np.ndarray):
                digest.update(f"{part.dtype}{part.shape}".encode())
                digest.update(np.ascontiguousarray(part).tobytes())
            else:
                digest.update(repr(part).encode())
    return digest.hexdigest()
