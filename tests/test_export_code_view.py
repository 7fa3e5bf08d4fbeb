"""The Export tab's code is the module the graph shown would export: before any file is written,
after every edit (made while the tab is open, never inside the edit loop), marked when it is not
what the last file written holds; "Copy code" copies exactly what is shown. Driven through the
widgets' traits, as the browser would."""

from __future__ import annotations

import asyncio
import datetime
import html
import re
from pathlib import Path

import pytest
from augexplorer_widgets import Explorer
from augexplorer_widgets import export_view as export_module
from augexplorer_widgets.explorer import CODE_SETTLE_S
from augexplorer_widgets.graph_changes import graph_changes
from test_widgets_panel import browser_update

from augexplorer.export import codegen, generate
from augexplorer.presets import preset
from augexplorer.spec import Random, Source

pytestmark = pytest.mark.skipif(
    export_module.find_exporter() is None, reason="augexplorer.export is not installed"
)


class _StoppedClock(datetime.datetime):
    """A clock stopped at one minute: the header's date must not turn over between two codes
    a test compares."""

    @classmethod
    def now(cls, tz: datetime.tzinfo | None = None) -> _StoppedClock:
        return cls(2026, 1, 1, 12, 0, tzinfo=tz)


@pytest.fixture(autouse=True)
def stopped_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    stopped = type(
        "StoppedDatetime", (), {"datetime": _StoppedClock, "timezone": datetime.timezone}
    )
    monkeypatch.setattr(codegen, "datetime", stopped)


@pytest.fixture
def explorer(catalog, tmp_path: Path) -> Explorer:  # type: ignore[no-untyped-def]
    return Explorer("basic", batch_size=4, autosave=tmp_path / "autosave.json", catalog=catalog)


def shown_code(explorer: Explorer) -> str:
    """The code as the page shows it: the highlighted HTML's text."""
    return html.unescape(re.sub(r"<[^>]+>", "", explorer.export_view.code.value))


def status(explorer: Explorer) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", explorer.export_view.code_status.value))


def open_tab(explorer: Explorer) -> None:
    browser_update(explorer.tabs, selected_index=1)


def test_code_is_made_only_while_the_tab_is_open(explorer: Explorer) -> None:
    view = explorer.export_view
    explorer.set_arg("rotate", "fill_value", 3.0)
    explorer.flush()
    assert view.generations == 0 and view.code.value == "", "no export's cost in the edit loop"
    open_tab(explorer)
    assert view.generations == 1
    assert shown_code(explorer) == generate(explorer.spec), "the module Export would write"
    assert "not written to a file yet" in status(explorer)
    assert view.copy.text == shown_code(explorer), "Copy code copies what is shown"
    # the same graph again (another redraw, the tab left and opened again): nothing made again
    explorer.select("crop")
    explorer.flush()
    browser_update(explorer.tabs, selected_index=0)
    open_tab(explorer)
    assert view.generations == 1


def test_code_follows_an_edit_and_a_removed_node_leaves_it(explorer: Explorer) -> None:
    """Under an event loop, as in a kernel: the edit shows at once with the old code marked as
    another graph's; the code is made once, a while after the last of quick edits."""
    view = explorer.export_view
    open_tab(explorer)
    assert "fn.rotate(" in shown_code(explorer) and view.generations == 1

    async def edit() -> None:
        explorer.node_panel.actions.remove("rotate")
        for angle in (5.0, 6.0, 7.0):  # a slider dragged on another node
            explorer.node_panel.actions.set_arg("crop", "crop", [angle * 30, angle * 30])
            await asyncio.sleep(0.05)
        said = status(explorer)
        assert "The graph changed" in said and "removed rotate" in said
        assert "fn.rotate(" in shown_code(explorer), "not made again inside the edit loop"
        await asyncio.sleep(CODE_SETTLE_S + 0.5)

    asyncio.run(edit())
    code = shown_code(explorer)
    assert "fn.rotate(" not in code and code == generate(explorer.spec)
    assert view.copy.text == code
    assert view.generations == 2, "quick edits made the code once"
    assert "The graph changed" not in status(explorer)


def test_code_is_marked_when_it_is_not_the_file_written(explorer: Explorer, tmp_path: Path) -> None:
    view = explorer.export_view
    target = tmp_path / "my_aug.py"
    open_tab(explorer)
    browser_update(view.path, value=str(target))
    view.button.click()
    written = target.read_text(encoding="utf-8")
    assert shown_code(explorer) == written == view.copy.text
    assert f"as written to {target}" in status(explorer)
    explorer.set_arg("rotate", "angle", Random.uniform(-5, 5))
    explorer.add("hsv", after="flip")
    explorer.flush()
    code = shown_code(explorer)
    assert code != written and code == generate(explorer.spec) == view.copy.text
    said = status(explorer)
    assert f"Not what {target} holds" in said
    assert "added hsv" in said and "changed rotate" in said and "Export again" in said
    # undone back to the graph written: the mark goes
    explorer.undo()
    explorer.undo()
    explorer.flush()
    assert shown_code(explorer) == written and f"as written to {target}" in status(explorer)


def test_a_graph_that_cannot_be_exported_says_why_and_copies_nothing(
    explorer: Explorer, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(spec: object) -> str:
        raise ValueError("no module for this graph")

    monkeypatch.setattr(export_module, "find_generator", lambda: refuse)
    open_tab(explorer)
    assert "cannot be exported as it is: no module for this graph" in status(explorer)
    assert explorer.export_view.code.value == "" and explorer.export_view.copy.text == ""


def test_graph_changes_names_what_changed() -> None:
    basic = preset("basic")
    assert graph_changes(basic, basic) == ""
    assert graph_changes(basic, basic.remove("rotate")) == "removed rotate"
    edited = basic.set_arg("crop", "crop", [200.0, 200.0])
    assert graph_changes(basic, edited) == "changed crop"
    other = basic.with_data(Source("source", "folder", "/data"))
    assert graph_changes(basic, other) == "other data"
    many = basic
    for node in ("rotate", "crop", "flip", "resize"):
        many = many.remove(node)
    assert graph_changes(basic, many) == "removed resize, rotate, crop and 1 more"
