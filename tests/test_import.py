"""Import: exported modules come back as exactly the exported graph; hand-written pipelines come
back through Pipeline.serialize() and re-export to the same outputs."""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import pytest
from pipeline_files import load_module, run_once

from augexplorer import preset
from augexplorer.cli import main
from augexplorer.data import samples_dir
from augexplorer.errors import SpecFormatError
from augexplorer.export import export
from augexplorer.export.importer import ImportWouldRun, import_graph
from augexplorer.export.serialized import ImportRefused
from augexplorer.presets import PRESETS
from augexplorer.spec import Node, load, save

HAND_WRITTEN = """
from nvidia.dali import fn, pipeline_def, types

ROOT = {root!r}


@pipeline_def(enable_conditionals=True, batch_size=6)
def hand_written():
    jpegs, labels = fn.readers.file(file_root=ROOT, random_shuffle=True, seed=7, name="reader")
    images = fn.decoders.image(jpegs, output_type=types.RGB)
    images = fn.resize(images, resize_x=200, resize_y=160, interp_type=types.INTERP_LINEAR)
    angle = fn.random.uniform(range=[-10, 10], seed=3)
    if fn.random.coin_flip(probability=0.4, seed=11):
        images = fn.rotate(images, angle=angle, keep_size=True)
    small = fn.resize(images, resize_x=50, resize_y=40)
    images = fn.crop_mirror_normalize(
        images,
        crop=[100, 100],
        mean=[0.485 * 255, 0.456 * 255, 0.406 * 255],
        std=[58.4, 57.1, 57.4],
        dtype=types.FLOAT,
        mirror=fn.random.coin_flip(seed=5),
    )
    return images, labels, small
"""


@pytest.mark.parametrize("name", list(PRESETS))
def test_exported_module_imports_back_exactly(tmp_path: Path, name: str) -> None:
    spec = preset(name)
    module = export(spec, tmp_path / "aug.py")
    # Reading GRAPH runs nothing: a module that would fail if executed still imports.
    module.write_text(module.read_text() + "\nraise RuntimeError('executed')\n")
    assert import_graph(module) == spec


def test_hand_written_pipeline_round_trip(tmp_path: Path) -> None:
    source = tmp_path / "hand.py"
    source.write_text(HAND_WRITTEN.format(root=str(samples_dir())))
    graph = import_graph(source, run_file=True)
    rotate = next(n for n in graph.operators() if n.op == "rotate")
    assert isinstance(rotate, Node) and rotate.probability is not None
    assert rotate.probability.p == pytest.approx(0.4) and rotate.probability.seed == 11
    assert graph.node("resize").args["interp_type"] == "INTERP_LINEAR"  # enum restored by name
    assert graph.sources()[0].id == "reader" and graph.sources()[0].seed == 7
    assert list(graph.outputs) == ["images", "labels", "output_2"]
    assert graph.batch_size == 6

    exported = load_module(export(graph, tmp_path / "hand_aug.py"))
    original = load_module(source).hand_written(num_threads=2, device_id=None)
    files, labels, _ = exported.read_data(exported.DATA)
    again = exported.hand_written_pipeline(
        files, labels, device="cpu", batch_size=6, num_threads=2, device_id=None
    )
    for before, after in zip(run_once(original), run_once(again), strict=True):
        for x, y in zip(before, after, strict=True):
            np.testing.assert_array_equal(x, y)


def test_python_function_is_refused_by_name(tmp_path: Path) -> None:
    source = tmp_path / "pyfn.py"
    source.write_text(
        textwrap.dedent(
            f"""
            from nvidia.dali import fn, pipeline_def
            @pipeline_def
            def with_python():
                jpegs, _ = fn.readers.file(file_root={str(samples_dir())!r})
                return fn.python_function(jpegs, function=lambda x: x)
            """
        )
    )
    with pytest.raises(ImportRefused, match=r"with_python.*python_function"):
        import_graph(source, run_file=True)


