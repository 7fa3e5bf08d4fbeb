"""``rel_start``/``rel_shape`` are a window inside the input only for a slice that fails outside
it: ``fn.reshape``'s ``rel_shape`` is a factor of each extent (2 doubles one), and a slice with
``out_of_bounds_policy="pad"`` or ``"trim_to_shape"`` reaches outside by design. Both ran in DALI
and were refused by the graph checks (so a DALI script using them could not be imported and
exported); the default slice is still held to [0, 1] before DALI fails a batch."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from exported_runner import run_exported
from pipeline_files import load_module

from augexplorer import GraphInvalid, GraphSpec, Source, chain, validate
from augexplorer.data import samples_dir
from augexplorer.engine import Session
from augexplorer.export import export
from augexplorer.export.importer import import_graph

SIDE = 40


def graph(op: str, args: dict[str, object]) -> GraphSpec:
    """The bundled samples decoded, resized to SIDE x SIDE and given to `op` with `args`."""
    return chain(
        Source("source"),
        ("decode", "decoders.image", {"output_type": "RGB"}),
        ("resize", "resize", {"resize_x": float(SIDE), "resize_y": float(SIDE)}),
        (op, op, args),
        batch_size=2,
    )


def node_shapes(spec: GraphSpec, node: str) -> set[tuple[int, ...]]:
    return {sample.shape for sample in Session(spec).run().arrays(node)}


def test_reshape_takes_a_factor_above_one() -> None:
    spec = graph("reshape", {"rel_shape": [2.0, 0.5, 1.0]})
    validate(spec)
    assert node_shapes(spec, "reshape") == {(2 * SIDE, SIDE // 2, 3)}


@pytest.mark.parametrize("policy", ["pad", "trim_to_shape"])
def test_a_slice_that_pads_or_trims_reaches_outside_its_input(policy: str) -> None:
    args = {
        "axis_names": "HW",
        "rel_start": [-0.25, -0.5],
        "rel_shape": [1.5, 2.0],
        "out_of_bounds_policy": policy,
    }
    spec = graph("slice", args)
    validate(spec)
    # rows [-10, 50) and columns [-20, 60) of a 40 x 40 image: padded, or trimmed to the image
    want = (60, 80, 3) if policy == "pad" else (SIDE, SIDE, 3)
    assert node_shapes(spec, "slice") == {want}


def test_a_slice_that_fails_outside_its_input_is_held_to_it() -> None:
    spec = graph("slice", {"axis_names": "HW", "rel_start": [-0.25, 0.0], "rel_shape": [0.5, 0.5]})
    with pytest.raises(GraphInvalid) as refused:
        validate(spec)
    (problem,) = refused.value.problems
    assert (problem.node, problem.argument) == ("slice", "rel_start")
    assert "out of range [0, 1]" in problem.message


SCRIPT = """
from nvidia.dali import fn, pipeline_def, types


@pipeline_def(batch_size=2, num_threads=1, device_id=None, seed=3)
def windows():
    jpegs, labels = fn.readers.file(file_root={root!r})
    images = fn.resize(fn.decoders.image(jpegs, output_type=types.RGB), size=[24, 32])
    padded = fn.slice(images, rel_start=[-0.5, 0.0], rel_shape=[2.0, 1.0], axis_names="HW",
                      out_of_bounds_policy="pad", fill_values=9)
    return fn.reshape(padded, rel_shape=[0.5, 2.0, 1.0]), labels


pipe = windows()
"""


def test_dali_code_with_both_imports_and_exports_the_same_batch(tmp_path: Path) -> None:
    source = tmp_path / "windows.py"
    source.write_text(SCRIPT.format(root=str(samples_dir())))
    module = export(import_graph(source, run_file=True), tmp_path / "windows_aug.py")
    job = {
        "name": "windows",
        "module": str(module),
        "out": str(tmp_path / "windows.npz"),
        "batch_size": 2,
        "device": "cpu",
        "runs": 1,
    }
    saved = run_exported([job], tmp_path)["windows"]
    pipe = load_module(source).pipe
    pipe.build()
    images = pipe.run()[0]
    for sample in range(2):
        want = np.array(images.at(sample))
        assert want.shape == (24, 64, 3)
        np.testing.assert_array_equal(saved[f"0_{sample}"], want)
