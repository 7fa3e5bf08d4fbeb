"""The grid during a slider drag, in the browser: previews while the slider moves, then every tile
shows the full picture of the final value with the captions drawn from that value; the page
decodes pictures off its main thread and receives only those it lacks. Screenshots
of the panel at 1280, 1600 and 1920 px."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .harness import kernel_eval, panel_page
from .layout import WIDTHS, check_layout

pytestmark = pytest.mark.browser

FOLDER = "grid_drag"  # a notebook of its own: other modules' kernels run other notebooks
PANEL = (
    "from augexplorer import Explorer\n"
    "explorer = Explorer('basic', batch_size=4, autosave=None)\n"
    "explorer.select('rotate')\nexplorer"
)
HIGH = ".ax-arg-angle .ax-random-range .noUi-handle-upper"

# What the kernel holds now: the tiles' picture names and captions, and the slider's value,
# next to tiles drawn afresh from the graph's result (what the final value gives).
KERNEL_TILES = """
import json
from augexplorer.render.tiles import node_tiles
from augexplorer.spec import Ref
from augexplorer_widgets.tile_pictures import picture_key
explorer.flush()
_grid = explorer.grid
_fresh = node_tiles(explorer.result, Ref('rotate'), _grid.size.value)
print(json.dumps({
    'keys': [picture_key(t['pictures'][0]) for t in _grid.tiles.tiles],
    'draws': [t['draws'] for t in _grid.tiles.tiles],
    'preview': [t['preview'] for t in _grid.tiles.tiles],
    'fresh_keys': [picture_key(t.picture) for t in _fresh],
    'fresh_draws': [t.draws for t in _fresh],
    'high': explorer.spec.node('rotate').args['angle'].high,
    'previews': _grid.previews,
    'sent': _grid.tiles.pictures_sent,
}))
"""

PAGE_TILES = """
() => [...document.querySelectorAll('.ax-explorer .ax-tile')].map((fig) => ({
  key: fig.querySelector('canvas').dataset.key || '',
  draws: fig.querySelector('.ax-tile-draws').textContent.replaceAll('\\u200b', ''),
  preview: fig.classList.contains('ax-tile-preview'),
  width: fig.querySelector('canvas').width,
}))
"""


# Every drawing of the tiles from now on: whether any tile showed a preview, the width and name
# of the first tile's pixels, and the timing chart beside them: pending or not, and its title.
WATCH_DRAWS = """
() => {
  const root = document.querySelector('.ax-explorer .ax-tiles-root');
  window.__axDraws = [];
  new MutationObserver(() => {
    const chart = document.querySelector('.ax-explorer .ax-timing-chart');
    const title = chart && chart.querySelector('.ax-chart-title');
    window.__axDraws.push({
      preview: root.querySelector('.ax-tile-preview') !== null,
      width: root.querySelector('canvas').width,
      key: root.querySelector('canvas').dataset.key || '',
      pending: Boolean(chart && chart.classList.contains('ax-timing-pending')),
      title: title ? title.textContent : '',
    });
  }).observe(root, { attributes: true, attributeFilter: ['data-drawn'] });
}
"""

# In the kernel, from now on: the run behind each set of tiles sent (its first picture's name),
# and the run behind each timing chart drawn (its title). The runs are kept, so their ids stay
# theirs.
WATCH_RUNS = """
import html, re
from augexplorer_widgets.tile_pictures import picture_key
_ax_runs = {'tiles': [], 'charts': [], 'kept': []}
def _ax_tiles_sent(change):
    if change['new']:
        run = explorer.controller.state.result
        _ax_runs['kept'].append(run)
        _ax_runs['tiles'].append([id(run), picture_key(change['new'][0]['pictures'][0])])
explorer.grid.tiles.observe(_ax_tiles_sent, 'tiles')
_ax_chart_draw = explorer.timing.draw
def _ax_draw_chart():
    drawn = explorer.timing.draws
    _ax_chart_draw()
    if explorer.timing.draws != drawn:
        title = re.search("<div class='ax-chart-title'>(.*?)</div>", explorer.timing.chart.value)
        _ax_runs['kept'].append(explorer.timing.drawn_for)
        _ax_runs['charts'].append([id(explorer.timing.drawn_for), html.unescape(title.group(1))])
