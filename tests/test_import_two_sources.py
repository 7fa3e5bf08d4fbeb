"""DALI code that reads two sources imports and runs in the explorer. Two folder or file list
readers (MixUp of two shuffled readers) export as they run, so the import says nothing of the
export; sources an exported module cannot read together (a COCO reader beside a file reader)
are said at once at the import, in the export's own words, rather than letting a user tune the
graph and learn so at the end."""

from __future__ import annotations

from pathlib import Path

import pytest

from augexplorer import Session
from augexplorer.cli import main
from augexplorer.data import sample_annotations, samples_dir
from augexplorer.export import export
from augexplorer.export.codegen import ExportError
from augexplorer.spec import Ref, load

MIXUP = """
from nvidia.dali import fn, pipeline_def, types


@pipeline_def(batch_size=4, num_threads=1, device_id=None, seed=5)
def mixup():
    a, first_labels = fn.readers.file(file_root={root!r}, random_shuffle=True, name="a")
    b, second_labels = fn.readers.file(file_root={root!r}, random_shuffle=True, seed=9, name="b")
    first = fn.resize(fn.decoders.image(a, output_type=types.RGB), size=[32, 32])
    second = fn.resize(fn.decoders.image(b, output_type=types.RGB), size=[32, 32])
    return fn.cast(first * 0.7 + second * 0.3, dtype=types.UINT8), first_labels, second_labels


pipe = mixup()
"""


# Boxes of a COCO reader pasted onto images of a file reader: two sources the module cannot read
# together (its COCO loader reads one source).
COCO_AND_FILES = """
from nvidia.dali import fn, pipeline_def, types


@pipeline_def(batch_size=2, num_threads=1, device_id=None, seed=5)
def pasted():
    jpegs, boxes, labels = fn.readers.coco(
        file_root={root!r}, annotations_file={annotations!r}, ratio=True, name="coco"
    )
    backgrounds, _ = fn.readers.file(file_root={root!r}, random_shuffle=True, name="backgrounds")
    images = fn.resize(fn.decoders.image(jpegs, output_type=types.RGB), size=[32, 32])
    behind = fn.resize(fn.decoders.image(backgrounds, output_type=types.RGB), size=[32, 32])
    return fn.cast(images * 0.5 + behind * 0.5, dtype=types.UINT8), boxes, labels


pipe = pasted()
"""


def test_two_readers_import_run_and_export_without_a_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "mixup.py"
    source.write_text(MIXUP.format(root=str(samples_dir())))
    target = tmp_path / "mixup.json"
    assert main(["import", str(source), "-o", str(target), "--run-file"]) == 0
    assert "refuses" not in capsys.readouterr().err
    graph = load(target)
    assert len(graph.sources()) == 2
    result = Session(graph).run()
    assert [a.shape for a in result.arrays(result.final)] == [(32, 32, 3)] * 4
    module = export(graph, tmp_path / "mixup_aug.py").read_text()
    assert 'files=files["a"]' in module and 'files=files["b"]' in module


def test_a_coco_reader_beside_a_file_reader_is_said_at_the_import_to_be_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "pasted.py"
    source.write_text(
        COCO_AND_FILES.format(root=str(samples_dir()), annotations=str(sample_annotations()))
    )
    target = tmp_path / "pasted.json"
    assert main(["import", str(source), "-o", str(target), "--run-file"]) == 0
    said = capsys.readouterr().err
    assert f"warning: {target} runs in the explorer, but `augexplorer export` refuses it" in said
    graph = load(target)
    assert sorted(s.kind for s in graph.sources()) == ["coco", "folder"]
    assert [a.shape for a in Session(graph).run().arrays(Ref("cast"))] == [(32, 32, 3)] * 2
    with pytest.raises(ExportError) as refused:
        export(graph, tmp_path / "pasted_aug.py")
    assert str(refused.value).split(" (fix")[0] in said  # the same words, said at the import
