"""The Compare tab: "compare with the original". The same images through the user's own
torchvision or albumentations pipeline and through the port as the graph now stands, tile beside
tile, with each transform's parity figures (:mod:`augexplorer.port.compare`).

Running the original runs the user's library code. A live Compose (``Explorer(port=obj)``) is
the user's to run, here. A file is run only once "run the file" is ticked (the trust rule), in
the Python named beside it: a Python where the pipeline's library imports.
"""

from __future__ import annotations

import base64
import html
import io
import os
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import ipywidgets as widgets
import numpy as np
from PIL import Image

from augexplorer.engine.ast_threads import no_collection_where_ast_is_shared
from augexplorer.errors import AugExplorerError
from augexplorer.port.compare import Comparison, StepComparison, compare_file, display
from augexplorer.port.compare import compare_object as compare_live
from augexplorer.port.compare_figures import DrawFigures
from augexplorer.spec import GraphSpec

from .number_field import NumberField, RefusedLine

DEFAULT_IMAGES = 4
MAX_IMAGES = 64
TILE_PX = 160  # a tile's longer side: three columns fit the output column at 1280 px
NOTE = (
    "Runs the images through your own pipeline and through the port, each transform alone with "
    "its probability set to 1: pixel differences where its parameters can be fixed (a range "
    "pinned to one value where the figure says so), and what each side draws over many "
    "samples for random ones. The tiles differ where the pipeline is random: each side draws "
    "its own values."
)


class CompareView(widgets.VBox):
    """`get_original`: what the panel ported (a live Compose, a file's path, or None);
    `get_graph`: the graph as it stands; `get_images`: RGB uint8 images to compare on
    (count -> images)."""

    def __init__(
        self,
        get_original: Callable[[], Any],
        get_graph: Callable[[], GraphSpec],
        get_images: Callable[[int], list[np.ndarray]],
    ) -> None:
        self._get_original = get_original
        self._get_graph = get_graph
        self._get_images = get_images
        # read here (number_field.py): a count not taken stays typed, the reason under it, and
        # a comparison uses the last good one
        self.refused = RefusedLine("ax-compare-refused")
        self.images = NumberField(
            DEFAULT_IMAGES,
            description="images",
            what="the number of images",
            integer=True,
            low=1,
            high=MAX_IMAGES,
            width="160px",
            line=self.refused,
        )
        self.images.box.add_class("ax-compare-images")
        self.run_file = widgets.Checkbox(
            value=False, description="run the file (your code)", indent=False
        )
        self.python = widgets.Text(
            value=sys.executable,
            description="python",
            placeholder="a Python where the library imports",
            layout={"width": "420px"},
        )
        self.compare_button = widgets.Button(
            description="Compare with the original", icon="columns", layout={"width": "240px"}
        )
        self.compare_button.add_class("ax-compare-button")
        self.status = widgets.HTML("")
        self.status.add_class("ax-compare-status")
        self.tiles = widgets.HTML("")
        self.tiles.add_class("ax-compare-tiles")
        self.figures = widgets.HTML("")
        self.figures.add_class("ax-compare-figures")
        self.compare_button.on_click(lambda _button: self.start())
        self._file_controls = widgets.HBox([self.run_file, self.python])
        controls = widgets.HBox([self.images.box, self.compare_button])
        controls.add_class("ax-tab-controls")  # wraps on a narrow page (graph_view.css)
        note = widgets.HTML(f"<span class='ax-muted'>{NOTE}</span>")
        super().__init__(
            [
                controls,
                self.refused,
                self._file_controls,
                self.status,
                self.tiles,
                self.figures,
                note,
            ]
        )
        self.add_class("ax-compare")
        self.comparison: Comparison | None = None
        self.thread: threading.Thread | None = None
        self.refresh()

    def refresh(self) -> None:
        """Say what can be compared: nothing without a ported pipeline; a file's controls only
        for a file."""
        original = self._get_original()
        is_file = isinstance(original, str | os.PathLike)
        self._file_controls.layout.display = "flex" if is_file else "none"
        self.compare_button.disabled = original is None or self.running
        if original is None:
            self.comparison = None
            self.tiles.value = self.figures.value = ""  # figures of a graph no longer shown
            self.status.value = (
                "<span class='ax-muted'>Nothing to compare with: open the panel on your "
                "pipeline, <code>Explorer(port=train_transform)</code>, or Load its file.</span>"
            )

    @property
    def running(self) -> bool:
        return self.thread is not None and self.thread.is_alive()

    def start(self) -> None:
        """Compare in a background thread (once at a time); the panel stays usable."""
        if self.running:
            return
        self.compare_button.disabled = True
        self.status.value = "<span class='ax-muted'>running both sides...</span>"
        self.thread = threading.Thread(target=self.compare, name="augexplorer-compare", daemon=True)
        self.thread.start()

    def wait(self, timeout: float | None = None) -> None:
        if self.thread is not None:
            self.thread.join(timeout)

    def compare(self) -> Comparison | None:
        """Compare now, in this thread; the figures and tiles are shown, a failure said."""
        original = self._get_original()
        try:
            if original is None:
                raise AugExplorerError("nothing to compare with: no pipeline was ported here")
            images = self._get_images(int(self.images.value))
            graph = self._get_graph()
            # reading the user's file and building pipelines parse Python, here while the
            # kernel parses the user's cells on its own thread
            with no_collection_where_ast_is_shared():
                if isinstance(original, str | os.PathLike):
                    comparison = compare_file(
                        Path(original),
                        images,
                        run_file=bool(self.run_file.value),
                        python=self.python.value.strip() or None,
                        graph=graph,
                    )
                else:
                    comparison = compare_live(original, images, graph=graph)
        except (AugExplorerError, ValueError) as error:
            self._done(None, f"compare failed: {error}")
            return None
        except Exception as error:  # never a traceback in the panel
            self._done(None, f"compare failed: {type(error).__name__}: {error}")
            return None
        self._done(comparison, None)
        return comparison

    def _done(self, comparison: Comparison | None, error: str | None) -> None:
        self.compare_button.disabled = False
        if error is not None:
            self.status.value = f"<span class='ax-error'>{html.escape(error)}</span>"
            return
        assert comparison is not None
        self.comparison = comparison
        said = f" The original pipeline did not run: {comparison.original_error}" * bool(
            comparison.original_error
        )
        versions = ", ".join(f"{k} {v}" for k, v in comparison.versions.items())
        self.status.value = (
            f"<span class='ax-muted'>{len(comparison.inputs)} images; the original ran in "
            f"{html.escape(comparison.python)} ({html.escape(versions)}).{html.escape(said)}"
            "</span>"
        )
        self.tiles.value = tiles_html(comparison)
        self.figures.value = figures_html(comparison.steps)