explorer.timing.draw = _ax_draw_chart
"""

RUNS_SEEN = """
import json
explorer.grid.tiles.unobserve(_ax_tiles_sent, 'tiles')
del explorer.timing.draw
print(json.dumps({'tiles': _ax_runs['tiles'], 'charts': _ax_runs['charts']}))
"""

CHART_PENDING = (
    "() => document.querySelector('.ax-explorer .ax-timing-chart')"
    ".classList.contains('ax-timing-pending')"
)


page = panel_page(
    FOLDER,
    "grid_drag",
    PANEL,
    ".ax-explorer .ax-tile canvas[data-key]",
    workspace="grid-drag",
    then=lambda opened: opened.locator(HIGH).wait_for(timeout=60_000),
)


def kernel_tiles(page: Any) -> dict[str, Any]:
    return dict(json.loads(kernel_eval(page, KERNEL_TILES).strip().splitlines()[-1]))


def test_a_drag_ends_on_the_final_values_full_pictures_and_captions(page: Any) -> None:
    before = kernel_tiles(page)
    assert before["high"] == 20.0
    handle = page.locator(HIGH)
    handle.scroll_into_view_if_needed()
    box = handle.bounding_box()
    assert box is not None
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.evaluate(WATCH_DRAWS)
    kernel_eval(page, WATCH_RUNS)
    page.mouse.move(x, y)
    page.mouse.down()
    # leftwards in small steps, as a hand drags: the value changes many times on the way
    for step in range(1, 21):
        page.mouse.move(x - step, y)
        page.wait_for_timeout(30)
    page.mouse.up()
    page.wait_for_timeout(600)  # the slider rests: the full pictures follow the previews
    final = kernel_tiles(page)
    assert final["high"] < before["high"]  # the drag changed the value
    assert final["previews"] > 0, "the drag was drawn without a single preview"
    # The kernel's tiles are the final value's, in full: what a fresh render of it gives.
    assert final["preview"] == [False] * 4
    assert final["keys"] == final["fresh_keys"]
    assert final["draws"] == final["fresh_draws"]
    assert final["keys"] != before["keys"] and final["draws"] != before["draws"]
    # Captions say the angles drawn from the final range.
    for draws in final["draws"]:
        angle = float(draws.split("rotate.angle=")[1].split()[0].rstrip(","))
        assert -20.1 <= angle <= final["high"] + 0.1, (draws, final["high"])
    # The page shows exactly those: every tile's pixels and its caption, no preview left.
    page.wait_for_function(
        "(keys) => { const c = [...document.querySelectorAll('.ax-explorer .ax-tile canvas')];"
        " return c.length === keys.length && c.every((e, i) => e.dataset.key === keys[i]); }",
        arg=final["keys"],
        timeout=30_000,
    )
    shown = page.evaluate(PAGE_TILES)
    assert [t["key"] for t in shown] == final["keys"]
    assert [t["draws"] for t in shown] == final["draws"]
    assert not any(t["preview"] for t in shown)
    assert all(t["width"] > 0 for t in shown)
    # Previews were drawn at half the full pictures' width, never beside a timing chart that
    # read as theirs unless it is: the chart said it was pending, or (where the drag paused
    # long enough for the chart to follow) it was the chart of the very run the preview shows.
    runs = json.loads(kernel_eval(page, RUNS_SEEN).strip().splitlines()[-1])
    runs_of_picture: dict[str, set[int]] = {}
    for run, key in runs["tiles"]:
        runs_of_picture.setdefault(key, set()).add(run)
    charts_of_run: dict[int, set[str]] = {}
    for run, title in runs["charts"]:
        charts_of_run.setdefault(run, set()).add(title)
    draws = page.evaluate("() => window.__axDraws")
    previews = [d for d in draws if d["preview"]]
    assert previews, "no preview reached the page"
    for drawn in previews:
        theirs = {
            t for run in runs_of_picture.get(drawn["key"], ()) for t in charts_of_run.get(run, ())
        }
        assert drawn["pending"] or drawn["title"] in theirs, (drawn, runs)
    assert all(d["width"] <= shown[0]["width"] // 2 + 1 for d in previews)
    page.wait_for_function(f"() => !({CHART_PENDING})()", timeout=30_000)


def test_an_unchanged_redraw_sends_no_picture(page: Any) -> None:
    """A/B sends only its "before" pictures (the "now" ones are on the page already); back to
    the batch sends none at all: the page holds every picture by name."""
    first = kernel_tiles(page)
    kernel_eval(page, "explorer.grid.mode.value = 'A/B'; explorer.flush()")
    compared = kernel_tiles(page)
    assert 0 < compared["sent"] - first["sent"] <= len(first["keys"])
    kernel_eval(page, "explorer.grid.mode.value = 'Batch'; explorer.flush()")
    again = kernel_tiles(page)
    assert again["keys"] == first["keys"] and again["sent"] == compared["sent"]
    page.wait_for_function(
        "(keys) => { const c = [...document.querySelectorAll('.ax-explorer .ax-tile canvas')];"
        " return c.length === keys.length && c.every((e, i) => e.dataset.key === keys[i]); }",
        arg=first["keys"],
        timeout=30_000,
    )


@pytest.mark.parametrize("width", WIDTHS)
def test_the_panel_at_each_width(page: Any, artifacts: Path, width: int) -> None:
    check_layout(page, width, artifacts, "grid-drag")
