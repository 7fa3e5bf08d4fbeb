"""The tiles and the large view, drawn in the browser (anywidget, a local ES module: no CDN).

Pictures travel as binary buffers (no base64), apart from the tiles' state and only those the
page lacks (tile_pictures.py); captions as text the page lays out. The page decodes pictures
off its main thread and shows each tile's caption with the pixels it belongs to. The page sets
`opened` when a tile is clicked (or an arrow key moves); the kernel answers with `large`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import anywidget
import traitlets

from augexplorer.render.sample_view import SampleView

from .tile_pictures import picture_type, tile_keys, wire_tiles

STATIC = Path(__file__).parent / "static"

DEFAULT_SIZE = 240


def tile_state(
    index: int,
    pictures: Sequence[bytes | None],
    *,
    text: str = "",
    label: str = "",
    draws: str = "",
    file: str = "",
    tags: Sequence[str] = (),
    sizes: Sequence[tuple[int, int]] = (),
    preview: bool = False,
    name: str = "",
) -> dict[str, Any]:
    """One tile as the page reads it. `sizes`: each picture's own (width, height) in pixels,
    from which the page shows every tile of the grid at one scale (none given: as sent).
    `preview`: its pictures are a quick, smaller stand-in (a slider being dragged); the full
    pictures follow once the slider rests. `name`: what the tile is called where it is not a
    sample of the batch (``"draw 3"``); none: ``#index``, its place in the batch."""
    return {
        "index": index,
        "name": name,
        "pictures": list(pictures),
        "sizes": [list(size) for size in sizes],
        "tags": list(tags),
        "text": text,
        "label": label,
        "draws": draws,
        "file": file,
        "preview": preview,
    }


def large_state(view: SampleView, *, can_vary: bool) -> dict[str, Any]:
    """A :class:`SampleView` as the page reads it (pixel buffers stay binary)."""
    return {
        "index": view.index,
        "count": view.count,
        "node": view.node,
        "file": view.file,
        "label": view.label,
        "labels": view.labels,
        "draws": view.draws,
        "draw_rows": [list(row) for row in view.draw_rows],
        "draws_note": view.draws_note,
        "can_vary": can_vary,
        "panes": [
            {
                "role": p.role,
                "node": p.node,
                "shape": list(p.shape),
                "dtype": p.dtype,
                "layout": p.layout,
                "pixels": p.pixels,
                "width": p.width,
                "height": p.height,
                "values": p.values,
                "values_dtype": p.values_dtype,
                "channels": p.channels,
                "text": p.text,
                "window": list(p.window) if p.window is not None else None,
                "caption": p.caption,
                "drawn_as": p.drawn_as,
            }
            for p in view.panes
        ],
    }


def _bundle(*names: str) -> str:
    """Files of static/ as one module or style sheet: anywidget loads a single ES module, which
    cannot import its neighbours by a relative path."""
    return "\n".join((STATIC / name).read_text(encoding="utf-8") for name in names)


class TileGrid(anywidget.AnyWidget):
    _esm = _bundle("annotation_overlay.js", "large_view.js", "tile_grid.js")
    _css = _bundle("tile_grid.css", "annotation_overlay.css")
    # The kernel holds every tile whole (pictures as bytes); the page's state names each
    # picture by its hash, and the bytes go apart (`_send_new_pictures`).
    tiles = traitlets.List(traitlets.Dict()).tag(
        sync=True, to_json=lambda tiles, _: wire_tiles(tiles)
    )
    # Each new value of `tiles`, numbered: the page draws a frame from the message carrying its
    # new pictures, and then skips the same frame's state (or an older one) when it arrives.
    frame = traitlets.Int(0).tag(sync=True)
    size = traitlets.Int(DEFAULT_SIZE).tag(sync=True)  # CSS pixels per picture
    # Tiles a row the page fits across the output's width (0: as many as `size` allows); the
    # page then says the picture side that fits (`fitted`), which the kernel encodes at.
    per_row = traitlets.Int(0).tag(sync=True)
    fitted = traitlets.Int(0).tag(sync=True)
    stale = traitlets.Bool(False).tag(sync=True)
    opened = traitlets.Int(-1).tag(sync=True)  # the sample in the large view; -1 when closed
    large = traitlets.Dict().tag(sync=True)
    vary_draws = traitlets.Int(8).tag(sync=True)
    # Why the draws typed in the large view were not applied ("" when nothing stands refused):
    # the page shows it beside its box, which keeps what was typed.
    vary_refused = traitlets.Unicode("").tag(sync=True)
    # Annotations over the pictures: per tile, per picture, an overlay (render.overlay_data) or
    # None; the kinds drawn change without resending them.
    overlays: traitlets.List[list[dict[str, Any] | None]] = traitlets.List().tag(sync=True)
    overlay_kinds = traitlets.List(traitlets.Unicode()).tag(sync=True)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.add_class("ax-tile-grid")
        self._on_vary: Callable[[int, str], None] | None = None
        self._held = tile_keys(self.tiles)  # the pictures on the page, by name
        self.pictures_sent = 0  # pictures whose bytes went to the page (tests, benchmarks)
        self.on_msg(self._message)
        # another sample, or none: what was said about the last one's box no longer stands
        self.observe(lambda _: setattr(self, "vary_refused", ""), "opened")

    def on_vary(self, callback: Callable[[int, str], None]) -> None:
        """`callback(sample, draws)` runs when "Vary this image" is pressed in the large view,
        with the draws as typed there: the callback reads them, and sets :attr:`vary_refused`
        where they cannot be used."""
        self._on_vary = callback

    @traitlets.validate("tiles")
    def _send_new_pictures(self, proposal: Any) -> list[dict[str, Any]]:
        """Before the tiles' state goes (it names the pictures), the bytes of the pictures the
        page does not hold yet, with the tiles they belong to: the page draws them from this
        message, not waiting for the state behind it. Those of the tiles shown now are kept
        there, by name."""
        tiles: list[dict[str, Any]] = proposal["value"]
        held = tile_keys(tiles)
        before = getattr(self, "_held", {})  # none yet while the widget is being made
        self.frame += 1
        self._send_pictures([key for key in held if key not in before], held, tiles)
        self._held = held
        return tiles

    def _send_pictures(
        self,
        keys: Sequence[str],
        held: dict[str, bytes],
        tiles: Sequence[dict[str, Any]] | None = None,
    ) -> None:
        if not keys:
            return
        self.pictures_sent += len(keys)
        content: dict[str, Any] = {
            "event": "pictures",
            "keys": list(keys),
            "types": [picture_type(held[key]) for key in keys],
        }
        if tiles is not None:
            content.update(frame=self.frame, tiles=wire_tiles(tiles))
        self.send(content, [held[key] for key in keys])

    def _message(self, _: Any, content: Any, buffers: Any) -> None:
        if not isinstance(content, dict):
            return
        if content.get("event") == "want":  # a view opened later asks for what it lacks
            wanted = content.get("keys")
            if isinstance(wanted, list):
                self._send_pictures([k for k in wanted if k in self._held], self._held)
            return
        if content.get("event") != "vary":
            return
        if self._on_vary is None:
            return
        try:
            sample = int(content["sample"])
        except (KeyError, TypeError, ValueError):
            return  # the page sends the view's own index: nothing a person typed is lost
        self._on_vary(sample, str(content.get("draws", "")))
