"""A python_function node's code, read-only, with the "Trust and run" button.

The code came with the graph; it runs only after the user has read it and trusted it.
"""

from __future__ import annotations

import html
from collections.abc import Callable

import ipywidgets as widgets

from augexplorer.spec import ArgValue, PythonCode
from augexplorer.trust import is_trusted


def highlighted(source: str) -> str:
    """`source` as an HTML ``<pre>`` with Python highlighting (Pygments, which IPython brings),
    coloured by JupyterLab's editor theme variables (graph_view.css), so dark themes follow."""
    try:
        from pygments import highlight
        from pygments.formatters import HtmlFormatter
        from pygments.lexers import PythonLexer
    except ImportError:  # plain text is still the code
        return f"<pre class='ax-code'>{html.escape(source)}</pre>"
    body = highlight(source, PythonLexer(), HtmlFormatter(nowrap=True))
    return f"<pre class='ax-code ax-highlight'>{body}</pre>"


class CodeView(widgets.VBox):
    def __init__(self, node_id: str, name: str, on_trust: Callable[[str], None]) -> None:
        self.node_id = node_id
        self.name = name
        label = widgets.Label(name)
        label.add_class("ax-arg-label")
        self.code = widgets.HTML("")
        self.status = widgets.HTML("")
        self.status.add_class("ax-trust-status")
        self.button = widgets.Button(
            description="Trust and run",
            icon="check",
            button_style="warning",
            tooltip="run this code from now on (until it changes); read it first",
            layout={"width": "auto"},
        )
        self.button.add_class("ax-trust")
        self.button.on_click(lambda _: on_trust(node_id))
        self.message = widgets.HTML("")
        self.message.add_class("ax-arg-message")
        super().__init__([label, self.code, widgets.HBox([self.button, self.status]), self.message])
        self.add_class(f"ax-arg-{name}")
        self.add_class("ax-code-view")

    def show(self, value: ArgValue, error: str | None) -> None:
        if not isinstance(value, PythonCode):
            self.code.value = (
                "<span class='ax-muted'>No Python code yet. Set it from the notebook: "
                f"<code>explorer.set_arg({html.escape(repr(self.node_id))}, "
                f"{html.escape(repr(self.name))}, PythonCode.from_function(my_function))"
                "</code></span>"
            )
            self.status.value = ""
            self.button.disabled = True
        else:
            self.code.value = highlighted(value.source)
            trusted = is_trusted(value)
            self.button.disabled = trusted
            self.status.value = (
                f"<span class='ax-muted'>trusted: runs {html.escape(value.name)}()</span>"
                if trusted
                else "<span class='ax-errors'>not trusted: this code came with the graph and "
                f"runs only once you trust it; it calls {html.escape(value.name)}()</span>"
            )
        self.message.value = f"⚠ {html.escape(error)}" if error else ""
