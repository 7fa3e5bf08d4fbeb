"""Seeds DALI derives from a pipeline's own seed are not in its serialized form: an import says
so (the draws will differ), and one whose operators carry their seeds stays quiet and equal."""

from __future__ import annotations

import textwrap
import warnings
from pathlib import Path

import numpy as np
import pytest

from augexplorer import Session
from augexplorer.cli import main
from augexplorer.data import samples_dir
from augexplorer.export import import_graph
from augexplorer.export.derived_seeds import DrawsDiffer

PIPELINE = """
from nvidia.dali import fn, pipeline_def

@pipeline_def(batch_size=4, num_threads=1, device_id=None, seed=1234)
def seeded():
    jpegs, labels = fn.readers.file(file_root={root!r}, random_shuffle=True{reader_seed})
    images = fn.decoders.image(jpegs)
    images = fn.resize(images, resize_x=64, resize_y=64)
    return fn.rotate(images, angle=fn.random.uniform(range=(-30, 30){draw_seed})), labels

pipe = seeded()
"""


def write(tmp_path: Path, *, seeded_ops: bool) -> Path:
    path = tmp_path / ("own_seeds.py" if seeded_ops else "pipeline_seed.py")
    path.write_text(
        textwrap.dedent(
            PIPELINE.format(
                root=str(samples_dir()),
                reader_seed=", seed=5" if seeded_ops else "",
                draw_seed=", seed=9" if seeded_ops else "",
            )
        )
    )
    return path


def first_batch(path: Path) -> list[np.ndarray]:
    namespace: dict[str, object] = {}
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    pipe = namespace["pipe"]
    pipe.build()  # type: ignore[attr-defined]
    images, _ = pipe.run()  # type: ignore[attr-defined]
    return [np.array(images.at(i)) for i in range(4)]


def test_seeds_derived_from_the_pipeline_seed_are_named(tmp_path: Path) -> None:
    path = write(tmp_path, seeded_ops=False)
    with pytest.warns(DrawsDiffer) as noted:
        spec = import_graph(path, run_file=True)
    message = str(noted[0].message)
    assert "seed=1234" in message and "'source'" in message and "'uniform'" in message
    assert "seed=..." in message  # the fix
    explorer = Session(spec, device_id=None).run().arrays(spec.final_output())
    assert not all(np.array_equal(a, b) for a, b in zip(explorer, first_batch(path), strict=True))


def test_operators_with_their_own_seeds_import_quietly_and_equal(tmp_path: Path) -> None:
    path = write(tmp_path, seeded_ops=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error", DrawsDiffer)
        spec = import_graph(path, run_file=True)
    explorer = Session(spec, device_id=None).run().arrays(spec.final_output())
    for got, want in zip(explorer, first_batch(path), strict=True):
        np.testing.assert_array_equal(got, want)


def test_the_command_line_prints_the_note(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, seeded_ops=False)
    out = tmp_path / "graph.json"
    assert main(["import", str(path), "--run-file", "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert err.startswith("note: the pipeline's seed=1234") and out.exists()
