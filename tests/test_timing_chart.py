"""The timing chart during edits: drawn once the edits rest, not after every run of a drag, and
marked pending (the previous run's times, dimmed and saying so) from the moment a newer run starts
(ahead of its pictures) until its own chart is drawn. Real DALI on the CPU."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest
from augexplorer_widgets import Explorer, timing_view
from augexplorer_widgets.timing_view import PENDING_CLASS, PENDING_NOTE, chart_html


@pytest.fixture
def explorer(catalog, tmp_path: Path) -> Explorer:  # type: ignore[no-untyped-def]
    return Explorer("basic", batch_size=4, autosave=tmp_path / "autosave.json", catalog=catalog)


def pending(explorer: Explorer) -> bool:
    """The chart's element carries the pending class (what the page dims and notes)."""
    return PENDING_CLASS in explorer.timing.chart._dom_classes


def test_without_an_event_loop_each_run_is_charted_at_once(explorer: Explorer) -> None:
    explorer.select("rotate")
    slider = explorer.node_panel.controls["angle"].editor.params["range"]
    slider.value = (-20.0, 15.0)
    assert explorer.timing.drawn_for is explorer.result and not pending(explorer)
    assert explorer.timing.chart.value == chart_html(explorer.result)


def test_a_drag_marks_the_chart_pending_and_charts_the_last_run_once_it_rests(
    explorer: Explorer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The rest never comes by itself here (however slow the machine, no chart is drawn while
    # the drag lasts); the test then runs what the rest's timer runs.
    monkeypatch.setattr(timing_view, "REST_S", 3600.0)
    explorer.select("rotate")
    slider = explorer.node_panel.controls["angle"].editor.params["range"]
    # (chart pending before the new grid's messages go, chart of the run shown once they went)
    grid_renders: list[tuple[bool, bool]] = []
    first = explorer.result
    draws = explorer.timing.draws
    redraw_grid = explorer._redraw_grid

    def watched(*args):  # type: ignore[no-untyped-def]
        marked_before = pending(explorer)
        redraw_grid(*args)
        shown = explorer.grid._last[0] if explorer.grid._last else None
        grid_renders.append((marked_before, explorer.timing.drawn_for is shown))

    explorer._redraw_grid = watched  # type: ignore[method-assign]

    async def drag() -> float:
        for high in (19.0, 17.0, 15.0, 13.0, 11.0):
            slider.value = (-20.0, high)  # as the page sends a dragged handle, ~30 ms apart
            await asyncio.sleep(0.03)
        rest = explorer.timing._rest
        assert rest is not None  # the chart is owed, once the edits rest
        return rest.when() - asyncio.get_running_loop().time()

    owed_in = asyncio.run(drag())
    assert explorer.result is not first and len(grid_renders) >= 2
    assert explorer.timing.draws == draws  # no chart while the drag lasted
    assert owed_in > 3600.0 - 60.0  # counted from the last run, not the first
    # Beside every new grid, the chart was either the grid's own run or said it was not, and
    # said so before the grid's pictures went (a page may draw them as soon as they come).
    assert all(is_pending or own for is_pending, own in grid_renders)
    assert pending(explorer) and explorer.timing.drawn_for is first
    explorer.timing.draw()  # the rest came: the last run's chart, no longer pending
    assert explorer.timing.drawn_for is explorer.result and not pending(explorer)
    assert explorer.timing.chart.value == chart_html(explorer.result)
    assert explorer.timing.draws == draws + 1


def test_the_chart_carries_its_pending_look(explorer: Explorer) -> None:
    """Marking the chart pending sends a class, not a new chart: the timing view's own style
    sheet dims it and adds the note under that class."""
    result = explorer.result
    assert result is not None
    style = explorer.timing.note.value  # sent once, with the note under the chart
    assert f".{PENDING_CLASS} .ax-chart" in style and PENDING_NOTE in style
    chart = chart_html(result)
    assert "<style" not in chart and re.findall(r"<div class='ax-bar-row'", chart)


def test_flush_charts_the_latest_run_at_once(
    explorer: Explorer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(timing_view, "REST_S", 3600.0)  # no rest comes by itself
    explorer.select("rotate")
    slider = explorer.node_panel.controls["angle"].editor.params["range"]

    async def edit() -> None:
        slider.value = (-20.0, 12.0)
        await asyncio.sleep(0.02)  # the run went, its chart waits for the rest
        assert pending(explorer)
        explorer.flush()

    asyncio.run(edit())
    assert explorer.timing.drawn_for is explorer.result and not pending(explorer)


def test_an_edit_that_is_refused_leaves_the_chart_as_it_was(
    explorer: Explorer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The chart is marked pending as an edit starts to run; an edit refused before it runs
    (here a node that is not in the graph) takes the mark away again."""
    monkeypatch.setattr(timing_view, "REST_S", 3600.0)
    shown = explorer.result

    async def edit() -> None:
        marks: list[bool] = []
        explorer.timing.chart.observe(lambda _: marks.append(pending(explorer)), "_dom_classes")
        explorer._now(lambda: explorer.controller.remove("no_such_node"))
        assert marks == [True, False]  # marked as the edit began; unmarked once it was refused

    asyncio.run(edit())
    assert explorer.result is shown and explorer.timing.drawn_for is shown
    assert not pending(explorer)
    assert "no_such_node" in explorer.toolbar.status.value


def test_a_ported_transform_of_many_nodes_is_one_row_of_their_summed_time(
    catalog, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    """RandomApply([ColorJitter]) is 27 nodes: one row says what the transform costs, and
    opens on its nodes' rows; a transform of one node keeps its own row."""
    source = tmp_path / "train.py"
    source.write_text(
        "import torchvision.transforms as T\n"
        "train_transform = T.Compose([\n"
        "    T.RandomHorizontalFlip(),\n"
        "    T.RandomApply([T.ColorJitter(0.4, 0.4, 0.4, 0.1)], p=0.8),\n"
        "])\n"
    )
    explorer = Explorer(port=str(source), batch_size=2, autosave=False, catalog=catalog)
    result = explorer.result
    assert result is not None
    chart = chart_html(result)
    times = result.node_times()
    (fold,) = re.findall(r"<details class='ax-bar-fold' data-port='([^']+)'>", chart)
    summary = re.search(r"<summary class='ax-bar-row'[^>]*>(.*?)</summary>", chart)
    assert summary is not None
    inside = chart[chart.index("<details") : chart.index("</details>")]
    members = re.findall(r"<div class='ax-bar-row' data-node='([^']+)'", inside)
    assert len(members) == 27 and fold in members and "hue_shifted" in members
    assert "ColorJitter(0.4, 0.4, 0.4, 0.1)" in summary.group(1) and "(27 nodes)" in summary.group(
        1
    )
    summed = float(re.findall(r"<span class='ax-bar-ms'>([0-9.]+) ms", summary.group(1))[0])
    assert summed == pytest.approx(sum(times[m] for m in members), abs=0.06)
    # every node's row once, the flip's outside the fold
    outside = chart.replace(inside, "")
    assert (
        re.findall(r"data-node='([^']+)'", outside) == [n for n in times if n not in members]
        and "horizontal_flip" not in members
    )
    # bars scaled to the slowest row, the transform's sum among them
    widths = [float(w) for w in re.findall(r"width:([0-9.]+)%", chart)]
    assert max(widths) == pytest.approx(100.0) and all(w <= 100.0 for w in widths)
