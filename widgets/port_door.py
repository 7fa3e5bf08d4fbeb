"""The panel's way in for a torchvision or albumentations pipeline: ``Explorer(port=...)`` with
a live Compose or a file, and Load given a Python file or notebook. Nothing is called or run:
a live Compose is read from its attributes, a file from its text."""

from __future__ import annotations

import html
import warnings
from pathlib import Path
from typing import Any

from augexplorer.port.door import is_port_file, port_file, port_object
from augexplorer.port.model import PortResult
from augexplorer.port.reading import ReadRefused, SeveralPipelines
from augexplorer.spec import GraphSpec
from augexplorer.spec import load as load_spec

PIPELINE_SUFFIXES = (".py", ".ipynb")


def split_pipeline(path: str) -> tuple[str, str | None]:
    """``train.py:val_transform`` -> (``train.py``, ``val_transform``): which pipeline of a
    file that holds several; a plain path names none."""
    head, colon, name = path.rpartition(":")
    if colon and head.lower().endswith(PIPELINE_SUFFIXES) and name.isidentifier():
        return head, name
    return path, None


def ported(port: Any, pipeline: str | None = None) -> PortResult:
    """The port of `port`: a path (str or Path, ``train.py:val_transform`` naming one of
    several pipelines) of a file or notebook, else a live Compose."""
    if isinstance(port, str | Path):
        path, named = split_pipeline(str(port))
        return _port_path(Path(path), pipeline or named)
    return port_object(port, name=_name_of(port))


def _port_path(path: Path, pipeline: str | None) -> PortResult:
    try:
        return port_file(path, pipeline=pipeline)
    except SeveralPipelines as several:  # say how to pick one here
        names = ", ".join(several.names)
        raise ReadRefused(
            f"{path} holds several pipelines ({names}) (fix: add the one to port to the "
            f"path, as {path}:{several.names[0]})"
        ) from None


def _name_of(port: Any) -> str:
    return "ported_" + type(port).__name__.lower()


def summary_html(result: PortResult) -> str:
    """The import summary for the panel: its first line, the rest folded below it."""
    first, *rest = result.summary().splitlines()
    body = html.escape("\n".join(rest))
    return (
        f"<details class='ax-port-summary'><summary>{html.escape(first)}</summary>"
        f"<pre class='ax-muted' style='white-space: pre-wrap'>{body}</pre></details>"
    )


def load_for_panel(path: str) -> tuple[GraphSpec, str | None, str]:
    """Load's reading of `path`: a pipeline file or notebook ported (with the summary to show),
    else a spec or an exported module as before; then what the reading had to say (an exported
    module whose code was edited by hand), for the panel to show beside "loaded"."""
    plain, pipeline = split_pipeline(path)
    file = Path(plain)
    if file.suffix.lower() in PIPELINE_SUFFIXES and file.is_file():
        text = file.read_text(encoding="utf-8")
        if is_port_file(file, text):
            result = _port_path(file, pipeline)
            return result.spec, summary_html(result), ""
        if file.suffix.lower() == ".py":
            # an exported module (its GRAPH, read without running anything), or DALI code,
            # which the panel never runs: the refusal says what would run and how to import it
            from augexplorer.export.edited_code import CodeEdited
            from augexplorer.export.importer import import_graph

            with warnings.catch_warnings(record=True) as noted:
                warnings.simplefilter("always", CodeEdited)
                spec = import_graph(file)
            said = [str(n.message) for n in noted if issubclass(n.category, CodeEdited)]
            return spec, None, " ".join(said)
    return load_spec(path), None, ""
