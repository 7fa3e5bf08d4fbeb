"""Every fix an error suggests can be done in the panel with one click, and a panel opened on
data it cannot read opens anyway, saying why beside the fix. Real DALI on the CPU."""

from __future__ import annotations

from pathlib import Path

from augexplorer_widgets import Explorer
from bad_inputs import image_folder

from augexplorer.catalog import Catalog
from augexplorer.spec import Node


def texts(explorer: Explorer) -> list[str]:
    return [button.description for button in explorer.fixes.children]


def test_a_folder_with_a_corrupt_file_opens_the_panel_with_a_skip_switch(
    catalog: Catalog, tmp_path: Path
) -> None:
    folder = image_folder(tmp_path, "truncated.jpg", good=3)
    explorer = Explorer("basic", folder, batch_size=2, autosave=None, catalog=catalog)
    failure = explorer.state.failure
    assert failure is not None and failure.kind == "data"
    said = explorer.errors.value
    assert "truncated.jpg" in said and said.count("(fix:") == 1  # the fix once, not twice
    assert explorer.spec.sources()[0].path == str(folder)  # the folder asked for stays
    assert texts(explorer) == ["Skip bad files"]
    explorer.fixes.skip_bad.click()
    assert explorer.state.ok and explorer.spec.sources()[0].skip_bad
    assert explorer.fixes.layout.display == "none"
    result = explorer.result
    assert result is not None
    assert {Path(file).name for file in result.files()} <= {f"good_{i}.jpg" for i in range(3)}
    explorer.undo()  # the switch is an edit like any other
    assert not explorer.spec.sources()[0].skip_bad and texts(explorer) == ["Skip bad files"]


def test_a_path_that_is_not_there_opens_the_panel_saying_so(
    catalog: Catalog, tmp_path: Path
) -> None:
    missing = tmp_path / "no_such_folder"
    explorer = Explorer("basic", missing, batch_size=2, autosave=None, catalog=catalog)
    failure = explorer.state.failure
    assert failure is not None and failure.kind == "data"
    assert str(missing) in explorer.errors.value and explorer.errors.value.count("(fix:") == 1
    assert texts(explorer) == []  # nothing to skip: the path itself is the fix, in the toolbar
    assert explorer.toolbar.path.value == str(missing)


def test_a_misplaced_operator_is_moved_from_the_errors_without_selecting_it(
    catalog: Catalog, tmp_path: Path
) -> None:
    explorer = Explorer("basic", batch_size=2, autosave=tmp_path / "a.json", catalog=catalog)
    blurred = explorer.spec.insert_after(
        "source", Node("blur", "gaussian_blur", args={"sigma": 2.0})
    )
    explorer.controller.replace(blurred)
    explorer.select(None)
    explorer.flush()
    assert texts(explorer) == ["Move blur after decode"]
    explorer.fixes.children[0].click()
    assert explorer.spec.node("blur").inputs[0].node == "decode"
    assert explorer.state.ok, explorer.state.failure
    assert texts(explorer) == []
