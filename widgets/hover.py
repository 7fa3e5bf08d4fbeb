"""Text that explains itself on hover.

ipywidgets shows a widget's tooltip only where the widget has no description
(jupyter-widgets/ipywidgets#3964), and a Label's never (it lands on the Label's hidden
description element). So the text carries its own title: a description as HTML for widgets
that have one, an HTML label for argument names.
"""

from __future__ import annotations

import html
from typing import Any

import ipywidgets as widgets


def hover_html(text: str, tooltip: str) -> str:
    """`text` as HTML that shows `tooltip` on hover (plain `text` when there is none)."""
    if not tooltip:
        return html.escape(text)
    return f'<span title="{html.escape(tooltip, quote=True)}">{html.escape(text)}</span>'


def hover_label(text: str, tooltip: str, **kwargs: Any) -> widgets.HTML:
    """A label of `text` that shows `tooltip` on hover."""
    return widgets.HTML(hover_html(text, tooltip), **kwargs)


def describe(widget: widgets.DescriptionWidget, text: str, tooltip: str) -> None:
    """Give `widget` the description `text`, showing `tooltip` when the pointer is on it."""
    widget.description_allow_html = True
    widget.description = hover_html(text, tooltip)
