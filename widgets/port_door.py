"""The panel's way in for a torchvision or albumentations pipeline: ``Explorer(port=...)`` with
a live Compose or a file, and Load given a Python file or notebook. Nothing is called or run:
a live Compose is read from its attributes, a file from its text."""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

from augexplorer.port.door import is_port_file, port_file, port_object
from augexplorer.port.model import PortResult
from augexplorer.spec import GraphSpec
from augexplorer.spec import load as load_spec


def ported(port: Any, pipeline: str | None = None) -> PortResult:
    """The port of `port`: a path (str or Path) of a file or notebook, else a live Compose."""
    if isinstance(port, str | Path):
        return port_file(Path(port), pipeline=pipeline)
    return port_object(port, name=_name_of(port))


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


def load_for_panel(path: str) -> tuple[GraphSpec, str | None]:
    """Load's reading of `path`: a pipeline file or notebook ported (with the summary to show),
    else a spec or an exported module as before."""
    file = Path(path)
    if file.suffix.lower() in (".py", ".ipynb") and file.is_file():
        text = file.read_text(encoding="utf-8")
        if is_port_file(file, text):
            result = port_file(file)
            return result.spec, summary_html(result)
    return load_spec(path), None
