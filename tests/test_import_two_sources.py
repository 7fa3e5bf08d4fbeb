"""DALI code that reads two sources (MixUp of two shuffled readers) imports and runs in the
explorer, where an exported module reads one source: the import says at once that the export
will refuse the graph, and why, rather than letting a user tune it and learn so at the end."""

from __future__ import annotations

from pathlib import Path

import pytest

from augexplorer import Session
from augexplorer.cli import main
from augexplorer.data import samples_dir
from augexplorer.export import export
from augexplorer.export.codegen import ExportError
from augexplorer.spec import load

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


def test_two_readers_import_and_run_and_the_import_says_the_export_refuses_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "mixup.py"
    source.write_text(MIXUP.format(root=str(samples_dir())))
    target = tmp_path / "mixup.json"
    assert main(["import", str(source), "-o", str(target), "--run-file"]) == 0
    said = capsys.readouterr().err
    assert f"warning: {target} runs in the explorer, but `augexplorer export` refuses it" in said
    graph = load(target)
    assert len(graph.sources()) == 2
    result = Session(graph).run()
    assert [a.shape for a in result.arrays(result.final)] == [(32, 32, 3)] * 4
    with pytest.raises(ExportError) as refused:
        export(graph, tmp_path / "mixup_aug.py")
    assert str(refused.value).split(" (fix")[0] in said  # the same words, said at the import
