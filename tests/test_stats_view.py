"""The panel's Statistics tab: runs beside the panel, reports progress, can be cancelled."""

from __future__ import annotations

import html
import threading

import ipywidgets as widgets
import numpy as np
import pytest
from augexplorer_widgets.stats_view import DEFAULT_BATCHES, DEFAULT_SAMPLE, StatsView
from test_widgets_panel import browser_update

from augexplorer import Session
from augexplorer.spec import Probability, Source, chain

BATCH = 20


def small_session() -> Session:
    spec = chain(
        Source("source", "arrays"),
        ("rotate", "rotate", {"angle": 5.0, "fill_value": 0.0}),
        batch_size=BATCH,
    ).set_probability("rotate", Probability(0.002))
    images = [np.full((16, 16, 3), 10 * i, dtype=np.uint8) for i in range(5)]
    return Session(spec, images, device_id=None)


def test_statistics_run_in_a_thread_while_the_session_keeps_editing() -> None:
    session = small_session()
    session.run()
    view = StatsView(lambda: session)
    # no broken-image icon before the first run, in either theme
    assert view.plot.layout.display == view.plot_dark.layout.display == "none"
    view.batches.value = 30
    view.start()
    assert view.thread is not None and view.thread is not threading.current_thread()
    # the panel stays usable: an edit runs while the statistics count the earlier graph
    edited = session.set_arg("rotate", "angle", 30.0)
    assert edited.plan.spec.node("rotate").args["angle"] == 30.0  # type: ignore[union-attr]
    view.wait(60)
    assert not view.running and view.stats is not None
    assert view.progress.value == 30 and view.stats.samples == 30 * BATCH
    assert "`rotate` ran on" in view.report.value  # the rare branch, in the warnings
    assert view.report.value.count("`rotate` ran on") == 1  # listed once, not again below
    assert view.plot.value[:4] == b"\x89PNG" and view.plot.layout.display == ""
    # two 400-pixel panels a row: shown at its own size in the output column at 1280 px
    assert int.from_bytes(view.plot.value[16:20], "big") == 800
    # and drawn again for a dark page (the page's theme shows one of the two)
    assert view.plot_dark.value[:4] == b"\x89PNG" and view.plot_dark.layout.display == ""
    assert view.plot_dark.value != view.plot.value
    assert not view.run_button.disabled and view.cancel_button.disabled


def test_cancel_shows_the_figures_so_far() -> None:
    session = small_session()
    view = StatsView(lambda: session)
    view.batches.value = 100_000
    view.start()
    view.cancel()
    view.wait(60)
    assert view.stats is not None and view.stats.cancelled
    assert view.stats.batches < 100_000
    assert "cancelled after" in view.status.value


def test_a_failing_graph_shows_one_line_not_a_traceback() -> None:
    spec = chain(Source("source", "arrays"), ("crop", "crop", {"crop": [64.0, 64.0]}))
    session = Session(spec, [np.zeros((8, 8, 3), np.uint8)], device_id=None)
    view = StatsView(lambda: session)
    view.batches.value = 2
    view.start()
    view.wait(60)
    assert view.stats is None
    assert "statistics failed: node &#x27;crop&#x27;" in view.status.value
    assert "Traceback" not in view.status.value


def test_the_explorer_has_a_statistics_tab() -> None:
    from augexplorer_widgets.explorer import Explorer

    explorer = Explorer("basic", batch_size=2, autosave=None)
    (tabs,) = [child for child in explorer.children if isinstance(child, widgets.Tab)]
    assert "Statistics" in tabs.titles
    assert explorer.stats_view in tabs.children


def test_the_dark_plot_is_light_text_on_the_page_s_own_background() -> None:
    """Drawn for JupyterLab Dark: no white sheet (its background is transparent) and its text
    light; the light plot keeps matplotlib's white."""
    from io import BytesIO

    from PIL import Image

    from augexplorer.stats import collect_stats
    from augexplorer.stats.plot import figure_png, stats_figure

    session = small_session()
    stats = collect_stats(session.plan.spec, session.arrays, batches=2, device_id=None)
    light, dark = (
        np.asarray(Image.open(BytesIO(figure_png(stats_figure(stats, theme=t)))).convert("RGBA"))
        for t in ("light", "dark")
    )
    assert tuple(light[2, 2]) == (255, 255, 255, 255)
    assert dark[2, 2, 3] == 0  # the corner: transparent
    # text, ticks and frames: light grey on the dark plot about as much as black on the light
    light_ink = (dark[..., :3].min(axis=2) > 200) & (dark[..., 3] > 128)
    dark_ink = light[..., :3].max(axis=2) < 60
    assert dark_ink.sum() > 500 and light_ink.sum() > dark_ink.sum() / 2


