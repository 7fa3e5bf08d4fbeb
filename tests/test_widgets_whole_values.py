"""A list typed in a box reads whole: random_bbox_crop's thresholds (0, 0.1, 0.3, 0.5, 0.7,
0.9) read "0, 0.1, 0.3, 0.5, 0" in the detection graph's editor, cut at the box's edge, a list
that seemed to end in 0. Boxes of lists widen for their text as number boxes do."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from augexplorer_widgets import Explorer
from augexplorer_widgets.arg_controls import RandomEditor
from test_widgets_panel import browser_update, find

from augexplorer.spec import Random


@pytest.fixture
def explorer(catalog, tmp_path: Path) -> Explorer:  # type: ignore[no-untyped-def]
    return Explorer("ssd_detection", batch_size=2, autosave=tmp_path / "a.json", catalog=catalog)


def room_in_digits(box: object) -> float:
    """How many digits' width (CSS ch) a box keeps room for, its padding aside."""
    found = re.search(r"([\d.]+)ch", str(box.layout.min_width))  # type: ignore[attr-defined]
    return float(found.group(1)) if found else 0.0


def digits_wide(text: str) -> float:
    """A text's width in digits: a point, a comma or a space is about half a digit."""
    narrow = sum(text.count(c) for c in (".", ",", " "))
    return len(text) - narrow / 2


def test_a_list_box_keeps_room_for_its_whole_text(explorer: Explorer) -> None:
    explorer.select("box_crop")
    explorer.flush()
    box = explorer.node_panel.controls["thresholds"].editor
    assert box.value == "0, 0.1, 0.3, 0.5, 0.7, 0.9"
    assert room_in_digits(box) >= digits_wide(box.value)
    # too long to read beside the name and its buttons: a line of its own, as a slider has
    rows = {name: find(c, "ax-arg-row") for name, c in explorer.node_panel.controls.items()}
    assert "ax-arg-long" in rows["thresholds"]._dom_classes
    assert "ax-arg-long" not in rows["aspect_ratio"]._dom_classes
    browser_update(box, value="0, 0.1, 0.3, 0.5, 0.7, 0.9, 0.95")  # it grows with its text
    explorer.flush()
    box = explorer.node_panel.controls["thresholds"].editor
    assert explorer.spec.node("box_crop").args["thresholds"][-1] == 0.95
    assert room_in_digits(box) >= digits_wide("0, 0.1, 0.3, 0.5, 0.7, 0.9, 0.95")
    # short again: beside the name
    browser_update(box, value="0.5, 0.9")
    explorer.flush()
    row = find(explorer.node_panel.controls["thresholds"], "ax-arg-row")
    assert "ax-arg-long" not in row._dom_classes


def test_a_choices_values_box_keeps_room_for_its_whole_text(explorer: Explorer) -> None:
    values = [-30.0, -20.0, -10.0, 0.0, 10.0, 20.0, 30.0]
    explorer.set_arg("twist", "hue", Random.choice(values))
    explorer.select("twist")
    explorer.flush()
    editor = explorer.node_panel.controls["hue"].editor
    assert isinstance(editor, RandomEditor)
    box = editor.params["values"]
    assert box.value == "-30, -20, -10, 0, 10, 20, 30"
    assert room_in_digits(box) >= digits_wide(box.value)
