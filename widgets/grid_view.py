"""The pictures: the batch (final output or the selected node), one image under many draws, and
A/B (the selected node before the last edit beside now, same draws), as tiles with a large view.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import Any

import ipywidgets as widgets
import numpy as np

from augexplorer.engine import RunResult
from augexplorer.render.overlay_data import (
    available_kinds,
    left_behind,
    node_overlays,
    overlay_fixes,
    pane_overlay,
)
from augexplorer.render.sample_view import sample_view
from augexplorer.render.tiles import Tile, node_drawn_as, node_tiles, picture_size, pictures
from augexplorer.render.value_scale import scale_warning
from augexplorer.spec import Ref

from . import sliders
from .annotations_view import AnnotationToggles
from .arg_controls import NumberSlider, number_box
from .drag_preview import DragPreview
from .failure import Failure
from .number_field import RefusedLine
from .numbers import format_number, parse_in_range
from .shown import Shown, shown
from .snapshot import Snapshot
from .tile_grid import DEFAULT_SIZE, TileGrid, large_state, tile_state
from .variety import MAX_COPIES, MIN_COPIES, Variety, VarietyError

MODES = ("Batch", "Variety", "A/B")
# "Fit N a row": the page sizes the tiles so that N fill the output's width, whatever its width.
PER_ROW = (0, 1, 2, 3, 4, 6, 8)
# CSS pixels per picture: from many small tiles a row up to one picture as wide as a wide panel
MIN_SIZE, MAX_SIZE = 120, 1200
# A preview during a drag is this much smaller on each side (a quarter of the pixels to encode,
# move and decode), made by the tiles' quick path (`node_tiles(preview=True)`: every n-th pixel of
# a large sample first, a lower JPEG quality); the full pictures replace it once the slider rests.
PREVIEW_DIVISOR = 2


def _muted(text: str) -> str:
    return f"<span class='ax-muted'>{text}</span>"


def _what(what: Shown) -> str:
    """Whose output the tiles show; an older result than the graph's is said in warning colours."""
    return f"<span class='ax-stale-what'>{what.what}</span>" if what.stale else what.what


def _drawn_as(result: RunResult, ref: Ref, tiles: list[Tile]) -> str:
    """How the tiles' pictures were made of values that are not 8-bit pixels (normalized floats
    look like a photo), said after the caption; nothing where no tile is a picture."""
    said = node_drawn_as(result, ref) if any(t.picture for t in tiles) else ""
    if not said:
        return ""
    # pictures of normalized floats look right on any scale: a wrong one is said in warning
    # colours, as the statistics say it
    wrong = scale_warning(result, ref)
    # the report's `code` marks are plain text here
    text = html.escape(str(wrong).replace("`", "")) if wrong else ""
    warned = f" · <span class='ax-scale-warning'>⚠ {text}</span>" if wrong else ""
    return f" · {html.escape(said)}{warned}"


def _is(flags: list[bool], index: int) -> bool:
    return index < len(flags) and flags[index]


def _padding_note(padded: list[bool]) -> str:
    """The epoch's last batch: the tiles that repeat its last file are the reader's padding."""
    count = sum(padded)
    if not count:
        return ""
    return (
        f" · <b>the epoch's last batch</b>: {count} tile{'s' if count > 1 else ''} marked "
        f"padding {'repeat' if count > 1 else 'repeats'} its last file (training's loader "
        "drops them on one rank, keeps them on several so that every rank's batch is full)"
    )


def _dropped_note(dropped: list[bool]) -> str:
    """An epoch's last batch from a reader that does not pad: training drops its tail."""
    count = sum(dropped)
    if not count:
        return ""
    return (
        f" · <b>an epoch's last batch</b>: {count} tile{'s' if count > 1 else ''} marked "
        "dropped: the reader does not pad (pad_last_batch=False) and fills the batch from what "
        "follows, which training's loader on one rank drops"
    )


def _epoch_end(label: str, index: int, padded: list[bool], dropped: list[bool]) -> str:
    if _is(padded, index):
        return f"{label} · padding"
    return f"{label} · dropped" if _is(dropped, index) else label