@pytest.mark.parametrize(
    ("typed", "reason"),
    [
        ("2.5", "'2.5' is not a whole number; the number of batches must be between 1 and 100000"),
        ("0", "the number of batches must be between 1 and 100000, not 0"),
        ("-5", "the number of batches must be between 1 and 100000, not -5"),
        ("abc", "'abc' is not a whole number"),
    ],
)
def test_batches_typed_that_cannot_be_counted_are_refused_with_the_reason(
    typed: str, reason: str
) -> None:
    session = small_session()
    view = StatsView(lambda: session)
    browser_update(view.batches.box, value=typed)
    assert view.batches.value == DEFAULT_BATCHES, "not applied"
    assert view.batches.box.value == typed, "what was typed stays in the box"
    said = html.unescape(view.refused.value)
    assert reason in said and f"The number of batches stays {DEFAULT_BATCHES}." in said
    assert view.refused.layout.display == "" and "ax-input-refused" in view.batches.box._dom_classes
    browser_update(view.batches.box, value="2")  # fixed: in force, the reason gone
    assert view.batches.value == 2 and view.refused.value == ""
    assert view.refused.layout.display == "none"
    assert "ax-input-refused" not in view.batches.box._dom_classes
    view.start()  # counts the number typed
    view.wait(60)
    assert view.stats is not None and view.stats.batches == 2 and view.progress.max == 2


def test_the_sample_size_typed_is_read_as_the_batches_are() -> None:
    session = small_session()
    view = StatsView(lambda: session)
    view.scope.value = "sample"
    for typed, reason in (
        ("2.5", "'2.5' is not a whole number"),
        ("0", "the number of images must be between 1 and 100000000, not 0"),
        ("-5", "not -5"),
        ("abc", "'abc' is not a whole number"),
    ):
        browser_update(view.images.box, value=typed)
        assert view.images.value == DEFAULT_SAMPLE and view.images.box.value == typed
        said = html.unescape(view.refused.value)
        assert reason in said and f"The number of images stays {DEFAULT_SAMPLE}." in said
    browser_update(view.images.box, value="6")
    assert view.images.value == 6 and view.refused.value == ""
    # a box put away (another scope) takes what was refused in it, and why, with it
    browser_update(view.images.box, value="0")
    view.scope.value = "batches"
    assert view.refused.value == "" and view.images.box.value == "6"


def test_a_graph_shown_that_does_not_run_is_not_counted_as_another() -> None:
    from augexplorer.errors import GraphInvalid

    session = small_session()
    session.run()
    view = StatsView(lambda: session)
    with pytest.raises(GraphInvalid):
        session.set_arg("rotate", "angle", "wide")  # type: ignore[arg-type]
    view.start()  # the session still runs the last graph that validated: not the one shown
    assert view.thread is None and view.stats is None
    assert "does not run: fix the problems under Output" in view.status.value
    session.set_arg("rotate", "angle", 12.0)
    view.batches.value = 2
    view.start()
    view.wait(60)
    assert view.stats is not None and view.stats.samples == 2 * BATCH


def test_the_panel_counts_an_edit_still_waiting_and_refuses_one_that_failed() -> None:
    import asyncio

    from augexplorer_widgets import Explorer

    images = [np.full((16, 16, 3), 10 * i, dtype=np.uint8) for i in range(5)]
    explorer = Explorer(small_session().spec, images, autosave=None)
    view = explorer.stats_view
    view.batches.value = 1

    async def slider_then_count() -> None:  # in an event loop, as in a kernel
        # a slider's steps: the first runs at once, the next a moment later (with any that
        # follow it): the count starts in between
        for angle in (6.0, 7.0):
            explorer._later(
                lambda a=angle: explorer.controller.set_arg("rotate", "angle", a, run=False)
            )
        assert explorer.controller.session.checked_spec != explorer.spec
        view.start()

    asyncio.run(slider_then_count())
    view.wait(60)
    assert view.stats is not None and explorer.controller.session.checked_spec == explorer.spec
    assert explorer.spec.node("rotate").args["angle"] == 7.0
    explorer.set_arg("rotate", "angle", "wide")  # type: ignore[arg-type]
    assert explorer.state.failure is not None
    view.start()
    assert "does not run" in view.status.value and not view.running
