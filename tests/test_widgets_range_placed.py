"""A range too long to read beside its argument's name takes a line of its own under it, as a
long list does (arg_controls.LIST_BESIDE_NAME): imagenet_train's
random_aspect_ratio holds 4/3, written exactly (1.3333333333333333), and its boxes beside the
name pushed the random and reset buttons onto a line alone. The layout itself is looked at in
the browser (browser/test_newcomer_range_browser.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from augexplorer_widgets import Explorer
from augexplorer_widgets.arg_controls import ArgControl, RangePair
from test_widgets_panel import browser_update


@pytest.fixture
def explorer(catalog, tmp_path: Path) -> Explorer:  # type: ignore[no-untyped-def]
    explorer = Explorer(
        "imagenet_train", batch_size=2, autosave=tmp_path / "a.json", catalog=catalog
    )
    explorer.select("decode")
    explorer.flush()
    return explorer


def row_classes(control: ArgControl) -> list[str]:
    return list(control.children[0]._dom_classes)


def test_a_long_range_takes_a_line_of_its_own_and_a_short_one_stays(explorer: Explorer) -> None:
    ratio = explorer.node_panel.controls["random_aspect_ratio"]
    assert isinstance(ratio.editor, RangePair)
    assert ratio.editor.high.value == "1.3333333333333333"  # exact, as everywhere
    assert "ax-arg-long-range" in row_classes(ratio)
    # typed shorter, it goes back beside the name; the short pairs never left it
    browser_update(ratio.editor.high, value="1.333333")
    explorer.flush()
    ratio = explorer.node_panel.controls["random_aspect_ratio"]
    assert "ax-arg-long-range" not in row_classes(ratio)
    assert "ax-arg-long-range" not in row_classes(explorer.node_panel.controls["random_area"])
