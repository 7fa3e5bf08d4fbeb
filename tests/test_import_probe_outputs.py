"""An operator whose arguments give it another number of outputs than a graph node of it has
(``fn.resize(save_attrs=True)`` two, ``random_object_bbox(format="box")`` one): where the code
reads none of the extra outputs of an argument that only adds them, the import leaves the argument
out and the export gives the original's batches; otherwise the import refuses, naming the line and
the fix, instead of writing a graph whose export fails."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from exported_runner import run_exported
from pipeline_files import load_module

from augexplorer.data import samples_dir
from augexplorer.export import export
from augexplorer.export.importer import import_graph
from augexplorer.export.serialized import ImportRefused

BATCH = 3
RUNS = 2

ATTRS_UNUSED = """
from nvidia.dali import fn, pipeline_def, types


@pipeline_def(batch_size={batch}, num_threads=1, device_id=None, seed=50)
def attrs_unused():
    jpegs, labels = fn.readers.file(file_root={root!r}, random_shuffle=True)
    images = fn.decoders.image(jpegs, output_type=types.RGB)
    small, _ = fn.resize(images, resize_shorter=32, save_attrs=True)
    return fn.crop(small, crop=(30, 30)), labels


pipe = attrs_unused()
"""

ATTRS_READ = """
from nvidia.dali import fn, pipeline_def, types


@pipeline_def(batch_size={batch}, num_threads=1, device_id=None, seed=50)
def attrs_read():
    jpegs, labels = fn.readers.file(file_root={root!r})
    images = fn.decoders.image(jpegs, output_type=types.RGB)
    small, attrs = fn.resize(images, resize_shorter=32, save_attrs=True)
    return small, attrs, labels


pipe = attrs_read()
"""


def write(tmp_path: Path, name: str, template: str) -> Path:
    path = tmp_path / name
    path.write_text(template.format(root=str(samples_dir()), batch=BATCH))
    return path


def original_batches(path: Path) -> list[list[list[np.ndarray]]]:
    pipe: Any = load_module(path).pipe
    pipe.build()
    return [
        [[np.array(out.at(i)) for i in range(len(out))] for out in pipe.run()] for _ in range(RUNS)
    ]


def test_an_extra_output_nobody_reads_is_left_out_and_the_export_runs_the_original(
    tmp_path: Path,
) -> None:
    source = write(tmp_path, "attrs_unused.py", ATTRS_UNUSED)
    graph = import_graph(source, run_file=True)
    resize = next(node for node in graph.operators() if node.op == "resize")
    assert "save_attrs" not in resize.args  # it only added the output the code threw away
    module = export(graph, tmp_path / "attrs_unused_aug.py")
    job = {
        "name": "attrs_unused",
        "module": str(module),
        "out": str(tmp_path / "attrs_unused.npz"),
        "batch_size": BATCH,
        "device": "cpu",
        "runs": RUNS,
    }
    saved = run_exported([job], tmp_path)["attrs_unused"]
    for run, outputs in enumerate(original_batches(source)):
        prefix = f"run{run}_" if run else ""
        for index, want in enumerate(outputs):
            for sample, expected in enumerate(want):
                got = saved[f"{prefix}{index}_{sample}"]
                assert got.dtype == expected.dtype and got.shape == expected.shape
                np.testing.assert_array_equal(got, expected)


def test_an_extra_output_the_code_reads_is_refused_with_its_line_and_fix(tmp_path: Path) -> None:
    source = write(tmp_path, "attrs_read.py", ATTRS_READ)
    with pytest.raises(ImportRefused) as refused:
        import_graph(source, run_file=True)
    message = str(refused.value)
    assert f"fn.resize at line 9 of {source}" in message
    assert "2 outputs with save_attrs=True" in message
    assert "fix: leave out save_attrs" in message and "images.shape()[0:2]" in message


BOX_FORMAT = """
from nvidia.dali import fn, pipeline_def, types


@pipeline_def(batch_size=2, num_threads=1, device_id=None, seed=73)
def boxes():
    jpegs, labels = fn.readers.file(file_root={root!r})
    images = fn.resize(fn.decoders.image(jpegs, output_type=types.GRAY), size=[32, 32])
    mask = fn.cast(images[:, :, 0] > 128, dtype=types.INT32)
    box = fn.segmentation.random_object_bbox(mask, format="box", foreground_prob=1.0)
    return box, labels


pipe = boxes()
"""


def test_an_operator_given_fewer_outputs_than_its_node_is_refused(tmp_path: Path) -> None:
    """format="box" gives one output where the node (at DALI's defaults) gives two: the export
    would unpack two from one."""
    source = write(tmp_path, "boxes.py", BOX_FORMAT)
    with pytest.raises(ImportRefused) as refused:
        import_graph(source, run_file=True)
    message = str(refused.value)
    assert f"fn.segmentation.random_object_bbox at line 10 of {source}" in message
    assert "DALI gives it 1 output with the arguments written" in message
    assert "gives 2 (fix: leave out the arguments that change how many outputs" in message