def _img(array: np.ndarray, alt: str) -> str:
    picture = Image.fromarray(display(array))
    picture.thumbnail((TILE_PX, TILE_PX))
    buffer = io.BytesIO()
    picture.save(buffer, format="PNG", compress_level=1)
    data = base64.b64encode(buffer.getvalue()).decode("ascii")
    return f"<img src='data:image/png;base64,{data}' alt='{html.escape(alt)}'>"


def tiles_html(comparison: Comparison) -> str:
    """One row an image: the input, the original's output, the port's, with their sizes."""
    heads = "".join(f"<th>{name}</th>" for name in ("input", "original", "port"))
    rows = []
    for index, image in enumerate(comparison.inputs):
        cells = [(image, "input")]
        if index < len(comparison.original):
            cells.append((comparison.original[index], "original"))
        if index < len(comparison.ported):
            cells.append((comparison.ported[index], "port"))
        tds = "".join(
            f"<td>{_img(array, f'{name} {index}')}<div class='ax-muted'>"
            f"{'x'.join(str(s) for s in array.shape[:2])} {array.dtype}</div></td>"
            for array, name in cells
        )
        rows.append(f"<tr>{tds}</tr>")
    return (
        "<table class='ax-compare-grid' style='border-spacing: 6px 4px; text-align: center'>"
        f"<tr>{heads}</tr>{''.join(rows)}</table>"
    )


