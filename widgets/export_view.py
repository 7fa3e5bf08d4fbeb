"""Export the graph as a Python module (``augexplorer.export``) and show its code to copy.

The file name box holds the name that will be written: the graph's default (``basic_pipeline.py``)
until the user types another, and the default follows the graph (a preset picked, undo) for as
long as the user has not. A name a training script could not import is refused with one that
works (:mod:`augexplorer.export.module_name`); a graph that fails here is written with a warning.

The code shown is always the module the graph shown would export, whether or not a file was
written, and "Copy code" copies exactly that. Making it costs what an export costs (14-15 ms
on the samples' presets here, formatting included), so it is made only while the tab is open
(:meth:`ExportView.refresh`, which the panel calls a while after the last edit) and never twice
for one graph. Code that belongs to another graph than the one shown says so until it is
redrawn, and code that differs from the file last written says how the graph changed since.
"""

from __future__ import annotations

import html
import importlib
import os
import shlex
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import ipywidgets as widgets

from augexplorer.errors import AugExplorerError, FileExistsRefused
from augexplorer.spec import GraphSpec

from .code_view import highlighted
from .copy_button import CopyButton
from .file_errors import said_in_panel
from .graph_changes import graph_changes

OVERWRITE = "replace an existing file"
UNAVAILABLE = (
    "Exporting needs augexplorer.export, which this installation lacks; "
    "update augexplorer, or save the graph as JSON (Save) in the meantime."
)


def training_would_differ(caught: list[warnings.WarningMessage]) -> list[str]:
    """What an export warned the module would get wrong (annotations off their objects)."""
    try:
        from augexplorer.export.annotations_note import AnnotationsLeftBehind
    except ImportError:  # an installation without the exporter warns nothing
        return []
    return [str(w.message) for w in caught if issubclass(w.category, AnnotationsLeftBehind)]


def find_generator() -> Callable[..., str] | None:
    """`augexplorer.export.generate`, or None where that module is missing."""
    try:
        module = importlib.import_module("augexplorer.export")
    except ImportError:
        return None
    return getattr(module, "generate", None)


def find_exporter() -> Callable[..., Any] | None:
    """`augexplorer.export.export`, or None where that module is missing."""
    try:
        module = importlib.import_module("augexplorer.export")
    except ImportError:
        return None
    return getattr(module, "export", None)


