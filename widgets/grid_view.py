"""The pictures: the batch (final output or the selected node), one image under many draws, and
A/B (the previous parameters beside the current ones, same draws). JPEG bytes in an Image."""

from __future__ import annotations

import html

import ipywidgets as widgets
import numpy as np
from PIL import Image

from augexplorer.engine import RunResult
from augexplorer.render import encode, grid, normalization_for, render_node
from augexplorer.spec import Ref

from .state import Snapshot
from .variety import Variety, VarietyError

MODES = ("Batch", "Variety", "A/B")
CELL = 150
# A preview, redrawn on every edit: 80 looks the same as 90 at this size, in fewer bytes to send.
JPEG_QUALITY = 80


def ab_picture(before: Snapshot, result: RunResult, count: int = 4) -> Image.Image:
    """Pairs of (before, after) for the first `count` samples, seeds locked on both sides."""
    ref = result.final
    after = result.arrays(ref)
    count = min(count, len(after), len(before.arrays))
    samples: list[np.ndarray] = []
    captions: list[str] = []
    for i in range(count):
        samples += [before.arrays[i], after[i]]
        captions += [f"A (before) #{i}", f"B (now) #{i}"]
    norm = (
        normalization_for(result.plan, ref.node)
        if samples and samples[0].dtype.kind == "f"
        else None
    )
    return grid(
        samples,
        layout=result.layout(ref),
        captions=captions,
        normalization=norm,
        cell=CELL,
        columns=4,
    )


def variety_picture(varied: RunResult, ref: Ref | None, caption: str) -> Image.Image:
    """The copies of one image, captioned with its class name and each copy's draws."""
    ref = ref or varied.final
    arrays = varied.arrays(ref)
    draws = varied.draw_captions()
    texts = [
        " ".join(t for t in (caption, draws[i] if i < len(draws) else "") if t)
        for i in range(len(arrays))
    ]
    norm = (
        normalization_for(varied.plan, ref.node)
        if arrays and np.asarray(arrays[0]).dtype.kind == "f"
        else None
    )
    return grid(arrays, layout=varied.layout(ref), captions=texts, normalization=norm, cell=CELL)


class GridView(widgets.VBox):
    def __init__(self, variety: Variety) -> None:
        self.variety = variety
        self.mode = widgets.ToggleButtons(
            options=list(MODES), value="Batch", style={"button_width": "76px"}
        )
        self.mode.add_class("ax-grid-mode")
        self.caption = widgets.HTML("")
        self.caption.add_class("ax-grid-caption")
        self.image = widgets.Image(format="jpeg")
        self.image.add_class("ax-grid")
        self.note = widgets.HTML("")
        head = widgets.HBox([self.mode, self.caption])
        head.add_class("ax-grid-head")
        super().__init__([head, self.note, self.image])
        self.add_class("ax-grid-view")
        self.renders = 0
        self._drawn: tuple[object, ...] | None = None

    def show(self, result: RunResult | None, node: str | None, before: Snapshot | None) -> None:
        if result is None:
            return
        key = (id(result), node, self.mode.value, id(before))
        if key == self._drawn:
            return  # same picture: an edit that failed keeps the last good grid as it is
        self._drawn = key
        self.note.value = ""
        mode = self.mode.value
        if mode == "A/B" and before is not None:
            picture = ab_picture(before, result)
            what = "A: before the last edit · B: now (same draws)"
        elif mode == "Variety":
            try:
                varied = self.variety.run(result.plan.spec, result)
                picture = variety_picture(varied, _ref_in(varied, node), self.variety.caption)
                what = f"one image, {self.variety.copies} draws" + (
                    f" · node {node}" if node else ""
                )
            except VarietyError as error:
                self.note.value = f"<span class='ax-muted'>{html.escape(str(error))}</span>"
                picture = render_node(result, _ref_in(result, node), cell=CELL)
                what = "batch"
            except Exception as error:  # the variety graph failed: say so, keep the batch
                self.note.value = f"<span class='ax-errors'>{html.escape(str(error))}</span>"
                picture = render_node(result, _ref_in(result, node), cell=CELL)
                what = "batch"
        else:
            if mode == "A/B":
                self.note.value = (
                    "<span class='ax-muted'>Make an edit to compare with what was before.</span>"
                )
            picture = render_node(result, _ref_in(result, node), cell=CELL)
            what = f"node <b>{html.escape(node)}</b>" if node else "final output"
        shown_count = (
            self.variety.copies if what.startswith("one image") else result.plan.spec.batch_size
        )
        self.caption.value = (
            f"<span class='ax-muted'>{what} · batch {result.batch_index} · "
            f"{shown_count} images</span>"
        )
        self.image.value = encode(picture, "jpeg", quality=JPEG_QUALITY)
        self.renders += 1


def _ref_in(result: RunResult, node: str | None) -> Ref | None:
    if node is None or node not in result.steps:
        return None
    return Ref(node)