# the transform's call (long for a live object: every argument) gets the widest column
COLUMNS = (
    "<colgroup><col style='width: 31%'><col style='width: 12%'><col style='width: 18%'>"
    "<col style='width: 22%'><col style='width: 18%'></colgroup>"
)


def figures_html(steps: list[StepComparison]) -> str:
    """A row a transform: its grade, the pixel figures, what each side drew, and why a figure
    is missing."""
    head = (
        "<tr><th>transform</th><th>grade</th><th>pixels (fixed parameters)</th>"
        "<th>drawn, mean &plusmn; std (a rate: its 95% interval): DALI / original</th>"
        "<th>note</th></tr>"
    )
    rows = []
    for step in steps:
        where = f" <span class='ax-muted'>line {step.line}</span>" if step.line else ""
        pixels = ""
        if step.pixels is not None:
            psnr = "identical" if step.pixels.psnr is None else f"{step.pixels.psnr:.1f} dB"
            pixels = (
                f"mean {step.pixels.mean_abs:.3g}, max {step.pixels.max_abs:.3g} "
                f"of {step.pixels.peak:g}; {psnr}"
            )
        drawn = "<br>".join(_drawn(d) for d in step.draws)
        rows.append(
            f"<tr><td><code>{html.escape(step.transform)}</code>{where}</td>"
            f"<td class='ax-grade ax-grade-{html.escape(step.grade)}'>{html.escape(step.grade)}"
            f"</td><td>{pixels}</td><td>{drawn}</td>"
            f"<td class='ax-muted'>{html.escape(step.note)}</td></tr>"
        )
    return (
        "<table class='ax-compare-table' style='width: 100%; table-layout: fixed; "
        "overflow-wrap: anywhere; border-collapse: collapse; text-align: left; "
        f"vertical-align: top'>{COLUMNS}{head}{''.join(rows)}</table>"
    )


def _drawn(figures: DrawFigures) -> str:
    """One quantity both sides drew: means and spreads (with a KS test, its p and verdict), or
    for a rate (how often a transform applied) each side's rate with its 95% interval and the
    verdict."""
    name = html.escape(figures.quantity)
    if figures.ours_interval is not None and figures.theirs_interval is not None:
        given = f" (p={figures.expected:g})" if figures.expected is not None else ""
        (ours_low, ours_high), (theirs_low, theirs_high) = (
            figures.ours_interval,
            figures.theirs_interval,
        )
        return (
            f"{name}{given}: {figures.ours_mean:.3g} [{ours_low:.3g}, {ours_high:.3g}] / "
            f"{figures.theirs_mean:.3g} [{theirs_low:.3g}, {theirs_high:.3g}]; "
            f"{html.escape(figures.verdict())}"
        )
    test = ""
    if figures.p is not None:
        test = f", {'KS p' if figures.ks is not None else 'p'} {figures.p:.2g}"
    if figures.ks is not None and figures.verdict():
        # the distributions' verdict at 99.9%, as a rate's; its KS and p are said already
        test += f"; {html.escape(figures.verdict().split(':', 1)[0])}"
    return (
        f"{name}: {figures.ours_mean:.3g}&plusmn;{figures.ours_std:.2g} / "
        f"{figures.theirs_mean:.3g}&plusmn;{figures.theirs_std:.2g}{test}"
    )


def images_for(session: Any, count: int) -> list[np.ndarray]:
    """The first `count` images the panel's session reads, decoded as RGB (its in-memory
    arrays, or the files of its last batch)."""
    if session.arrays is not None:
        arrays = session.arrays[0] if isinstance(session.arrays, tuple) else session.arrays
        return [_rgb(np.asarray(a)) for a in list(arrays)[:count]]
    result = session.result if session.result is not None else session.run()
    images = []
    for file in [f for f in result.files() if f][:count]:
        with Image.open(file) as opened:
            images.append(np.asarray(opened.convert("RGB")))
    if not images:
        raise AugExplorerError("the graph's data gives no image files to compare on")
    return images


def _rgb(array: np.ndarray) -> np.ndarray:
    if array.ndim == 2:
        array = array[:, :, None]
    if array.shape[2] == 1:
        array = np.repeat(array, 3, axis=2)
    return np.ascontiguousarray(array[:, :, :3].astype(np.uint8))