class GridView(widgets.VBox):
    def __init__(self, variety: Variety) -> None:
        self.variety = variety
        self.variety_sample = 0
        self.mode = widgets.ToggleButtons(
            options=list(MODES), value="Batch", style={"button_width": "76px"}
        )
        self.mode.add_class("ax-grid-mode")
        # The slider's own readout would clamp a typed size, or drop text, without a word: the
        # size is typed in a box read here, which says why a value is not applied.
        self.size = NumberSlider(
            sliders.IntSlider(
                min=MIN_SIZE,
                max=MAX_SIZE,
                step=20,
                description="tile size",
                continuous_update=False,
                readout=False,
                style={"description_width": "56px"},
            ),
            number_box(),
            DEFAULT_SIZE,
            bounds=(MIN_SIZE, MAX_SIZE),
            what="the tile size",
        )
        self.size.slider.layout.width = "190px"
        self.size.box.layout.width = "52px"
        self.size.add_class("ax-tile-size")
        self.size.on_unparsed = self._size_refused
        self.per_row = widgets.Dropdown(
            options=[("by size", 0)] + [(f"{n} a row", n) for n in PER_ROW if n],
            value=0,
            description="fit",
            style={"description_width": "20px"},
            layout={"width": "118px"},
        )
        self.per_row.add_class("ax-per-row")
        self._fitting = False  # the size is being set from the page's fit, not by the user
        # A text box, not a BoundedIntText: the page would clamp what is typed there unsaid.
        self.draws = widgets.Text(
            value=str(variety.copies),
            description="draws",
            continuous_update=False,
            style={"description_width": "40px"},
            layout={"width": "110px", "display": "none"},
        )
        self.draws.add_class("ax-variety-draws")
        # Why a typed tile size or number of draws was not applied, on a line of its own.
        self.refused = RefusedLine("ax-grid-refused")
        self.refused.layout.flex = "1 1 100%"
        self._syncing = False
        self.caption = widgets.HTML("")
        self.caption.add_class("ax-grid-caption")
        self.note = widgets.HTML("")
        self.tiles = TileGrid(size=DEFAULT_SIZE, vary_draws=variety.copies)
        # the overlays' fix: carry a kind to the node shown (set by the panel: an edit)
        self.on_carry: Callable[[str, str], None] | None = None
        self._overlay_node: str | None = None
        self.overlay_toggles = AnnotationToggles(self._overlay_kinds_changed, self._carry)
        self.tiles.overlay_kinds = self.overlay_toggles.shown
        head = widgets.HBox([self.mode, self.size, self.per_row, self.draws, self.refused])
        head.add_class("ax-grid-head")
        super().__init__([head, self.overlay_toggles, self.caption, self.note, self.tiles])
        self.add_class("ax-grid-view")
        self.renders = 0
        self.previews = 0  # redraws sent as a preview (tests, benchmarks)
        self._drag = DragPreview(self._rested)
        self._preview = False  # the tiles on the page now are a preview
        self._picture_side = DEFAULT_SIZE  # the side pictures are encoded at in this redraw
        self._drawn: tuple[object, ...] | None = None
        self._last: tuple[Any, ...] | None = None
        self._view: tuple[RunResult, str | None, bool] | None = None  # what the large view reads
        self.mode.observe(lambda _: self._mode_changed(), "value")
        self.size.observe(lambda _: self._size_changed(), "value")
        self.per_row.observe(lambda c: self._per_row_changed(c["new"]), "value")
        self.tiles.observe(lambda c: self._fitted(c["new"]), "fitted")
        self.draws.observe(self._draws_typed, "value")
        self.tiles.observe(lambda _: self._draw_large(), "opened")
        self.tiles.on_vary(self.vary)

    @property
    def pictures(self) -> tuple[bytes | None, ...]:
        """Every picture on screen, tile by tile (what a redraw changes)."""
        return tuple(p for tile in self.tiles.tiles for p in tile["pictures"])

    # ---- drawing ----------------------------------------------------------------------------
    def show(
        self,
        result: RunResult | None,
        node: str | None,
        before: Snapshot | None,
        failure: Failure | None = None,
    ) -> None:
        if result is None:  # nothing of this graph ran: no other graph's pictures either
            self._clear()
            return
        self._last = (result, node, before, failure)
        mode = self.mode.value
        key = (
            id(result),
            node,
            mode,
            id(before) if mode == "A/B" else None,
            id(failure),
            self.size.value,
            (self.variety_sample, self.variety.copies) if mode == "Variety" else None,
        )
        if key == self._drawn:
            return  # same picture: an edit that failed keeps the last good grid as it is
        # A new result coming hard on the last one is a slider being dragged: a preview now, the
        # full pictures when it rests; any other redraw (mode, size) is drawn in full.
        new_result = self._drawn is not None and key[0] != self._drawn[0]
        preview = self._drag.new_result() if new_result else False
        if not preview:
            self._drag.cancel()
        self._drawn = key
        self._draw(result, node, before, failure, preview=preview)
        if new_result:
            self._drag.drawn()

    def _rested(self) -> None:
        """The slider rests: the last result's full pictures replace its preview."""
        if not self._preview or self._last is None:
            return
        try:
            self._draw(*self._last, preview=False)
        except Exception as error:  # said where the grid says it, as an edit's redraw would
            self.note.value = f"<span class='ax-errors'>{html.escape(str(error))}</span>"

    def _draw(
        self,
        result: RunResult,
        node: str | None,
        before: Snapshot | None,
        failure: Failure | None,
        *,
        preview: bool,
    ) -> None:
        mode = self.mode.value
        self._preview = preview
        self._picture_side = self.size.value // PREVIEW_DIVISOR if preview else self.size.value
        self.previews += preview
        self.note.value = ""
        what = shown(result, node, failure)
        with self.tiles.hold_sync():  # pictures and their annotations reach the page together
            if mode == "A/B":
                self._show_ab(result, what, before)
            elif mode == "Variety":
                self._show_variety(result, what)
            else:
                self._show_batch(result, what)
        self.tiles.stale = what.stale
        self.renders += 1
        if self.tiles.opened >= 0:
            self._draw_large()

    def _clear(self) -> None:
        self._drag.cancel()
        self._preview = False
        if self._drawn is None and not self.tiles.tiles:
            return
        self._last = self._drawn = self._view = None
        with self.tiles.hold_sync():
            self.tiles.opened = -1
            self.tiles.tiles = []
            self.tiles.overlays = []
        self.overlay_toggles.offer(None)
        self.caption.value = ""
        self.note.value = ""

    def _show_batch(self, result: RunResult, what: Shown) -> None:
        tiles = node_tiles(result, what.ref, self._picture_side, preview=self._preview)
        padded, dropped = result.padded(), result.dropped()
        self.tiles.tiles = [
            tile_state(
                t.index,
                [t.picture],
                text=t.text,
                label=_epoch_end(t.label, t.index, padded, dropped),
                draws=t.draws,
                file=t.file,
                sizes=[(t.width, t.height)],
                preview=self._preview,
            )
            for t in tiles
        ]
        self._view = (result, what.ref.node, True)
        self._annotate(result, what.ref, picture=0, pictures=1)
        self.caption.value = _muted(
            f"{_what(what)} · batch {result.batch_index + 1} · {len(tiles)} images "
            f"· click an image for a large view{_padding_note(padded)}{_dropped_note(dropped)}"
            f"{_drawn_as(result, what.ref, tiles)}"
        )

    def _show_ab(self, result: RunResult, what: Shown, before: Snapshot | None) -> None:
        node = what.ref.node
        if before is not None:
            before = before.named_as(result.plan.spec)  # a renamed node is still the same node
        kept = before.of(what.ref) if before is not None else None
        if before is None or kept is None:
            name = html.escape(str(what.ref))
            if before is None:
                reason = "Make an edit to compare with what was before."
            elif what.ref in before.left_out:
                reason = f"The output of {name} before the last edit was too large to keep."
            else:
                reason = f"{name} did not exist before the last edit."
            self.note.value = _muted(f"A/B: {reason} Showing now only.")
            self._show_batch(result, what)
            return
        tiles = node_tiles(result, what.ref, self._picture_side, preview=self._preview)
        # the same sample before and now (a node inside a conditional block holds only some)
        pairs = [(t, p) for t in tiles if (p := kept.position(t.index)) is not None]
        wanted = [kept.arrays[p] for _, p in pairs]
        older = pictures(
            wanted, kept.layout, kept.normalization, self._picture_side, preview=self._preview
        )
        count = len(pairs)
        # only the draws the shown node depends on: an edit downstream draws nothing here
        drawn_before = before.draw_captions(node, result.plan.spec.batch_size)
        before_draws = [
            drawn_before[t.index] if t.index < len(drawn_before) else "" for t, _ in pairs
        ]
        same_draws = all(a == t.draws for a, (t, _) in zip(before_draws, pairs, strict=True))
        self.tiles.tiles = [
            tile_state(
                t.index,
                [picture, t.picture],
                tags=("A before", "B now"),
                sizes=[picture_size(array, kept.layout), (t.width, t.height)],
                label=t.label,
                # an edit of a distribution or of the seeds draws other values: say both
                draws=t.draws
                if drawn == t.draws
                else f"A: {drawn or 'none'} · B: {t.draws or 'none'}",
                file=t.file,
                text=t.text,
                preview=self._preview,
            )
            for (t, _), picture, drawn, array in zip(
                pairs, older, before_draws, wanted, strict=True
            )
        ]
        self._view = (result, node, True)
        self._annotate(result, what.ref, picture=1, pictures=2)  # on "B now"
        now = result.arrays(what.ref)
        unchanged = len(now) == len(kept.arrays) and all(
            a.shape == b.shape and np.array_equal(a, b)
            for a, b in zip(now, kept.arrays, strict=True)
        )
        said = (
            " · <b>the last edit did not change this output</b>: A and B are the same (select a "
            "node after the one you edited)"
            if unchanged
            else ""
        )
        self.caption.value = _muted(
            f"A/B of {_what(what)}: A before the last edit · B now, "
            f"{'same draws' if same_draws else 'new draws (each tile says both)'} · all {count} "
            f"samples{said}{_drawn_as(result, what.ref, tiles)}"
        )

    def _show_variety(self, result: RunResult, what: Shown) -> None:
        count = result.plan.spec.batch_size  # any sample of the batch, where or not it ran
        sample = self.variety_sample if self.variety_sample < count else 0
        try:
            varied = self.variety.run(result.plan.spec, result, sample)
        except VarietyError as error:
            self.note.value = _muted(html.escape(str(error)))
            self._show_batch(result, what)
            return
        except Exception as error:  # the variety graph failed: say so, keep the batch
            self.note.value = f"<span class='ax-errors'>{html.escape(str(error))}</span>"
            self._show_batch(result, what)
            return
        ref = Ref(what.ref.node) if what.ref.node in varied.steps else varied.final
        tiles = node_tiles(varied, ref, self._picture_side, preview=self._preview)
        label = self.variety.caption
        self.tiles.tiles = [
            tile_state(
                t.index,
                [t.picture],
                text=t.text,
                label=label,
                draws=t.draws,
                file=t.file,
                sizes=[(t.width, t.height)],
                preview=self._preview,
                # every tile is the one sample drawn again: "#3" would name another sample
                name=f"draw {t.index + 1}",
            )
            for t in tiles
        ]
        self._view = (varied, ref.node, False)
        self._annotate(varied, ref, picture=0, pictures=1)
        self.caption.value = _muted(
            f"one image, {self.variety.copies} draws: sample #{sample} "
            f"({html.escape(label)}) · {_what(what)}{_drawn_as(varied, ref, tiles)}"
        )

    def _draw_large(self) -> None:
        index = self.tiles.opened
        if index < 0 or self._view is None:
            self.tiles.large = {}
            return
        result, node, can_vary = self._view
        try:
            view = sample_view(result, node, index)
        except IndexError:
            self.tiles.opened = -1
            return
        state = large_state(view, can_vary=can_vary)
        for pane in state["panes"]:
            pane["overlay"] = pane_overlay(result, Ref.parse(pane["node"]), index)
        self.tiles.large = state

    def _annotate(self, result: RunResult, ref: Ref, *, picture: int, pictures: int) -> None:
        """Send the annotations of `ref`'s images to draw over picture `picture` of each tile
        (none for a graph without annotations), and offer the kinds there are."""
        overlays = node_overlays(result, ref, self.size.value)
        # the engine says which kinds the graph carried here (the others are not drawn)
        states = result.overlay_states(ref.node) if overlays is not None else None
        self._overlay_node = ref.node
        self.overlay_toggles.offer(
            available_kinds(overlays, states) if overlays is not None else None,
            left_behind=left_behind(states),
            fixes=overlay_fixes(states),
        )
        self.tiles.overlay_kinds = self.overlay_toggles.shown
        self.tiles.overlays = [
            [overlay if k == picture else None for k in range(pictures)]
            for overlay in overlays or []
        ]

    def _overlay_kinds_changed(self, kinds: list[str]) -> None:
        self.tiles.overlay_kinds = kinds

    def _carry(self, kind: str) -> None:
        if self.on_carry is not None and self._overlay_node is not None:
            self.on_carry(self._overlay_node, kind)

    # ---- controls ---------------------------------------------------------------------------
    def vary(self, sample: int, draws: int | str) -> None:
        """Show `draws` copies of sample `sample` under new draws: "Vary this image". `draws`
        as typed in the large view: a value that cannot be used leaves the view open, saying
        why, and the draws as they were."""
        try:
            copies = self._read_draws(str(draws))
        except ValueError as error:
            self.tiles.vary_refused = f"⚠ {self._draws_refusal(str(error))}"
            return
        self.tiles.vary_refused = ""
        self.variety_sample = max(0, sample)
        self._say_refused("draws", None)  # the box shows the draws now in force
        self._use_draws(copies)
        self.tiles.opened = -1
        if self.mode.value == "Variety":
            self._redraw()
        else:
            self.mode.value = "Variety"

    def _mode_changed(self) -> None:
        self.draws.layout.display = "" if self.mode.value == "Variety" else "none"
        self.tiles.opened = -1  # the mode picked is what is shown, not a large view over it
        self._redraw()

    def _size_changed(self) -> None:
        self._say_refused("size", None)  # a size applied (typed or from the slider) stands
        if not self._fitting:
            self.per_row.value = 0  # a size chosen by hand: the tiles no longer fit a count
        self._redraw()

    def _per_row_changed(self, count: int) -> None:
        # the page's next fit is news even where it equals an earlier one (a size set since)
        with self.tiles.hold_sync():
            self.tiles.fitted = 0
            self.tiles.per_row = count

    def _fitted(self, side: int) -> None:
        """The page's picture side for the chosen tiles a row: the pictures are encoded at it
        (within the size control's range)."""
        if not self.per_row.value or side <= 0:
            return
        self._fitting = True
        try:
            self.size.value = min(max(side, MIN_SIZE), MAX_SIZE)
        finally:
            self._fitting = False

    def _size_refused(self, typed: str, reason: str) -> None:
        """The tile size box holds text that was not applied (`reason`; empty: the size in force
        was typed again, so nothing stands against it any more)."""
        if not reason:
            self._say_refused("size", None)
            return
        self._say_refused("size", f"Not applied: {reason}. The tile size stays {self.size.value}.")

    def _draws_typed(self, change: dict[str, Any]) -> None:
        if self._syncing:
            return
        try:
            copies = self._read_draws(change["new"])
        except ValueError as error:  # the text stays typed, with the reason beside it
            self._say_refused("draws", self._draws_refusal(str(error)))
            return
        self._say_refused("draws", None)
        self._use_draws(copies)
        self._redraw()

    def _read_draws(self, text: str) -> int:
        """The number of draws typed; raises ValueError saying why it cannot be used."""
        return int(parse_in_range(text, MIN_COPIES, MAX_COPIES, "the number of draws", True))

    def _draws_refusal(self, reason: str) -> str:
        return f"Not applied: {reason}. The number of draws stays {self.variety.copies}."

    def _use_draws(self, copies: int) -> None:
        """Draw `copies` copies from now on, shown as such in the Variety tab's box and in the
        large view's."""
        self.variety.copies = copies
        self.tiles.vary_draws = copies
        self._syncing = True
        try:
            self.draws.value = str(copies)
        finally:
            self._syncing = False

    def forget_typed(self) -> None:
        """Another graph came in (a preset, a file): text typed earlier that was not applied,
        and what was said about it, go; the boxes show the size and draws in force."""
        for box in ("size", "draws"):
            self._say_refused(box, None)
        self.size.show_text(format_number(self.size.value))
        self._use_draws(self.variety.copies)

    def _say_refused(self, box: str, message: str | None) -> None:
        """Show (or, with None, take back) why what was typed in `box` ("size" or "draws") was
        not applied; the box is outlined while its text stands refused."""
        self.refused.say(self.size.box if box == "size" else self.draws, message)

    def _redraw(self) -> None:
        self.tiles.size = self.size.value
        if self._last is not None:
            self.show(*self._last)
