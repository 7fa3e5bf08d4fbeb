"""The panel's top bar: preset, data source, batch, run / reroll / next batch, seed lock,
undo / redo, and saving or loading the graph as JSON."""

from __future__ import annotations

import ipywidgets as widgets

from augexplorer.presets import PRESETS

SOURCE_CHOICES = [
    ("bundled samples", "samples"),
    ("a folder", "folder"),
    ("a file list", "file_list"),
]


def _button(text: str, icon: str, tip: str, css: str) -> widgets.Button:
    b = widgets.Button(description=text, icon=icon, tooltip=tip, layout={"width": "auto"})
    b.add_class(css)
    return b


class Toolbar(widgets.VBox):
    def __init__(self) -> None:
        title = widgets.HTML("<span class='ax-title'>augexplorer</span>")
        self.preset = widgets.Dropdown(
            options=[("preset…", "")] + [(name, name) for name in PRESETS],
            value="",
            layout={"width": "150px"},
        )
        self.preset.add_class("ax-preset")
        self.source = widgets.Dropdown(
            options=SOURCE_CHOICES, value="samples", layout={"width": "150px"}
        )
        self.source.add_class("ax-source")
        self.path = widgets.Text(
            placeholder="folder or file list path, then Enter",
            continuous_update=False,
            layout={"width": "230px", "display": "none"},
        )
        self.path.add_class("ax-source-path")
        self.batch = widgets.BoundedIntText(
            value=8,
            min=1,
            max=256,
            description="batch",
            layout={"width": "130px"},
            style={"description_width": "40px"},
        )
        self.batch.add_class("ax-batch")
        self.run = _button("Run", "play", "run the graph again", "ax-run")
        self.reroll = _button("Reroll", "random", "new random draws (undoable)", "ax-reroll")
        self.next_batch = _button("Next batch", "forward", "read the next images", "ax-next")
        self.seed_lock = widgets.Checkbox(
            value=True,
            description="seed lock",
            indent=False,
            layout={"width": "95px"},
            tooltip="keep the same random draws across edits",
        )
        self.seed_lock.add_class("ax-seed-lock")
        self.undo = _button("", "undo", "undo", "ax-undo")
        self.redo = _button("", "repeat", "redo", "ax-redo")
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
            value=False, description="replace file", indent=False, layout={"width": "110px"}
        )
        self.file_message = widgets.HTML("")
        top = widgets.HBox(
            [
                title,
                self.preset,
                self.source,
                self.path,
                self.batch,
                self.run,
                self.reroll,
                self.next_batch,
                self.seed_lock,
                self.undo,
                self.redo,
                self.status,
            ]
        )
        top.add_class("ax-toolbar")
        files = widgets.HBox(
            [self.spec_path, self.save, self.load, self.overwrite, self.file_message]
        )
        files.add_class("ax-toolbar")
        files.add_class("ax-files")
        super().__init__([top, files])
