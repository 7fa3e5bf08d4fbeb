"""Ctrl+Z / Ctrl+Shift+Z in the panel: the page sends "undo" or "redo" and the graph's last edit
is undone or redone, as by the toolbar's buttons."""

from __future__ import annotations

from pathlib import Path

import pytest
from augexplorer_widgets import Explorer


def page_message(widget: object, content: dict[str, str]) -> None:
    """A custom message from the page (``model.send`` in the widget's module)."""
    widget._handle_msg(  # type: ignore[attr-defined]
        {"content": {"data": {"method": "custom", "content": content}}, "buffers": []}
    )


@pytest.fixture
def explorer(catalog, tmp_path: Path) -> Explorer:  # type: ignore[no-untyped-def]
    return Explorer("basic", batch_size=2, autosave=tmp_path / "autosave.json", catalog=catalog)


def test_undo_and_redo_keys_from_the_page(explorer: Explorer) -> None:
    before = explorer.spec.node("rotate").args["angle"]
    explorer.set_arg("rotate", "angle", 33.0)
    explorer.flush()
    page_message(explorer.panel_keys, {"event": "undo"})
    assert explorer.spec.node("rotate").args["angle"] == before
    assert explorer.toolbar.redo.disabled is False
    page_message(explorer.panel_keys, {"event": "redo"})
    assert explorer.spec.node("rotate").args["angle"] == 33.0
    page_message(explorer.panel_keys, {"event": "something else"})  # ignored
    assert explorer.spec.node("rotate").args["angle"] == 33.0


def test_the_keys_widget_takes_no_room(explorer: Explorer) -> None:
    assert explorer.panel_keys in explorer.children
    assert explorer.panel_keys.layout.display == "contents"
