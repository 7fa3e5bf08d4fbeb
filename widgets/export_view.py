"""Export the graph as a Python module (``augexplorer.export``) and show its code to copy.

The file name box holds the name that will be written: the graph's default (``basic_pipeline.py``)
until the user types another, and the default follows the graph (a preset picked, undo) for as
long as the user has not. A name a training script could not import is refused with one that
works (:mod:`augexplorer.export.module_name`); a graph that fails here is written with a warning.
"""

from __future__ import annotations

import html
import importlib
import os
import shlex
from collections.abc import Callable
from pathlib import Path
from typing import Any

import ipywidgets as widgets

from augexplorer.errors import AugExplorerError
from augexplorer.spec import GraphSpec

from .code_view import highlighted
from .copy_button import CopyButton
from .file_errors import said_in_panel

OVERWRITE = "replace an existing file"
UNAVAILABLE = (
    "Exporting needs augexplorer.export, which this installation lacks; "
    "update augexplorer, or save the graph as JSON (Save) in the meantime."
)


def find_exporter() -> Callable[..., Any] | None:
    """`augexplorer.export.export`, or None where that module is missing."""
    try:
        module = importlib.import_module("augexplorer.export")
    except ImportError:
        return None
    return getattr(module, "export", None)


class ExportView(widgets.VBox):
    """`get_spec`: the user's graph; `get_failure`: what fails in it now, if anything (the
    module is written all the same, and says so: it would fail the same way)."""

    def __init__(
        self,
        get_spec: Callable[[], GraphSpec],
        get_failure: Callable[[], str | None] = lambda: None,
    ) -> None:
        self._get_spec = get_spec
        self._get_failure = get_failure
        self._default = self.default_path()
        self.path = widgets.Text(
            value=self._default,
            placeholder=self._default,
            description="module",
            layout={"width": "340px"},
        )
        self.path.add_class("ax-export-path")
        self.button = widgets.Button(
            description="Export", icon="download", layout={"width": "auto"}
        )
        self.button.add_class("ax-export-button")
        self.overwrite = widgets.Checkbox(value=False, description=OVERWRITE, indent=False)
        self.message = widgets.HTML("")
        self.message.add_class("ax-export-message")
        self.code = widgets.HTML("")
        self.code.add_class("ax-export-code")
        self.copy = CopyButton()
        self.button.on_click(lambda _: self.export())
        super().__init__(
            [
                widgets.HBox(
                    [self.path, self.button, self.overwrite, self.copy],
                    # on a narrow page the row wraps; no button is squeezed to "Exp…"
                    layout={"flex_flow": "row wrap", "align_items": "center"},
                ),
                self.message,
                self.code,
            ]
        )
        self.add_class("ax-export")
        if find_exporter() is None:
            self.button.disabled = True
            self.message.value = f"<span class='ax-errors'>{html.escape(UNAVAILABLE)}</span>"

    def default_path(self) -> str:
        """The graph's name as a module name (a graph may be called "my graph")."""
        name = f"{self._get_spec().name or 'augmentation'}_pipeline.py"
        try:  # where augexplorer.export is missing, exporting is off anyway (UNAVAILABLE)
            from augexplorer.export.module_name import importable_path
        except ImportError:
            return name
        return str(importable_path(Path(name)))

    def follow(self) -> None:
        """The graph changed: a name the user did not type follows the graph's default."""
        default = self.default_path()
        if default == self._default:
            return
        if self.path.value.strip() in ("", self._default):
            self.path.value = default
        self._default = default
        self.path.placeholder = default  # what an emptied box writes

    def export(self) -> Path | None:
        """Write the module; returns its path, or None with the reason shown."""
        exporter = find_exporter()
        if exporter is None:
            self.message.value = f"<span class='ax-errors'>{html.escape(UNAVAILABLE)}</span>"
            return None
        typed = self.path.value.strip()
        path = Path(typed or self.default_path())
        # (not a folder typed: "out/" or "." is refused by the exporter, with why)
        added = bool(typed) and not path.suffix and path.name not in ("", ".", "..")
        added = added and not typed.endswith(("/", os.sep))
        if added:  # a module's name typed as it is imported: the file is that name with .py
            path = path.with_name(f"{path.name}.py")
            self.path.value = str(path)
        try:
            exporter(self._get_spec(), path, overwrite=self.overwrite.value)
            source = path.read_text(encoding="utf-8")
        except (AugExplorerError, OSError, ValueError) as error:
            said = said_in_panel(error, OVERWRITE)
            self.message.value = (
                f"<span class='ax-errors'>Export failed: {html.escape(said)}</span>"
            )
            return None
        written = f"<code>{html.escape(str(path))}</code>"
        if not typed:
            written += " (the box was empty: the graph's default name)"
        elif added:
            written += " (.py added to the name typed)"
        command = html.escape(f"python {shlex.quote(str(path))}")
        said = f"Wrote {written}: import it, or run <code>{command}</code>."
        failure = self._get_failure()
        if failure is not None:
            said += (
                f"<br><span class='ax-errors'>The graph fails here now: {html.escape(failure)}. "
                "On this data the module will fail the same way until that is fixed.</span>"
            )
        self.message.value = said
        self.code.value = highlighted(source)
        self.copy.text = source
        return path
