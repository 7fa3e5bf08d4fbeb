"""The panel's top bar: preset, data source, batch, run / reroll / next batch, seed lock, the
torchrun rank previewed, undo / redo, and saving or loading the graph as JSON.

The bar shows the graph it is given (:meth:`Toolbar.show`), so after undo or redo it names the
preset, source and batch of the graph on screen. A field is refreshed only when the graph's
value for it changed, so what the user is typing (a folder path, a batch size that was refused)
is never wiped by an unrelated edit.
"""

from __future__ import annotations

import ipywidgets as widgets

from augexplorer.presets import PRESETS
from augexplorer.spec import GraphSpec

from .history import Step
from .history_label import step_label
from .hover import describe, hover_label
from .number_field import RefusedLine
from .numbers import parse_bounded_int

REPLACE = "replace file"  # the check box that lets Save write over an existing file
SOURCE_CHOICES = [
    ("bundled samples", "samples"),
    ("a folder", "folder"),
    ("a file list", "file_list"),
    ("COCO annotations", "coco"),
    ("a YOLO folder (boxes)", "yolo"),
]
# What the path box asks for, short enough for its width (a longer one was cut off mid-word);
# the whole of it on hover.
PATH_PLACEHOLDERS = {
    "folder": "folder path, then Enter",
    "file_list": "file list path, then Enter",
    "coco": "COCO .json (empty: bundled)",
    "yolo": "YOLO images folder, then Enter",
}
PATH_TIPS = {
    "folder": "a folder of class folders of images; Enter reads it",
    "file_list": "a file list, one 'path label' a line; Enter reads it",
    "coco": "a COCO annotations .json; empty: the bundled annotated samples",
    "yolo": "a folder of images with a .txt of boxes beside each; Enter reads it",
}
ROOT_PLACEHOLDER = "images (empty: beside .json)"
ROOT_TIP = "the folder the COCO file's images are in; empty: the .json's own folder"
ARRAYS_CHOICE = ("in-memory arrays", "arrays")  # only a graph given arrays in code has one
# The panel draws every image of a batch; more than this is a wall of thumbnails.
MAX_BATCH = 256
MAX_PROCESSES = 1 << 16  # augexplorer.engine.ranks.RANK_LIMIT: more than any job runs
RANK_TIP = (
    "preview what process RANK of a torchrun job of N processes trains on: the values it draws "
    "(rank 0: the graph's own) and its shard of the data, as the exported module gives them"
)


class RankRefused(ValueError):
    """A rank or job size typed that cannot be previewed; `box`: the box whose text is why."""

    def __init__(self, reason: str, box: widgets.Text) -> None:
        super().__init__(reason)
        self.box = box


def _button(text: str, icon: str, tip: str, css: str) -> widgets.Button:
    b = widgets.Button(description=text, icon=icon, tooltip=tip, layout={"width": "auto"})
    b.add_class(css)
    return b


# The preset drop-down's entry for a preset with edits: no preset's name.
EDITED = "edited:"


def preset_options(edited: str = "") -> list[tuple[str, str]]:
    """The preset drop-down's entries; `edited`: the preset the graph was made from, shown
    first as edited, so that picking the preset itself is a change the drop-down reports."""
    first = [(f"{edited}, edited", EDITED)] if edited else [("choose…", "")]
    return first + [(name, name) for name in PRESETS]


