"""One-click fixes for what the errors above the grid suggest, so that no fix needs code.

Bad files in the data: "Skip bad files" sets the source's switch (it can be undone). An image
operator placed before the decoder: "Move <node> after <decoder>" for each such node, whether or
not it is selected. A graph that reads annotations from a folder (an annotated preset picked on
one of the user's own: on the bundled samples it reads their annotations, preset_source.py):
"Read COCO annotations", the bundled annotated photos.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import ipywidgets as widgets

from .failure import Failure


class FixBar(widgets.HBox):
    def __init__(
        self,
        skip_bad: Callable[[], None],
        move_after_decoder: Callable[[str], None],
        use_annotated_source: Callable[[], None] | None = None,
    ) -> None:
        self._move = move_after_decoder
        self.skip_bad = widgets.Button(
            description="Skip bad files",
            icon="filter",
            button_style="warning",
            tooltip="leave out the files that cannot be read (they are listed); undoable",
            layout={"width": "auto"},
        )
        self.skip_bad.add_class("ax-fix-skip-bad")
        self.skip_bad.on_click(lambda _button: skip_bad())
        self.annotated = widgets.Button(
            description="Read COCO annotations",
            icon="database",
            button_style="warning",
            tooltip="read the bundled photos with their boxes, polygons and keypoints (COCO), "
            "as the graph needs; your own COCO file or YOLO folder: the data menu; undoable",
            layout={"width": "auto"},
        )
        self.annotated.add_class("ax-fix-annotated")
        if use_annotated_source is not None:
            self.annotated.on_click(lambda _button: use_annotated_source())
        self.moves: dict[str, widgets.Button] = {}
        super().__init__([], layout={"display": "none", "flex_flow": "row wrap"})
        self.add_class("ax-fix-bar")

    def show(
        self,
        failure: Failure | None,
        skipping: bool,
        misplaced: Mapping[str, str],
        needs_annotations: bool = False,
    ) -> None:
        """Offer the fixes for `failure` (None: nothing failed): skipping bad files where the
        source does not yet (`skipping`), moving each node of `misplaced` (node -> its
        decoder), and reading annotated data where the graph reads annotations from a source
        that has none (`needs_annotations`, the engine's needs_annotated_source)."""
        offer_skip = failure is not None and failure.suggests_skip_bad and not skipping
        moves = dict(misplaced) if failure is not None else {}
        if set(moves) != set(self.moves) or any(
            self.moves[node].description != _move_label(node, decoder)
            for node, decoder in moves.items()
        ):
            for button in self.moves.values():
                button.close()  # gone from the page; its model would stay in the kernel
            self.moves = {node: self._move_button(node, decoder) for node, decoder in moves.items()}
        offer_annotated = failure is not None and needs_annotations
        self.children = (
            ([self.skip_bad] if offer_skip else [])
            + ([self.annotated] if offer_annotated else [])
            + list(self.moves.values())
        )
        self.layout.display = "" if self.children else "none"

    def _move_button(self, node: str, decoder: str) -> widgets.Button:
        button = widgets.Button(
            description=_move_label(node, decoder),
            icon="arrow-down",
            button_style="warning",
            tooltip=f"{node} reads encoded files: move it after {decoder}, which decodes them",
            layout={"width": "auto"},
        )
        button.add_class("ax-fix-move")
        button.on_click(lambda _button: self._move(node))
        return button


def _move_label(node: str, decoder: str) -> str:
    return f"Move {node} after {decoder}"
