"""Every fix an error suggests can be done in the panel with one click, and a panel opened on
data it cannot read opens anyway, saying why beside the fix. Real DALI on the CPU."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from augexplorer_widgets import Explorer
from bad_inputs import image_folder

from augexplorer.catalog import Catalog
from augexplorer.errors import DataError
from augexplorer.spec import GraphSpec, Node, Ref, Source


def texts(explorer: Explorer) -> list[str]:
    return [button.description for button in explorer.fixes.children]


def opened_failing(path: Path, catalog: Catalog, kind: str) -> Explorer:
    """A panel opened on the data at `path`, which fails there with a failure of `kind`."""
    explorer = Explorer("basic", path, batch_size=2, autosave=None, catalog=catalog)
    failure = explorer.state.failure
    assert failure is not None and failure.kind == kind, failure
    return explorer


def test_a_folder_with_a_corrupt_file_opens_the_panel_with_a_skip_switch(
    catalog: Catalog, tmp_path: Path
) -> None:
    folder = image_folder(tmp_path, "truncated.jpg", good=3)
    explorer = opened_failing(folder, catalog, "data")
    said = explorer.errors.value
    assert "truncated.jpg" in said and said.count("(fix:") == 1  # the fix once, not twice
    # nothing has run yet, so no "last good result" is claimed over the empty grid
    assert explorer.result is None and "nothing to show until it is fixed" in said
    assert "last good" not in said
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
    assert "showing the last good result" in explorer.errors.value  # the folder's good files


def test_a_path_that_is_not_there_opens_the_panel_saying_so(
    catalog: Catalog, tmp_path: Path
) -> None:
    missing = tmp_path / "no_such_folder"
    explorer = opened_failing(missing, catalog, "data")
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


def test_a_decoder_failure_does_not_offer_skipping_files_it_would_keep(
    catalog: Catalog, tmp_path: Path
) -> None:
    # a JPEG whose header passes the check and whose Huffman table the decoder rejects
    folder = image_folder(tmp_path, "bad_table.jpg", good=1)
    explorer = opened_failing(folder, catalog, "run")
    assert "bad_table.jpg" in explorer.errors.value and "skip_bad" not in explorer.errors.value
    assert texts(explorer) == []


def test_reopening_the_same_unreadable_folder_offers_no_restore(
    catalog: Catalog, tmp_path: Path
) -> None:
    folder = image_folder(tmp_path, "truncated.jpg", good=2)
    saved = tmp_path / "autosave.json"
    Explorer("basic", folder, batch_size=2, autosave=saved, catalog=catalog)
    again = Explorer("basic", folder, batch_size=2, autosave=saved, catalog=catalog)
    assert again.banner.layout.display == "none"  # the autosave holds this very graph
    assert [path.name for path in tmp_path.iterdir() if "autosave" in path.name] == [saved.name]


def test_when_the_graphs_own_data_fails_too_the_paths_error_is_raised(
    catalog: Catalog, tmp_path: Path
) -> None:
    folder = image_folder(tmp_path, "truncated.jpg", good=1)
    arrays_graph = GraphSpec((Source("source", "arrays"),), {"images": Ref("source")}, batch_size=2)
    with pytest.raises(DataError, match=r"truncated\.jpg"):
        Explorer(arrays_graph, folder, autosave=None, catalog=catalog)


def test_a_graph_file_that_does_not_validate_opens_the_panel_saying_why(
    catalog: Catalog, tmp_path: Path
) -> None:
    from augexplorer.presets import preset
    from augexplorer.spec import save

    wrong = preset("basic").set_arg("resize", "resize_shorter", -5.0)
    path = tmp_path / "edited_by_hand.json"
    save(wrong, path)
    saved = tmp_path / "autosave.json"
    explorer = Explorer(path, batch_size=2, autosave=saved, catalog=catalog)
    failure = explorer.state.failure
    assert failure is not None and failure.kind == "invalid"
    said = explorer.errors.value
    assert "resize_shorter" in said and "(fix: use a value in [0, 16384])" in said
    # the user's graph is the one on screen, the first step of its history and the autosave's;
    # the stand-in the panel opened on never ran and is nowhere to undo to
    assert explorer.spec == dataclasses.replace(wrong, batch_size=2)
    assert explorer.result is None and not explorer.state.can_undo
    assert Explorer(path, batch_size=2, autosave=saved, catalog=catalog).banner.layout.display == (
        "none"
    )  # reopened: the autosave holds this very graph, nothing to offer
    explorer.set_arg("resize", "resize_shorter", 256.0)
    assert explorer.state.ok and explorer.result is not None
    assert explorer.spec.node("resize").args["resize_shorter"] == 256.0
    explorer.undo()  # back to the graph as opened, failing again
    assert explorer.state.failure is not None and explorer.state.failure.kind == "invalid"


def test_an_invalid_graph_on_a_path_that_is_not_there_raises_the_paths_error(
    catalog: Catalog, tmp_path: Path
) -> None:
    from augexplorer.presets import preset

    wrong = preset("basic").set_arg("resize", "resize_shorter", -5.0)
    with pytest.raises(DataError, match="no such folder or file list"):
        Explorer(wrong, tmp_path / "no_such_folder", autosave=None, catalog=catalog)


def test_a_graph_opened_invalid_never_shows_the_stand_in_it_opened_on(
    catalog: Catalog, tmp_path: Path
) -> None:
    """Previews of another rank or epoch run the last graph that validated: for a graph opened
    invalid that is the basic preset the panel stands on, which must never show as the user's
    (nor clear the graph's problems)."""
    from augexplorer.presets import preset

    wrong = preset("basic").set_arg("resize", "resize_shorter", -5.0)
    explorer = Explorer(wrong, batch_size=2, autosave=None, catalog=catalog)
    for preview in (
        lambda: explorer.controller.preview_rank(1, 2),
        lambda: explorer.controller.preview_epoch(0),
        lambda: explorer.controller.next_batch(),
    ):
        state = preview()
        assert state.result is None, "the stand-in's batch was shown"
        assert state.failure is not None and state.failure.kind == "invalid"
    explorer.set_arg("resize", "resize_shorter", 256.0)
    assert explorer.state.ok and explorer.result is not None


def test_an_invalid_graph_on_a_folder_with_a_bad_file_opens_saying_the_graphs_problems(
    catalog: Catalog, tmp_path: Path
) -> None:
    from augexplorer.presets import preset

    folder = image_folder(tmp_path, "truncated.jpg", good=2)
    wrong = preset("basic").set_arg("resize", "resize_shorter", -5.0)
    explorer = Explorer(wrong, folder, batch_size=2, autosave=None, catalog=catalog)
    failure = explorer.state.failure
    assert failure is not None and failure.kind == "invalid"
    assert explorer.spec.sources()[0].path == str(folder)  # the folder asked for stays
    explorer.set_arg("resize", "resize_shorter", 256.0)  # the graph fixed: the folder's turn
    failure = explorer.state.failure
    assert (
        failure is not None and failure.kind == "data" and "truncated.jpg" in explorer.errors.value
    )
