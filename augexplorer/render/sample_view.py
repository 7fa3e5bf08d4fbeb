"""Everything a large view shows of one sample: the node's output at full resolution, its input
(before / after) and the decoded original, with the sample's file, label and drawn values.

Pictures are raw RGB bytes (the page draws them on a canvas: no encoding, no loss) and, where
the output is not plain uint8 RGB, the sample's own values too, so a pointer can read them.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..engine.internal_draws import FROM_OUTPUTS, WINDOW_OPS
from ..engine.policy_draws import POLICY_OPS, policy_draws
from ..engine.result import RunResult, draw_rows
from ..spec import Ref
from .class_colours import CLASS_IDS_SAID, class_pixels, draws_classes, is_mask_output
from .display import drawn_as, is_image_like, to_hwc, to_rgb8
from .tiles import display_normalization, value_text

# Past this many values a sample's readout uses the displayed pixels (a 16 MP float image is
# 200 MB of values to send for a pointer readout).
MAX_READOUT_VALUES = 8_000_000
# Types a browser reads as typed arrays; the rest are sent widened.
_WIDENED = {"float16": np.float32, "int64": np.float64, "uint64": np.float64, "bool": np.uint8}


@dataclass(frozen=True)
class Pane:
    role: str  # "after", "before" or "original"
    node: str
    shape: tuple[int, ...]
    dtype: str
    layout: str
    pixels: bytes | None = None  # H x W x 3 uint8, as displayed; None when not an image
    width: int = 0
    height: int = 0
    values: bytes | None = None  # the sample's values, H x W x C, where they differ from pixels
    values_dtype: str = ""
    channels: int = 0
    text: str = ""  # for outputs that are not images
    # the crop window the node drew on this picture (the "before" of a random crop), where
    # known: x, y, width, height in its pixels
    window: tuple[float, float, float, float] | None = None
    caption: str = ""  # what the picture is, where its node's name does not say it
    # how the values became these pixels, where they are not 8-bit pixels already
    drawn_as: str = ""


@dataclass(frozen=True)
class SampleView:
    index: int
    count: int
    node: str
    file: str
    label: str
    labels: list[int]
    draws: dict[str, dict[str, Any]]
    panes: list[Pane] = field(default_factory=list)
    # the draws as the page lists them, (name, text) a row: the grid's caption's own rows, so a
    # value reads the same on the tile and here (17.98 in both)
    draw_rows: list[tuple[str, str]] = field(default_factory=list)
    # what the draws above leave unsaid: operators that draw inside themselves, or that
    # nothing random reaches this node though the graph draws elsewhere ("" where all is said)
    draws_note: str = ""


def pane(result: RunResult, ref: Ref, index: int, role: str) -> Pane:
    sample = np.asarray(result.arrays(ref)[index])
    layout = result.layout(ref)
    base = Pane(
        role=role,
        node=str(ref) if ref.output else ref.node,
        shape=tuple(int(d) for d in sample.shape),
        dtype=str(sample.dtype),
        layout=layout,
    )
    if not is_image_like(sample, layout):
        return dataclasses.replace(base, text=value_text(sample))
    normalization = display_normalization(result, ref, sample)
    # a mask's class ids as the tiles draw them; the pointer still reads the ids (values)
    classes = is_mask_output(result.plan.spec, ref) and draws_classes(sample, layout)
    pixels = class_pixels(sample, layout) if classes else to_rgb8(sample, layout, normalization)
    hwc = to_hwc(sample, layout)
    values: bytes | None = None
    values_dtype = ""
    plain_rgb = hwc.dtype == np.uint8 and hwc.shape[2] == 3
    if not plain_rgb and hwc.size <= MAX_READOUT_VALUES:
        wide = _WIDENED.get(str(hwc.dtype))
        array = np.ascontiguousarray(hwc.astype(wide) if wide is not None else hwc)
        values, values_dtype = array.tobytes(), array.dtype.name  # numpy is little-endian here
    return dataclasses.replace(
        base,
        pixels=np.ascontiguousarray(pixels).tobytes(),
        width=int(pixels.shape[1]),
        height=int(pixels.shape[0]),
        values=values,
        values_dtype=values_dtype,
        channels=int(hwc.shape[2]) if values is not None else 3,
        drawn_as=CLASS_IDS_SAID if classes else drawn_as(sample.dtype, normalization),
    )


def sample_view(result: RunResult, node: str | None, index: int) -> SampleView:
    """Sample `index` of the batch at `node`'s output (the graph's output when None): after,
    before, original. A node inside a conditional block holds only the samples where the block
    ran (:meth:`RunResult.sample_indices`); a pane it does not hold is left out."""
    ref = Ref(node) if node is not None else result.final
    held = result.sample_indices(ref)
    count = len(held)
    if index not in held:
        raise IndexError(f"sample {index} is not among the {count} samples of {ref.node}")
    candidates = [("after", ref)]
    before = result.input_of(ref.node)
    if before is not None:
        candidates.append(("before", before))
    original = result.original_of(ref.node)
    if original is not None:
        candidates.append(("original", original))
    panes: list[Pane] = []
    seen: set[Ref] = set()
    for role, candidate in candidates:
        # past a decoder that decodes a window only, the original is the whole file: another
        # picture than the decoder's crop, even where that crop is the "before" already
        whole = (
            _whole_image(result, candidate.node, index)
            if role == "original" and candidate != ref
            else None
        )
        if (candidate in seen and whole is None) or candidate.node not in result.steps:
            continue
        position = result.position_of(candidate, index)
        if position is None:  # inside a conditional block that did not run on this sample
            continue
        seen.add(candidate)
        made = pane(result, candidate, position, role)
        if role == "before":
            made = _whole_image(result, ref.node, index) or made  # a decoder's: encoded bytes
        if role == "before" and made.pixels is not None:
            made = dataclasses.replace(made, window=_window_on(result, ref.node, index, made))
        if whole is not None:
            window = _window_on(result, candidate.node, index, whole)
            made = dataclasses.replace(whole, role="original", window=window)
        panes.append(made)
    labels = result.labels(node_id=ref.node)  # the objects its caption names
    captions = result.captions(node_id=ref.node)
    files = result.files()
    return SampleView(
        index=index,
        count=count,
        node=ref.node,
        file=files[index] if index < len(files) else "",
        label=captions[index] if index < len(captions) else "",
        labels=labels[index] if index < len(labels) else [],
        draws=(draws := _with_policy_choices(result, ref.node, index)),
        panes=panes,
        draw_rows=listed_draws(draws),
        draws_note=draws_note(result, ref.node, bool(draws), known=set(draws)),
    )


def listed_draws(draws: dict[str, dict[str, Any]]) -> list[tuple[str, str]]:
    """One sample's draws (node -> argument -> value) as (name, text) rows, by the rule its
    tile's caption is written with: a node named as its argument once, the same digits, a
    node a coin skipped named under "skipped" instead of values it did not apply."""
    (rows,) = draw_rows(
        {node: {arg: [v] for arg, v in args.items()} for node, args in draws.items()}, 1, True
    )
    return [(row.label, row.text) for row in rows]


def _with_policy_choices(result: RunResult, node: str, index: int) -> dict[str, dict[str, Any]]:
    """The values drawn for sample `index` up to `node`, with what each ``auto_aug`` policy up
    to it chose (:mod:`~augexplorer.engine.policy_draws`). Worked out here, for one large view,
    not for every tile: it runs the policy again (~0.1 s from a kept copy, ~1-3 s the first
    time a policy is set up so)."""
    draws = result.draws_of(index, reaching=node)
    reaching = result.reaching_nodes(node)
    for step in result.plan.steps:
        if step.op not in POLICY_OPS or step.origin not in reaching:
            continue
        chosen = policy_draws(result, step)
        if chosen is not None and index < len(chosen.choices) and chosen.choices[index]:
            draws.setdefault(step.origin, {})["chose"] = chosen.choices[index]
    order = {step.origin: place for place, step in enumerate(result.plan.steps)}
    return dict(sorted(draws.items(), key=lambda item: order.get(item[0], 0)))


def _whole_image(result: RunResult, node: str, index: int) -> Pane | None:
    """For a decoder that decodes a random window only: the whole image it was cut from, as
    DALI decodes it (kept where the window was recovered), shown as its "before" and as the
    "original" of the nodes after it."""
    windows = result.windows(node)
    if windows is None or index >= len(windows.wholes) or windows.wholes[index] is None:
        return None
    whole = np.asarray(windows.wholes[index])
    pixels = to_rgb8(whole, "HWC")
    return Pane(
        role="before",
        node=node,
        caption="the whole image, decoded again",
        shape=tuple(int(d) for d in whole.shape),
        dtype=str(whole.dtype),
        layout="HWC",
        pixels=np.ascontiguousarray(pixels).tobytes(),
        width=int(pixels.shape[1]),
        height=int(pixels.shape[0]),
        channels=3,
    )


def _window_on(
    result: RunResult, node: str, index: int, before: Pane
) -> tuple[float, float, float, float] | None:
    """The window `node` cropped from sample `index`, in pixels of its input (`before`): one it
    drew itself, or one a ``random_bbox_crop`` drew for it (a ``slice`` reading its anchor and
    shape)."""
    step = result.plan.node_step(node)
    drawer = node if step.op in WINDOW_OPS else None
    for ref in step.inputs[1:]:
        producer = result.plan.step(ref.node)
        if producer.op == FROM_OUTPUTS and ref.output in (0, 1):
            drawer = producer.origin
    windows = result.windows(drawer) if drawer is not None else None
    window = windows.windows[index] if windows is not None else None
    if window is None:
        return None
    if not window.relative:
        return (window.x, window.y, window.width, window.height)
    w, h = before.width, before.height
    return (window.x * w, window.y * h, window.width * w, window.height * h)


def draws_note(result: RunResult, node: str, drawn: bool, known: set[str] | None = None) -> str:
    """What the drawn values shown for `node` leave unsaid: operators up to it that draw
    inside themselves (DALI returns none of those values; `known`: nodes whose draws were worked
    out all the same), or, with nothing drawn up to it, that the graph draws only after it;
    "nothing random in this graph" only where that is so."""
    hidden = [n for n in result.hidden_draws(reaching=node) if n not in (known or set())]
    if hidden:
        names = ", ".join(hidden)
        verb = "draws" if len(hidden) == 1 else "draw"
        return f"{names} {verb} internally: DALI does not return what was drawn"
    if drawn:
        return ""
    later = [n for n in {**result.draws(), **dict.fromkeys(result.hidden_draws())} if n != node]
    if later:
        return f"nothing random up to {node}; drawn after it: {', '.join(later)}"
    return "nothing random in this graph"
