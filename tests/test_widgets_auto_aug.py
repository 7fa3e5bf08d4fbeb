"""DALI's auto_aug policies in the operator picker: a group of their own, a note on what an
edit costs, placed where they can read uint8 HWC images, and a click adds one that runs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from augexplorer_widgets import Explorer
from augexplorer_widgets.op_picker import GROUPS, REBUILD_NOTE, group_of

from augexplorer.catalog import Catalog
from augexplorer.catalog.auto_aug import AUTO_AUG_OPS

POLICIES = sorted(AUTO_AUG_OPS)


def browser_update(widget: Any, **state: Any) -> None:
    """Exactly what the front end sends when the user changes a widget."""
    widget._handle_msg(
        {
            "content": {"data": {"method": "update", "state": state, "buffer_paths": []}},
            "buffers": [],
        }
    )


def click(widget: Any, content: dict[str, Any]) -> None:
    """A custom message from the front end (the picker's click)."""
    widget._handle_msg(
        {"content": {"data": {"method": "custom", "content": content}}, "buffers": []}
    )


@pytest.fixture
def explorer(catalog: Catalog, tmp_path: Path) -> Explorer:
    return Explorer("basic", batch_size=4, autosave=tmp_path / "autosave.json", catalog=catalog)


def test_policies_are_listed_in_their_own_group_with_what_an_edit_costs(
    explorer: Explorer,
) -> None:
    assert "auto augment" in explorer.picker.groups
    assert explorer.picker.groups == list(GROUPS)  # the page draws the groups in this order
    listed = {item["name"]: item for item in explorer.picker.matches("")}
    for op in POLICIES:
        assert group_of(explorer.controller.catalog[op]) == "auto augment"
        assert listed[op]["fits"], listed[op]["reason"]
        assert listed[op]["cost"] == REBUILD_NOTE
    assert listed["hsv"]["cost"] == ""  # only the policies carry the note
    assert set(POLICIES) <= {item["name"] for item in explorer.picker.matches("augment")}


@pytest.mark.parametrize("op", POLICIES)
def test_a_policy_added_from_the_picker_runs_and_changes_the_images(
    explorer: Explorer, op: str
) -> None:
    browser_update(explorer.graph, selected="rotate")
    click(explorer.picker, {"add": op})
    explorer.flush()
    node = op.split(".", 1)[1]
    assert explorer.spec.node(node).op == op
    assert explorer.spec.node(node).inputs[0].node == "rotate"
    assert explorer.state.ok, explorer.state.failure
    assert REBUILD_NOTE in explorer.picker.message  # said when it is added
    result = explorer.result
    before, after = result.arrays("rotate"), result.arrays(node)
    assert len(after) == 4
    assert all(a.dtype == np.uint8 and a.ndim == 3 and a.shape[2] == 3 for a in after)
    assert any(not np.array_equal(b, a) for b, a in zip(before, after, strict=True))
    # its controls are there to edit, and an edit runs
    assert explorer.node_panel.controls, f"{op} shows no controls"


def test_rand_augment_starts_with_a_visible_strength_and_an_edit_reruns_it(
    explorer: Explorer,
) -> None:
    browser_update(explorer.graph, selected="rotate")
    click(explorer.picker, {"add": "auto_aug.rand_augment"})
    explorer.flush()
    args = explorer.spec.node("rand_augment").args
    assert args["n"] == 2 and args["m"] == 9
    first = explorer.result.arrays("rand_augment")
    explorer.controller.set_arg("rand_augment", "m", 20)
    explorer.flush()
    assert explorer.state.ok, explorer.state.failure
    again = explorer.result.arrays("rand_augment")
    assert any(not np.array_equal(a, b) for a, b in zip(first, again, strict=True))


def test_a_policy_picked_at_the_source_goes_after_the_decoder(explorer: Explorer) -> None:
    browser_update(explorer.graph, selected="source")
    item = explorer.picker.item("auto_aug.trivial_augment_wide")
    assert item is not None and item["fits"] and "after decode" in item["note"]
    click(explorer.picker, {"add": "auto_aug.trivial_augment_wide"})
    explorer.flush()
    assert explorer.spec.node("trivial_augment_wide").inputs[0].node == "decode"
    assert explorer.state.ok, explorer.state.failure


def test_a_policy_is_greyed_where_images_are_chw_float(catalog: Catalog, tmp_path: Path) -> None:
    explorer = Explorer("imagenet_val", batch_size=2, autosave=tmp_path / "a.json", catalog=catalog)
    browser_update(explorer.graph, selected="normalize")  # CHW float
    for op in POLICIES:
        item = explorer.picker.item(op)
        assert item is not None and not item["fits"]
        assert "HWC" in item["reason"], item["reason"]
    click(explorer.picker, {"add": "auto_aug.rand_augment"})
    assert "rand_augment" not in explorer.spec
    assert "HWC" in explorer.picker.message
