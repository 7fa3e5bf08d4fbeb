"""Seeds DALI derives from a pipeline's own seed are not in its serialized form, but DALI's rule
for them is followed at import: a pipeline seeded only by its ``seed=`` imports bit for bit and
quietly. What one node cannot carry (a policy whose operators each drew a derived seed) is said.
"""

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


def test_seeds_derived_from_the_pipeline_seed_import_quietly_and_equal(tmp_path: Path) -> None:
    path = write(tmp_path, seeded_ops=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error", DrawsDiffer)
        spec = import_graph(path, run_file=True)
    assert spec.sources()[0].seed is not None  # the seed DALI derived, written down
    explorer = Session(spec, device_id=None).run().arrays(spec.final_output())
    for got, want in zip(explorer, first_batch(path), strict=True):
        np.testing.assert_array_equal(got, want)


def test_operators_with_their_own_seeds_import_quietly_and_equal(tmp_path: Path) -> None:
    path = write(tmp_path, seeded_ops=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error", DrawsDiffer)
        spec = import_graph(path, run_file=True)
    explorer = Session(spec, device_id=None).run().arrays(spec.final_output())
    for got, want in zip(explorer, first_batch(path), strict=True):
        np.testing.assert_array_equal(got, want)


POLICY = """
from nvidia.dali import fn, pipeline_def
from nvidia.dali.auto_aug import rand_augment

@pipeline_def(batch_size=4, num_threads=1, device_id=None, seed=1234, enable_conditionals=True)
def seeded():
    jpegs, labels = fn.readers.file(file_root={root!r}, random_shuffle=True)
    images = fn.resize(fn.decoders.image(jpegs), resize_x=32, resize_y=32)
    return rand_augment.rand_augment(images, n=2, m=9), labels

pipe = seeded()
"""


def test_a_policy_drawing_derived_seeds_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "policy.py"
    path.write_text(textwrap.dedent(POLICY.format(root=str(samples_dir()))))
    with pytest.warns(DrawsDiffer) as noted:
        spec = import_graph(path, run_file=True)
    (message,) = [str(note.message) for note in noted if note.category is DrawsDiffer]
    assert "seed=1234" in message and "'rand_augment'" in message, message
    assert "'source'" not in message  # the reader's derived seed is imported
    assert "give the policy call seed=..." in message
    assert spec.sources()[0].seed is not None
    # the command line prints the same note
    out = tmp_path / "graph.json"
    assert main(["import", str(path), "--run-file", "-o", str(out)]) == 0
    notes = capsys.readouterr().err.splitlines()
    assert any(line.startswith("note: the pipeline's seed=1234") for line in notes), notes
    assert out.exists()
