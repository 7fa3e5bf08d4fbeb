"""The timing chart's element: its HTML (``value``) drawn in the page, a transform's row that a
person opened kept open when the chart is drawn anew after an edit (an ``ipywidgets.HTML``
replaces its whole content, closing every fold)."""

from __future__ import annotations

from pathlib import Path

import anywidget
import traitlets

STATIC = Path(__file__).parent / "static"


class TimingChart(anywidget.AnyWidget):
    _esm = (STATIC / "timing_chart.js").read_text(encoding="utf-8")
    value = traitlets.Unicode("").tag(sync=True)