class Toolbar(widgets.VBox):
    def __init__(self) -> None:
        title = widgets.HTML("<span class='ax-title'>augexplorer</span>")
        self.preset = widgets.Dropdown(
            options=preset_options(),
            value="",
            description="preset",
            # the longest entry, "auto_augment_imagenet, edited", whole
            layout={"width": "236px"},
            style={"description_width": "42px"},
        )
        self.preset.add_class("ax-preset")
        self.source = widgets.Dropdown(
            options=SOURCE_CHOICES,
            value="samples",
            description="data",
            layout={"width": "186px"},
            style={"description_width": "32px"},
        )
        self.source.add_class("ax-source")
        self.path = widgets.Text(
            placeholder=PATH_PLACEHOLDERS["folder"],
            continuous_update=False,
            layout={"width": "230px", "display": "none"},
        )
        self.path.add_class("ax-source-path")
        # A COCO file's images folder; empty: the file's own folder (the bundled photos for the
        # bundled annotations).
        self.file_root = widgets.Text(
            placeholder=ROOT_PLACEHOLDER,
            tooltip=ROOT_TIP,
            continuous_update=False,
            layout={"width": "200px", "display": "none"},
        )
        self.file_root.add_class("ax-source-root")
        # Text, not a bounded number box: that one turns 0 into 1 and drops "abc" without a word.
        self.batch = widgets.Text(
            value="8",
            description="batch",
            continuous_update=False,
            layout={"width": "110px"},
            style={"description_width": "40px"},
        )
        self.batch.add_class("ax-batch")
        self.batch_message = RefusedLine("ax-batch-message")
        self.run = _button("Run", "play", "run the graph again", "ax-run")
        self.reroll = _button("Reroll", "random", "new random draws (undoable)", "ax-reroll")
        self.next_batch = _button(
            "Next batch",
            "forward",
            "the next batch as training gets it: its images, its draws",
            "ax-next",
        )
        self.seed_lock = widgets.Checkbox(value=True, indent=False, layout={"width": "95px"})
        describe(self.seed_lock, "seed lock", "keep the same random draws across edits")
        self.seed_lock.add_class("ax-seed-lock")
        # Which torchrun process the grid shows (Session.set_rank); not part of the graph.
        self.rank = widgets.Text(
            value="0",
            continuous_update=False,
            layout={"width": "78px"},
            style={"description_width": "32px"},
        )
        describe(self.rank, "rank", RANK_TIP)
        self.rank.add_class("ax-rank")
        self.world = widgets.Text(
            value="1",
            continuous_update=False,
            layout={"width": "62px"},
            style={"description_width": "18px"},
        )
        describe(self.world, "of", "the number of processes of the job (torchrun's WORLD_SIZE)")
        self.world.add_class("ax-world")
        # a rank or job size not previewed says why as the batch does, on a line of its own
        self.rank_message = RefusedLine("ax-rank-message")
        self.undo = _button("", "undo", "undo", "ax-undo")
        self.redo = _button("", "repeat", "redo", "ax-redo")
        # Every step of the undo history, saying what it did; picking one goes back (or
        # forward) to it. Its name is a label of its own: ipywidgets shows a tooltip (the
        # step's whole label, where the box shortens it) only on a widget without one.
        self.history = widgets.Dropdown(options=[])
        self.history.add_class("ax-history")
        history_name = hover_label(
            "history", "every edit, oldest first: pick one to go back (or forward) to it"
        )
        history_name.add_class("ax-history-name")
        self.status = widgets.HTML("")
        self.status.add_class("ax-status")
        self.spec_path = widgets.Text(
            value="graph.json",
            description="graph file",
            layout={"width": "280px"},
            style={"description_width": "70px"},
        )
        self.spec_path.add_class("ax-spec-path")
        self.save = _button("Save", "save", "save the graph as JSON", "ax-save")
        self.load = _button("Load", "folder-open", "load a graph from JSON", "ax-load")
        self.overwrite = widgets.Checkbox(
            value=False, description=REPLACE, indent=False, layout={"width": "110px"}
        )
        self.file_message = widgets.HTML("")
        # Controls that belong together wrap together on a narrow page; a refused batch size
        # is said on a line of its own (graph_view.css), not between the buttons.
        actions = widgets.HBox([self.run, self.reroll, self.next_batch, self.seed_lock])
        actions.add_class("ax-toolbar-group")
        ranks = widgets.HBox([self.rank, self.world])
        ranks.add_class("ax-toolbar-group")
        steps = widgets.HBox([self.undo, self.redo, history_name, self.history])
        steps.add_class("ax-toolbar-group")
        steps.add_class("ax-history-group")
        top = widgets.HBox(
            [
                title,
                self.preset,
                self.source,
                self.path,
                self.file_root,
                self.batch,
                actions,
                ranks,
                steps,
                self.status,
                self.batch_message,
                self.rank_message,
            ]
        )
        top.add_class("ax-toolbar")
        files = widgets.HBox(
            [self.spec_path, self.save, self.load, self.overwrite, self.file_message]
        )
        files.add_class("ax-toolbar")
        files.add_class("ax-files")
        super().__init__([top, files])
        self._shown: dict[str, object] = {}

    # ---- the graph on screen ----------------------------------------------------------------
    def show(
        self, spec: GraphSpec, history: tuple[Step, ...] = (), *, edited: bool = False
    ) -> None:
        """Show `spec`'s preset, source and batch size where they differ from what was last
        shown, and the undo history; `edited`: the graph is its preset with edits (the preset's
        own entry can then be picked again, to start over from it). The caller keeps its
        observers quiet while this runs."""
        if history and self._changed("history", history):
            self.history.options = [(step_label(step), step.index) for step in history]
            current = next(step for step in history if step.current)
            self.history.value = current.index
            # the whole of it, where the box shortens it
            self.history.tooltip = step_label(current, chars=None)
        preset = spec.name if spec.name in PRESETS else ""
        edited = edited and bool(preset)
        if self._changed("preset", (preset, edited)):
            self.preset.options = preset_options(preset if edited else "")
            describe(
                self.preset,
                "preset",
                f"{preset} with your edits: pick {preset} to start over from it" if edited else "",
            )
        # also where the user's pick left another entry showing than the graph's
        wanted = EDITED if edited else preset
        if self.preset.value != wanted:
            self.preset.value = wanted
        sources = spec.sources()
        source = sources[0] if sources else None
        if source and self._changed("source", (source.kind, source.path, source.file_root)):
            kind = source.kind
            if kind == ARRAYS_CHOICE[1] and ARRAYS_CHOICE not in self.source.options:
                self.source.options = [*SOURCE_CHOICES, ARRAYS_CHOICE]
            self.source.value = kind
            self.path.value = source.path or ""
            self.file_root.value = (source.file_root or "") if kind == "coco" else ""
            self.show_source_fields(kind)
        if self._changed("batch", spec.batch_size):
            self.batch.value = str(spec.batch_size)
            self.say_batch(None)

    def show_source_fields(self, kind: str) -> None:
        """The path box for a folder, a file list or a COCO file; the images folder for COCO."""
        self.path.layout.display = "" if kind in PATH_PLACEHOLDERS else "none"
        self.path.placeholder = PATH_PLACEHOLDERS.get(kind, "")
        self.path.tooltip = PATH_TIPS.get(kind, "")
        self.file_root.layout.display = "" if kind == "coco" else "none"

    def _changed(self, field: str, value: object) -> bool:
        if field in self._shown and self._shown[field] == value:
            return False
        self._shown[field] = value
        return True

    # ---- batch size -------------------------------------------------------------------------
    def read_batch(self) -> int:
        """The batch size typed; raises ValueError saying why it cannot be used."""
        return parse_bounded_int(self.batch.value, 1, MAX_BATCH, "the batch size")

    def say_batch(self, reason: str | None, in_force: int | None = None) -> None:
        """Show why the typed batch size was not applied (None: clear), next to the box."""
        if reason is None:
            self.batch_message.say(self.batch, None)
            return
        stays = f" The batch stays {in_force}." if in_force is not None else ""
        self.batch_message.say(self.batch, f"Not applied: {reason}.{stays}")

    # ---- rank previewed -----------------------------------------------------------------------
    def read_rank(self) -> tuple[int, int | None]:
        """The rank and world size typed, as :meth:`Session.set_rank` takes them (one process:
        no world size, the graph's own shard); raises :class:`RankRefused` saying why they
        cannot be, and which box holds the text at fault."""
        try:
            world = parse_bounded_int(self.world.value, 1, MAX_PROCESSES, "the number of processes")
        except ValueError as error:
            raise RankRefused(str(error), self.world) from None
        try:
            rank = parse_bounded_int(self.rank.value, 0, MAX_PROCESSES - 1, "the rank")
        except ValueError as error:
            raise RankRefused(str(error), self.rank) from None
        if rank >= world:
            raise RankRefused(
                f"rank {rank} is no process of a job of {world}: type a rank from 0 to "
                f"{world - 1}, or more processes",
                self.rank,
            )
        # a rank other than 0 is marked: the grid is not the graph's own draws
        self.rank.remove_class("ax-rank-other")
        if rank:
            self.rank.add_class("ax-rank-other")
        return rank, (world if world > 1 else None)

    def say_rank(
        self, refused: RankRefused | None, rank: int = 0, world_size: int | None = None
    ) -> None:
        """Show why the rank or job size typed is not previewed (None: clear), the box at fault
        outlined, and the process the grid still shows (`rank` of `world_size`)."""
        for box in (self.rank, self.world):
            self.rank_message.say(box, None)
        if refused is not None:
            stays = f" The grid stays on rank {rank} of {world_size or 1}."
            self.rank_message.say(refused.box, f"Not applied: {refused}.{stays}")
