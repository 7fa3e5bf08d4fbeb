"""The operator picker: the catalog grouped by what operators do, with search and one click to
add. What fits at the selected point is offered; the rest is greyed with the reason. Audio,
video and readers stay hidden unless asked for.

The list is computed here (:meth:`OpPicker.show`) and drawn by ``static/op_picker.js``; a click
comes back as a message and is handled by :meth:`OpPicker.pick`, which tests call directly.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anywidget
import traitlets

from augexplorer.catalog import Catalog, OpInfo
from augexplorer.catalog.auto_aug import is_auto_aug
from augexplorer.catalog.flow import Placement

from .graph_view import STATIC

GROUPS = (
    "colour",
    "geometry",
    "crop and resize",
    "blur and noise",
    "auto augment",
    "random",
    "transforms",
    "other",
    "audio, video and readers",
)
HIDDEN_GROUP = GROUPS[-1]

# DALI's auto_aug policies expand into dozens of operators under conditionals: an edit of one
# cannot re-run a cached step, it builds and runs a new pipeline (0.5-1 s on the CPU, batch 8).
REBUILD_NOTE = "each edit rebuilds a DALI pipeline (about a second, not milliseconds)"

_BY_NAME = {
    "colour": {
        "brightness",
        "brightness_contrast",
        "contrast",
        "hue",
        "saturation",
        "hsv",
        "color_twist",
        "color_space_conversion",
        "clahe",
        "equalize",
        "normalize",
        "lookup_table",
        "cast",
    },
    "geometry": {
        "rotate",
        "flip",
        "warp_affine",
        "experimental.warp_perspective",
        "water",
        "sphere",
        "transpose",
        "jitter",
        "experimental.remap",
    },
    "crop and resize": {
        "crop",
        "crop_mirror_normalize",
        "resize",
        "resize_crop_mirror",
        "random_resized_crop",
        "slice",
        "pad",
        "paste",
        "experimental.resize",
        "roi_random_crop",
        "random_bbox_crop",
    },
    "blur and noise": {
        "gaussian_blur",
        "laplacian",
        "jpeg_compression_distortion",
        "erase",
        "grid_mask",
        "experimental.median_blur",
        "experimental.dilate",
        "experimental.erode",
    },
}
_AUDIO_VIDEO = {
    "audio_resample",
    "mfcc",
    "mel_filter_bank",
    "nonsilent_region",
    "power_spectrum",
    "preemphasis_filter",
    "spectrogram",
    "to_decibels",
    "optical_flow",
    "per_frame",
    "sequence_rearrange",
    "decoders.audio",
    "decoders.video",
    "external_source",
}


def group_of(op: OpInfo) -> str:
    """Which group of the picker lists `op`."""
    name = op.name
    if is_auto_aug(name):
        return "auto augment"
    for group, names in _BY_NAME.items():
        if name in names:
            return group
    if name.startswith("noise."):
        return "blur and noise"
    if name.startswith("random."):
        return "random"
    if name.startswith("transforms."):
        return "transforms"
    if name in _AUDIO_VIDEO or "readers." in name or "inputs." in name or "video" in name:
        return HIDDEN_GROUP
    return "other"


def _searched_text(item: dict[str, Any]) -> str:
    """What a search reads of an item: its name, the name's parts as words, its summary."""
    name = item["name"]
    known = " ".join(item.get("known", ()))
    return f"{name} {name.replace('.', ' ').replace('_', ' ')} {item['summary']} {known}".lower()


def _named(item: dict[str, Any], words: list[str]) -> bool:
    """Whether the operator's own name holds every word ("random crop": random_resized_crop)."""
    name = item["name"]
    text = f"{name} {name.replace('.', ' ').replace('_', ' ')}".lower()
    return all(word in text for word in words)


def known_names() -> dict[str, tuple[str, ...]]:
    from augexplorer.port.known_names import known_names as ported_names

    return ported_names()


class OpPicker(anywidget.AnyWidget):
    _esm = STATIC / "op_picker.js"
    items = traitlets.List(traitlets.Dict()).tag(sync=True)
    where = traitlets.Unicode("").tag(sync=True)
    search = traitlets.Unicode("").tag(sync=True)
    show_hidden = traitlets.Bool(False).tag(sync=True)
    message = traitlets.Unicode("").tag(sync=True)
    groups = traitlets.List(traitlets.Unicode(), list(GROUPS)).tag(sync=True)  # in this order

    def __init__(
        self,
        catalog: Catalog,
        on_add: Callable[[str], str | None],
        placement: Callable[[str], Placement] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.catalog = catalog
        self._on_add = on_add
        self._placement = placement
        self._key: object = None
        self.add_class("ax-op-picker")
        self.on_msg(self._message)
        self._said_where = ""
        self.show(None, "")

    def show(self, key: object, where: str) -> None:
        """Work out what fits where an operator would go now (`where` names that point);
        `key` identifies the graph's structure, so an argument edit does not redo the work."""
        if where != self._said_where:
            self.message = ""  # what the last pick said was about another point of the graph
        if key == self._key and self.items and key is not None:
            return
        self._key = key
        items = [self._item(op) for op in self.catalog]
        with self.hold_sync():  # one message: the page never shows a new line over old items
            self.where = where
            self.items = items

    def _item(self, op: OpInfo) -> dict[str, Any]:
        place = self._placement(op.name) if self._placement is not None else None
        reason = op.unavailable_reason or (place.reason if place is not None else None)
        return {
            "name": op.name,
            "group": group_of(op),
            "summary": op.summary()[:160],
            "fits": reason is None,
            "reason": reason or "",
            "note": place.note if place is not None else "",
            "tuned": any(arg.hint is not None for arg in op.args),
            "cost": REBUILD_NOTE if is_auto_aug(op.name) else "",
            # the torchvision / albumentations names ported to this operator: "RandomResizedCrop"
            # finds random_resized_crop
            "known": list(known_names().get(op.name, ())),
        }

    def matches(self, text: str) -> list[dict[str, Any]]:
        """The items a search for `text` lists, in the order shown: what fits first."""
        needle = text.lower().strip()
        words = needle.split()
        found = [
            item
            for item in self.items
            if (self.show_hidden or needle or item["group"] != HIDDEN_GROUP)
            and all(word in _searched_text(item) for word in words)
        ]
        # as the page orders them: what fits, then by group, then names holding every word first
        return sorted(
            found,
            key=lambda i: (
                not i["fits"],
                GROUPS.index(i["group"]),
                not _named(i, words),
                i["name"],
            ),
        )

    def item(self, name: str) -> dict[str, Any] | None:
        return next((i for i in self.items if i["name"] == name), None)

    def pick(self, name: str) -> bool:
        """What one click on `name` does: add it when it fits, else say why not."""
        found = self.item(name)
        if found is None:
            self.message = f"no operator {name!r}"
            self._said_where = self.where
            return False
        if not found["fits"]:
            self.message = f"{name}: {found['reason']}"
            self._said_where = self.where
            return False
        said = [found["note"], found["cost"]]
        # what adding it had to say: the companions wired on an annotated graph, or that the
        # annotations no longer match after it
        said.append(self._on_add(name) or "")
        notes = "; ".join(part for part in said if part)
        # Named as the add it was about: the line above already speaks of the next one.
        self.message = f"Added {name}: {notes}" if notes else ""
        self._said_where = self.where  # where the add left the selection
        return True

    def _message(self, _: Any, content: Any, buffers: Any = None) -> None:
        if isinstance(content, dict) and isinstance(content.get("add"), str):
            self.pick(content["add"])