def test_external_source_is_refused_by_name(tmp_path: Path) -> None:
    source = tmp_path / "ext.py"
    source.write_text(
        textwrap.dedent(
            """
            import numpy as np
            from nvidia.dali import fn, pipeline_def
            @pipeline_def
            def fed():
                data = fn.external_source(source=lambda: [np.zeros((2, 2), np.uint8)] * 8)
                return fn.flip(data)
            """
        )
    )
    with pytest.raises(ImportRefused, match="external_source"):
        import_graph(source, run_file=True)


def test_a_file_without_a_pipeline_says_so(tmp_path: Path) -> None:
    source = tmp_path / "empty.py"
    source.write_text("x = 1\n")
    with pytest.raises(ImportRefused, match="no @pipeline_def function"):
        import_graph(source, run_file=True)


def test_cli_import_and_its_warning(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    module = export(preset("basic"), tmp_path / "aug.py")
    target = tmp_path / "graph.json"
    assert main(["import", str(module), "-o", str(target)]) == 0
    assert load(target) == preset("basic")
    assert main(["import", str(module), "-o", str(target)]) == 2  # exists: refused
    with pytest.raises(SystemExit):
        main(["import", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert "RUNNING it" in help_text and "--run-file" in help_text


SIDE_EFFECT = """
from pathlib import Path
from nvidia.dali import fn, pipeline_def

Path({marker!r}).write_text("ran")


@pipeline_def(batch_size=2)
def tiny():
    return fn.random.uniform(range=[0, 1], seed=1)
"""


def test_a_file_that_is_not_an_export_runs_only_when_allowed(tmp_path: Path) -> None:
    marker = tmp_path / "ran.txt"
    source = tmp_path / "tiny.py"
    source.write_text(SIDE_EFFECT.format(marker=str(marker)))
    with pytest.raises(ImportWouldRun) as refused:
        import_graph(source)
    message = str(refused.value)
    assert not marker.exists()
    assert str(source) in message and "nothing ran" in message
    assert "importing pathlib, nvidia.dali" in message and "pipeline tiny" in message
    assert "--run-file" in message and "run_file=True" in message
    graph = import_graph(source, run_file=True)
    assert marker.read_text() == "ran" and graph.batch_size == 2


def test_cli_runs_a_file_only_with_run_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    marker = tmp_path / "ran.txt"
    source = tmp_path / "tiny.py"
    source.write_text(SIDE_EFFECT.format(marker=str(marker)))
    target = tmp_path / "graph.json"
    assert main(["import", str(source), "-o", str(target)]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "Traceback" not in error
    assert str(source) in error and "--run-file" in error
    assert not marker.exists() and not target.exists()
    assert main(["import", str(source), "-o", str(target), "--run-file"]) == 0
    assert marker.exists() and load(target).batch_size == 2


def test_a_json_file_is_read_as_a_spec_never_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec_file = save(preset("basic"), tmp_path / "graph.json")
    assert import_graph(spec_file) == preset("basic")
    # a spec under another name is still read as a spec
    renamed = tmp_path / "graph.py"
    renamed.write_text(spec_file.read_text())
    assert import_graph(renamed, run_file=True) == preset("basic")
    # Python in a .json file is refused as a spec, even when running files is allowed
    marker = tmp_path / "ran.txt"
    disguised = tmp_path / "disguised.json"
    disguised.write_text(SIDE_EFFECT.format(marker=str(marker)))
    with pytest.raises(SpecFormatError, match=r"disguised\.json: read as a spec \(JSON\)"):
        import_graph(disguised, run_file=True)
    assert main(["import", str(disguised), "-o", str(tmp_path / "out.json"), "--run-file"]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "disguised.json" in error and "Traceback" not in error
    assert not marker.exists()


def test_cli_import_of_a_folder_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["import", str(tmp_path), "-o", str(tmp_path / "out.json")]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and f"{tmp_path} is a folder" in error and "fix:" in error
