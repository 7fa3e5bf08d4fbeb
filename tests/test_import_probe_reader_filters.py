"""A folder reader given ``dir_filters`` (only some class folders read, and numbered among
themselves) is refused at import: the explorer and the exported module list a folder's classes
themselves and hand DALI the files, where DALI applies no filter, so the graph would read every
class, with other labels, and say nothing."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from augexplorer import GraphInvalid, preset, validate
from augexplorer.cli import main
from augexplorer.data import samples_dir
from augexplorer.export.importer import import_graph
from augexplorer.export.serialized import ImportRefused

SOME_CLASSES = """
from nvidia.dali import fn, pipeline_def, types


@pipeline_def(batch_size=3, num_threads=1, device_id=None, seed=57)
def some_classes():
    jpegs, labels = fn.readers.file(file_root={root!r}, dir_filters=["food", "space"])
    images = fn.decoders.image(jpegs, output_type=types.RGB)
    return fn.resize(images, size=[16, 16]), labels


pipe = some_classes()
"""


def test_a_folder_readers_dir_filters_are_refused_with_the_line_and_fix(tmp_path: Path) -> None:
    source = tmp_path / "some_classes.py"
    source.write_text(SOME_CLASSES.format(root=str(samples_dir())))
    with pytest.raises(ImportRefused) as refused:
        import_graph(source, run_file=True)
    message = str(refused.value)
    assert f"fn.readers.file at line 7 of {source}" in message
    assert "dir_filters=['food', 'space']" in message and "reads every class folder" in message
    assert "fix: list the files wanted in a file list" in message


def test_the_command_says_it_in_one_line_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "some_classes.py"
    source.write_text(SOME_CLASSES.format(root=str(samples_dir())))
    target = tmp_path / "graph.json"
    assert main(["import", str(source), "--run-file", "-o", str(target)]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "dir_filters" in error and "Traceback" not in error
    assert not target.exists()


def test_a_spec_written_by_hand_with_dir_filters_is_refused_naming_the_argument() -> None:
    """The same filter in a spec (not through the import): the graph checks name it, as they
    name file_filters, instead of a Session reading every class."""
    spec = preset("basic")
    folder = dataclasses.replace(
        spec.sources()[0],
        kind="folder",
        path=str(samples_dir()),
        reader_args={"dir_filters": ["food"]},
    )
    spec = dataclasses.replace(spec, nodes=[folder, *spec.operators()])
    with pytest.raises(GraphInvalid) as refused:
        validate(spec)
    (problem,) = refused.value.problems
    assert problem.argument == "reader_args.dir_filters"
    assert "every class folder (labels counted over all of them) would be read" in problem.message
