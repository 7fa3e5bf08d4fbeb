"""Switching "random" off and on again brings back the range the argument had: U(-35, 20)
switched off becomes -7.5 (its middle), and switched on again must be U(-35, 20), not a new
range around the middle; a value set meanwhile, or another graph, gets a range around it. Real DALI on the CPU; messages as the page
sends them."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
from augexplorer_widgets import Explorer

from augexplorer.spec import Random, save


def browser_update(widget: Any, **state: Any) -> None:
    """Exactly what the front end sends when the user changes a widget's trait."""
    widget._handle_msg(
        {
            "content": {"data": {"method": "update", "state": state, "buffer_paths": []}},
            "buffers": [],
        }
    )


@pytest.fixture
def explorer(catalog, tmp_path: Path) -> Explorer:  # type: ignore[no-untyped-def]
    panel = Explorer("basic", batch_size=2, autosave=tmp_path / "autosave.json", catalog=catalog)
    browser_update(panel.graph, selected="rotate")
    panel.set_arg("rotate", "angle", Random.uniform(-35.0, 20.0))
    panel.flush()
    return panel


def toggle(explorer: Explorer, on: bool) -> None:
    browser_update(explorer.node_panel.controls["angle"].random_toggle, value=on)
    explorer.flush()


def angle(explorer: Explorer) -> Any:
    return explorer.spec.node("rotate").args["angle"]


def test_random_off_then_on_brings_the_range_back(explorer: Explorer) -> None:
    toggle(explorer, False)
    assert angle(explorer) == -7.5  # the middle of the range, as before
    # an edit elsewhere between the two does not make the range forgotten
    explorer.set_arg("rotate", "fill_value", 30.0)
    explorer.flush()
    toggle(explorer, True)
    assert angle(explorer) == Random.uniform(-35.0, 20.0)
    assert explorer.state.ok


def test_a_value_set_while_random_was_off_gets_a_range_around_it(explorer: Explorer) -> None:
    toggle(explorer, False)
    explorer.set_arg("rotate", "angle", 10.0)  # the user chose another angle meanwhile
    explorer.flush()
    toggle(explorer, True)
    drawn = angle(explorer)
    assert isinstance(drawn, Random) and drawn.low < 10.0 < drawn.high
    assert drawn != Random.uniform(-35.0, 20.0)


def test_undo_after_the_toggle_comes_back_still_steps_back_one_edit(explorer: Explorer) -> None:
    toggle(explorer, False)
    toggle(explorer, True)
    explorer.undo()
    explorer.flush()
    assert angle(explorer) == -7.5


def test_a_range_from_another_graph_is_never_brought_back(
    explorer: Explorer, tmp_path: Path
) -> None:
    # the same node and argument in a graph loaded since: its fixed angle gets a range around
    # it, not the range the earlier graph had
    path = tmp_path / "mine.json"
    save(dataclasses.replace(explorer.spec.set_arg("rotate", "angle", 5.0), name="mine"), path)
    browser_update(explorer.toolbar.spec_path, value=str(path))
    explorer.toolbar.load.click()
    explorer.flush()
    assert explorer.spec.name == "mine"
    browser_update(explorer.graph, selected="rotate")
    toggle(explorer, True)
    drawn = angle(explorer)
    assert isinstance(drawn, Random) and drawn.low < 5.0 < drawn.high
    assert drawn != Random.uniform(-35.0, 20.0)
