"""Boxes through the geometric nodes of an annotated graph: how many went in, how many came out
(a crop drops the boxes it leaves out) and how many ended cut by the image border.

For each image node that moves pixels, the boxes before it are those of its input node and the
boxes after it those :func:`~augexplorer.annotations.tracks_at` finds for it (the companion's
output, or the same boxes where a resize leaves ratio coordinates right). A box counts as clipped
when it ends at the image border; boxes that already touched the border before the node are not
counted again. Only nodes the boxes really go through are counted, as the panel draws them: an
image node (:func:`~augexplorer.annotations.tracks_at` finds no tracks at a mask's own resize
or crop) that no step up to it, itself included, left the boxes behind; boxes a crop leaves
behind are the source's boxes, and counting them "through" it would report a crop that never
happened to them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..annotations.geometry import moves_pixels
from ..annotations.tracks import Tracks, tracks_at
from ..spec import GraphSpec, Ref
from .state import Leaf, ints, summed

BORDER = 1e-4  # in ratio to the image size: a box edge this close to the border touches it


@dataclass
class BoxFlow:
    """Box counts at one geometric node, summed over the samples counted."""

    node: str
    op: str
    boxes_in: int = 0
    boxes_out: int = 0
    clipped: int = 0
    samples: int = 0

    def state(self) -> list[Leaf]:
        return [ints(self.boxes_in, self.boxes_out, self.clipped, self.samples)]

    def load_state(self, combined: list[Leaf]) -> None:
        self.boxes_in, self.boxes_out, self.clipped, self.samples = (
            int(v) for v in summed(combined[0])
        )

    @property
    def dropped(self) -> int:
        return max(0, self.boxes_in - self.boxes_out)

    def to_json(self) -> dict[str, Any]:
        return {
            "node": self.node,
            "op": self.op,
            "samples": self.samples,
            "boxes_in": self.boxes_in,
            "boxes_out": self.boxes_out,
            "dropped": self.dropped,
            "clipped": self.clipped,
        }


@dataclass(frozen=True)
class _Watch:
    flow: BoxFlow
    before: Ref
    after: Ref
    image_before: Ref
    image_after: Ref
    tracks: Tracks


class BoxCounter:
    """Which outputs box counting reads (:attr:`refs`), and the counts (:attr:`flows`)."""

    def __init__(self, spec: GraphSpec) -> None:
        self._watches: list[_Watch] = []
        for node in spec.operators():
            if not node.inputs or not moves_pixels(node.op, node.args):
                continue
            after = tracks_at(spec, node.id)
            before = tracks_at(spec, node.inputs[0].node)
            if after is None or before is None:
                continue
            boxes_after, boxes_before = after.get("boxes"), before.get("boxes")
            if boxes_after is None or boxes_before is None:
                continue
            if _left_behind(after):
                continue
            flow = BoxFlow(node.id, node.op)
            image_before = node.inputs[0]
            self._watches.append(
                _Watch(flow, boxes_before, boxes_after, image_before, Ref(node.id), after)
            )

    @property
    def flows(self) -> list[BoxFlow]:
        return [watch.flow for watch in self._watches]

    @property
    def refs(self) -> list[Ref]:
        found: list[Ref] = []
        for w in self._watches:
            found += [
                r for r in (w.before, w.after, w.image_before, w.image_after) if r not in found
            ]
        return found

    def add(self, host: Callable[[str], list[np.ndarray]]) -> None:
        """One batch: `host` gives an output's samples as host arrays, by ref text."""
        for w in self._watches:
            before, after = host(str(w.before)), host(str(w.after))
            images_before, images_after = host(str(w.image_before)), host(str(w.image_after))
            for was, now, image_was, image_now in zip(
                before, after, images_before, images_after, strict=True
            ):
                old = _ratio_ltrb(was, image_was, w.tracks)
                new = _ratio_ltrb(now, image_now, w.tracks)
                w.flow.samples += 1
                w.flow.boxes_in += len(old)
                w.flow.boxes_out += len(new)
                w.flow.clipped += max(0, _touching(new) - _touching(old))


def _left_behind(tracks: Tracks) -> bool:
    """Whether some image node up to this one left the boxes behind (the panel then draws none
    here: they no longer match the images)."""
    return any("boxes" in kinds for kinds in tracks.left.values())


def _ratio_ltrb(boxes: np.ndarray, image: np.ndarray, tracks: Tracks) -> np.ndarray:
    """Boxes as left, top, right, bottom in ratio to the (HWC) image's size."""
    box = np.asarray(boxes, np.float64).reshape(-1, 4)
    if not tracks.format.ltrb:
        box = np.concatenate([box[:, :2], box[:, :2] + box[:, 2:]], axis=1)
    if not tracks.format.ratio and image.ndim >= 2:
        height, width = image.shape[:2]
        box = box / np.array([width, height, width, height], np.float64)
    return box


def _touching(boxes: np.ndarray) -> int:
    """Boxes with an edge on the image border."""
    if not len(boxes):
        return 0
    low = (boxes[:, :2] <= BORDER).any(axis=1)
    high = (boxes[:, 2:] >= 1 - BORDER).any(axis=1)
    return int(np.count_nonzero(low | high))
