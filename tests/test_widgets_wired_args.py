"""An argument another node gives (a draw, a coin) in the node's editor: the node's name is a
link to its editor, and where that node gives the value to a companion too (a mask's rotate
following the image's), the row offers no value of its own, which would move the image alone."""

from __future__ import annotations

from pathlib import Path

import ipywidgets as widgets
import pytest
from augexplorer_widgets import Explorer
from test_widgets_panel import browser_update

from augexplorer.presets import preset
from augexplorer.spec import Node, Random, Ref


@pytest.fixture
def segmentation(catalog, tmp_path: Path) -> Explorer:  # type: ignore[no-untyped-def]
    return Explorer(
        "segmentation", batch_size=2, autosave=tmp_path / "autosave.json", catalog=catalog
    )


def test_a_shared_draw_is_edited_where_it_is_drawn(segmentation: Explorer) -> None:
    browser_update(segmentation.graph, selected="rotate")
    control = segmentation.node_panel.controls["angle"]
    assert segmentation.spec.node("rotate").args["angle"] == Ref("angle")
    link = control.editor
    assert isinstance(link, widgets.Button) and "ax-ref-link" in link._dom_classes
    assert link.description == "← angle"
    # its own random value would rotate the images while their masks kept the shared angle
    assert control.random_toggle.disabled
    assert "mask_rotate" in control.random_toggle.tooltip
    link.click()
    assert segmentation.state.selected == "angle"
    assert isinstance(segmentation.node_panel.controls["range"].editor, widgets.Widget)


def test_a_coin_shared_with_a_mask_flip_offers_no_reset(segmentation: Explorer) -> None:
    browser_update(segmentation.graph, selected="flip")
    control = segmentation.node_panel.controls["horizontal"]
    assert control.random_toggle.disabled
    reset = next(w for w in control.children[0].children if "ax-arg-reset" in w._dom_classes)
    assert reset.disabled and "mask_flip" in reset.tooltip


def test_a_draw_read_by_this_node_alone_can_be_replaced(catalog, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    spec = preset("basic")
    draw = Node("tilt", "random.uniform", args={"range": [-10.0, 10.0]})
    spec = spec.insert_after("resize", draw, rewire=False).set_arg("rotate", "angle", Ref("tilt"))
    explorer = Explorer(spec, batch_size=2, autosave=tmp_path / "autosave.json", catalog=catalog)
    browser_update(explorer.graph, selected="rotate")
    control = explorer.node_panel.controls["angle"]
    assert control.editor.description == "← tilt"
    assert not control.random_toggle.disabled
    browser_update(control.random_toggle, value=True)
    assert isinstance(explorer.spec.node("rotate").args["angle"], Random)


def test_the_row_follows_when_the_companion_is_removed(segmentation: Explorer) -> None:
    browser_update(segmentation.graph, selected="rotate")
    assert segmentation.node_panel.controls["angle"].random_toggle.disabled
    segmentation.node_panel.actions.remove("mask_rotate")  # as its editor's remove button does
    browser_update(segmentation.graph, selected="rotate")
    assert not segmentation.node_panel.controls["angle"].random_toggle.disabled