class ExportView(widgets.VBox):
    """`get_spec`: the user's graph; `get_failure`: what fails in it now, if anything (the
    module is written all the same, and says so: it would fail the same way);
    `get_training_problem`: what in the batch shown training's loader would fail on (images of
    several shapes), said the same way."""

    def __init__(
        self,
        get_spec: Callable[[], GraphSpec],
        get_failure: Callable[[], str | None] = lambda: None,
        get_training_problem: Callable[[], str | None] = lambda: None,
    ) -> None:
        self._get_spec = get_spec
        self._get_failure = get_failure
        self._get_training_problem = get_training_problem
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
        # what the code below is: not written yet, the file's code, or changed since the file
        self.code_status = widgets.HTML("")
        self.code_status.add_class("ax-export-code-status")
        self.code = widgets.HTML("")
        self.code.add_class("ax-export-code")
        self.copy = CopyButton()
        self.source = ""  # the module shown (and copied); "" when none can be made
        self._made_from: GraphSpec | None = None  # the graph `source` was made from
        self._failed_for: GraphSpec | None = None  # the graph whose export failed, said below
        self._written: tuple[Path, GraphSpec, str] | None = None  # the last file written
        self._marked_stale = False
        self.visible = False  # whether the tab is open: code is made only then
        self.generations = 0  # how many times code was made (an export's cost each)
        self.button.on_click(lambda _: self.export())
        super().__init__(
            [
                widgets.HBox(
                    [self.path, self.button, self.overwrite, self.copy],
                    # on a narrow page the row wraps; no button is squeezed to "Exp…"
                    layout={"flex_flow": "row wrap", "align_items": "center"},
                ),
                self.message,
                self.code_status,
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

    # ---- the code shown --------------------------------------------------------------------
    def set_visible(self, visible: bool) -> None:
        """The tab was opened (or left): opened, it shows the current graph's module at once."""
        self.visible = visible
        if visible:
            self.refresh()

    def graph_changed(self) -> None:
        """Cheap, called on every redraw of the panel: code made from another graph than the one
        shown is marked as such (once) until :meth:`refresh` makes the current graph's."""
        if self._failed_for is not None and self._get_spec() != self._failed_for:
            self.message.value = ""  # an export of the graph before failed: not this one's
            self._failed_for = None
        if self._made_from is None or self._marked_stale:
            return
        spec = self._get_spec()
        if spec is self._made_from or spec == self._made_from:
            return
        self._marked_stale = True
        self.code_status.value = (
            "<span class='ax-export-stale'>The graph changed: this code is the graph's before "
            f"{html.escape(graph_changes(self._made_from, spec))}; the current graph's code "
            "follows in a moment.</span>"
        )

    def refresh(self, *, force: bool = False) -> None:
        """Show the module the current graph would export, if the tab is open (or `force`);
        nothing is made again for the graph already shown."""
        if not (self.visible or force):
            return
        spec = self._get_spec()
        if self._made_from is not None and (spec is self._made_from or spec == self._made_from):
            self._show_status()
            return
        generator = find_generator()
        if generator is None:
            self._show_source(spec, "", UNAVAILABLE)
            return
        self.generations += 1
        try:
            source = generator(spec)
        except (AugExplorerError, ValueError) as error:
            said = str(error).removeprefix("the graph cannot be exported: ")
            self._show_source(spec, "", f"This graph cannot be exported as it is: {said}")
            return
        except Exception as error:  # never a traceback in the panel; the tab says what failed
            said = f"{type(error).__name__}: {error}"
            self._show_source(spec, "", f"Making this graph's code failed: {said}")
            return
        self._show_source(spec, source, None)

    def _show_source(self, spec: GraphSpec, source: str, refusal: str | None) -> None:
        self._made_from, self.source, self._marked_stale = spec, source, False
        with self.code.hold_sync(), self.copy.hold_sync():
            self.code.value = highlighted(source) if source else ""
            self.copy.text = source  # what is shown, exactly
        if refusal is not None:
            self.code_status.value = f"<span class='ax-errors'>{html.escape(refusal)}</span>"
            return
        self._show_status()

    def _show_status(self) -> None:
        """Whether the code shown is the last file written (or no file was written yet)."""
        if not self.source:
            return
        written = self._written
        if written is None:
            said = (
                "<span class='ax-muted'>The module this graph exports; not written to a file "
                "yet.</span>"
            )
        elif written[2] == self.source:
            said = (
                "<span class='ax-muted'>The module this graph exports, as written to "
                f"<code>{html.escape(str(written[0]))}</code>.</span>"
            )
        else:
            assert self._made_from is not None
            changes = graph_changes(written[1], self._made_from)
            said = (
                "<span class='ax-export-stale'>Not what "
                f"<code>{html.escape(str(written[0]))}</code> holds: the graph was edited since "
                f"it was written ({html.escape(changes)}). The code below is the current "
                "graph's; Export again to write it.</span>"
            )
        self.code_status.value = said

    # ---- writing ----------------------------------------------------------------------------
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
        spec = self._get_spec()
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                exporter(spec, path, overwrite=self.overwrite.value)
            source = path.read_text(encoding="utf-8")
        except (AugExplorerError, OSError, ValueError) as error:
            said = said_in_panel(error, OVERWRITE)
            # a file in the way is a question, not a failure
            what = "Not written" if isinstance(error, FileExistsRefused) else "Export failed"
            self.message.value = f"<span class='ax-errors'>{what}: {html.escape(said)}</span>"
            self._failed_for = spec
            return None
        self._failed_for = None
        written = f"<code>{html.escape(str(path))}</code>"
        if not typed:
            written += " (the box was empty: the graph's default name)"
        elif added:
            written += " (.py added to the name typed)"
        command = html.escape(f"python {shlex.quote(str(path))}")
        said = f"Wrote {written}: import it, or run <code>{command}</code>."
        for warning in training_would_differ(caught):
            said += f"<br><span class='ax-errors'>{html.escape(warning)}</span>"
        failure = self._get_failure()
        if failure is not None:
            said += (
                f"<br><span class='ax-errors'>The graph fails here now: {html.escape(failure)}. "
                "On this data the module will fail the same way until that is fixed.</span>"
            )
        else:
            problem = self._get_training_problem()
            if problem is not None:
                said += (
                    "<br><span class='ax-errors'>Training would fail on the batch shown: "
                    f"{html.escape(problem)}.</span>"
                )
        self.message.value = said
        self._written = (path, spec, source)
        self._show_source(spec, source, None)
        return path
