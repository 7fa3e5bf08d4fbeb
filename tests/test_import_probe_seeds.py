"""``seed=-1`` given in code (a script's ``--seed`` default passed on) is no "no seed" in DALI
2.4: the operator draws with -1 as a seed of its own, other values than with no seed and the same
whatever the pipeline's seed. A graph's seeds are whole numbers from 0, so the import refuses it,
naming the line and the fix, instead of writing a graph that neither runs nor exports."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from augexplorer.data import samples_dir
from augexplorer.export.importer import import_graph
from augexplorer.export.serialized import ImportRefused

MINUS_ONE = """
from nvidia.dali import fn, pipeline_def, types


@pipeline_def(batch_size=4, num_threads=1, device_id=None, seed=62)
def minus_one(reader_seed=None, draw_seed=None):
    jpegs, labels = fn.readers.file(file_root={root!r}, random_shuffle=True, seed=reader_seed)
    images = fn.resize(fn.decoders.image(jpegs, output_type=types.RGB), size=[24, 24])
    angle = fn.random.uniform(range=[-30, 30], seed=draw_seed)
    return fn.rotate(images, angle=angle, keep_size=True), labels
"""


def _draws(pipeline_seed: int, **seed: Any) -> np.ndarray:
    from nvidia.dali import fn, pipeline_def

    @pipeline_def(batch_size=4, num_threads=1, device_id=None, seed=pipeline_seed)
    def draws() -> Any:
        return fn.random.uniform(range=[0.0, 1.0], **seed)

    pipe = draws()
    pipe.build()
    return np.array(pipe.run()[0].as_tensor())


def test_dali_draws_with_minus_one_as_a_seed_of_its_own() -> None:
    """What the refusal says, measured: not the draws of no seed, and not the pipeline's."""
    assert not np.array_equal(_draws(62, seed=-1), _draws(62))
    np.testing.assert_array_equal(_draws(62, seed=-1), _draws(63, seed=-1))


@pytest.mark.parametrize(
    ("params", "operator", "line"),
    [({"reader_seed": -1}, "fn.readers.file", 7), ({"draw_seed": -1}, "fn.random.uniform", 9)],
)
def test_a_negative_seed_is_refused_with_its_line_and_fix(
    tmp_path: Path, params: dict[str, int], operator: str, line: int
) -> None:
    source = tmp_path / "minus_one.py"
    source.write_text(MINUS_ONE.format(root=str(samples_dir())))
    with pytest.raises(ImportRefused) as refused:
        import_graph(source, run_file=True, params=params)
    message = str(refused.value)
    assert f"{operator} at line {line} of {source}" in message
    assert "seed=-1 is a seed of its own" in message and "fix: leave seed= out" in message


def test_no_seed_written_as_none_imports(tmp_path: Path) -> None:
    source = tmp_path / "minus_one.py"
    source.write_text(MINUS_ONE.format(root=str(samples_dir())))
    graph = import_graph(source, run_file=True)
    # seeds DALI derived from the pipeline's seed=62, all from 0 up
    assert graph.sources()[0].seed is not None and graph.sources()[0].seed >= 0
    uniform = next(node for node in graph.operators() if node.op == "random.uniform")
    assert uniform.seed is not None and uniform.seed >= 0
