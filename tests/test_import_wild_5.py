"""A seventh set of DALI code from the wild imports (tests/pipelines_wild_5.py): what a newcomer
brings along with their pipeline (functools.partial, a dict of settings, a loop over operators,
helper functions, the batch size from the environment, the seed given by position, old ops made
in __init__, set_outputs with one output), blur and Laplacian, a forward affine warp, flips on
both axes, file lists written by the script, colour spaces, CIFAR-style crops, a beta-drawn mix.
Each file's pipeline runs, in a Session and from its exported module, to the arrays the file's
own pipeline gives (two batches), and the module reads back as the same graph. A pipeline that
returns its outputs in a list, and a GPU-only operator given CPU data, which DALI refuses on any
machine, are refused naming the line and the fix."""

from __future__ import annotations

import runpy
import sys
from pathlib import Path
from typing import Any
from unittest import mock

import numpy as np
import pytest
from pipelines_wild_5 import (
    JITTER_ON_CPU,
    JITTER_ON_GPU,
    NO_NUM_THREADS,
    RETURNS_A_DICT,
    RETURNS_A_LIST,
    ROUND_TRIPS,
    SET_OUTPUTS_LIST,
)
from wild_round_trips import (
    assert_module_gives_the_files_batches,
    assert_session_gives_the_files_batches,
    first_batches,
    round_trips,
    run_up_to,
)

from augexplorer.data import samples_dir
from augexplorer.devices import has_gpu
from augexplorer.errors import GraphInvalid
from augexplorer.export.importer import import_graph
from augexplorer.export.serialized import ImportRefused
from augexplorer.validate import validate

# the old names of some of these files are expected here
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning:nvidia.dali.*")


def write(folder: Path, name: str, template: str) -> Path:
    path = folder / f"{name}.py"
    path.write_text(template.format(root=str(samples_dir())))
    return path


def made_pipe(path: Path) -> Any:
    """The pipeline the file makes, run as ``python file.py`` runs it (no arguments: the
    file that reads its crop from ``sys.argv`` takes its default)."""
    with mock.patch.object(sys, "argv", [str(path)]):
        return runpy.run_path(str(path))["pipe"]


def original_batches(path: Path) -> list[list[list[np.ndarray]]]:
    return first_batches(made_pipe(path))


@pytest.fixture(scope="module")
def wild(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Each file's round trip (tests/wild_round_trips.py)."""
    folder = tmp_path_factory.mktemp("wild5")
    return round_trips(folder, ROUND_TRIPS, write, original_batches, record_warnings=True)


@pytest.mark.parametrize("name", list(ROUND_TRIPS))
def test_session_runs_the_files_batches(wild: dict[str, Any], name: str) -> None:
    assert_session_gives_the_files_batches(wild[name], name)


@pytest.mark.parametrize("name", list(ROUND_TRIPS))
def test_exported_module_runs_the_files_batches(wild: dict[str, Any], name: str) -> None:
    assert_module_gives_the_files_batches(wild[name], wild["exported"][name], name)


@pytest.mark.parametrize("name", list(ROUND_TRIPS))
def test_exported_module_reads_back_as_the_same_graph(wild: dict[str, Any], name: str) -> None:
    _original, graph, back, _caught = wild[name]
    assert back == graph


@pytest.mark.parametrize("name", list(ROUND_TRIPS))
def test_each_file_imports_without_a_warning(wild: dict[str, Any], name: str) -> None:
    # its seed read (the one given by position too): no draws said to differ (DALI's own
    # warnings of the old ops names aside)
    said = [w.message for w in wild[name].caught if w.category is not DeprecationWarning]
    assert said == []


def test_what_the_files_read_from_settings_is_what_they_run(wild: dict[str, Any]) -> None:
    # the batch size from the environment's default, the dict's values, one output from
    # set_outputs, four from the colour conversions
    assert wild["env_batch"].graph.batch_size == 3
    rotate = next(n for n in wild["param_dict"].graph.nodes if getattr(n, "op", "") == "rotate")
    angle = next(n for n in wild["param_dict"].graph.nodes if n.id == rotate.args["angle"].node)
    assert angle.args["range"] == [-15.0, 15.0]
    assert len(wild["set_outputs_single"].graph.outputs) == 1
    assert len(wild["colour_spaces"].graph.outputs) == 4


# ---- outputs returned in a list ----------------------------------------------------------------


LISTED = {
    "returned by a @pipeline_def": (
        RETURNS_A_LIST,
        "line 11 (`return [images, labels]`)",
        "`return images, labels`",
    ),
    "returned as a dict": (
        RETURNS_A_DICT,
        'line 10 (`return {"images": fn.resize(images, size=[24, 24]), "labels": labels}`)',
        "`return fn.resize(images, size=[24, 24]), labels`, and name them in the loader: "
        "`output_map=['images', 'labels']`",
    ),
    "given to set_outputs": (
        SET_OUTPUTS_LIST,
        "line 11 (`pipe.set_outputs([images, _])`)",
        "`pipe.set_outputs(images, _)`",
    ),
}


@pytest.mark.parametrize("case", LISTED, ids=list(LISTED))
def test_outputs_in_a_list_are_refused_naming_the_line_and_the_tuple_to_write(
    tmp_path: Path, case: str
) -> None:
    template, line, fix = LISTED[case]
    path = write(tmp_path, "listed", template)
    with pytest.raises(ImportRefused) as refused:
        import_graph(path, run_file=True)
    said = str(refused.value)
    kind = "dict" if template is RETURNS_A_DICT else "list"
    assert f"gives its outputs in a {kind}, at {line}" in said
    assert f"(fix: {fix})" in said
    # DALI itself refuses the file's pipeline when it builds it
    with pytest.raises(TypeError, match=r"Illegal (pipeline )?output type"):
        made_pipe(path).build()


# ---- num_threads left out ---------------------------------------------------------------------


def test_a_pipeline_made_without_num_threads_says_so_where_dali_does_not(tmp_path: Path) -> None:
    path = write(tmp_path, "no_threads", NO_NUM_THREADS)
    with pytest.raises(ImportRefused) as refused:
        import_graph(path, run_file=True)
    said = str(refused.value)
    assert "running it failed at line 14: TypeError: '<' not supported" in said
    assert "(fix: the pipeline was made without num_threads, which DALI needs to build it" in said
    assert "num_threads=4 in @pipeline_def(...)" in said
    # DALI's own words say nothing of num_threads
    with pytest.raises(TypeError, match="not supported between instances of 'NoneType' and 'int'"):
        run_up_to(path, "pipe.build()")["pipe"].build()
    # given it, the file imports
    fixed = write(tmp_path, "threads", NO_NUM_THREADS.replace("seed=2)", "seed=2, num_threads=1)"))
    assert import_graph(fixed, run_file=True).batch_size == 3


# ---- a GPU-only operator given CPU data --------------------------------------------------------


def test_a_gpu_only_operator_given_cpu_data_is_refused_naming_the_line(tmp_path: Path) -> None:
    path = write(tmp_path, "jitter", JITTER_ON_CPU)
    with pytest.raises(ImportRefused) as refused:
        import_graph(path, run_file=True)
    said = str(refused.value)
    assert "fn.jitter at line 11 of" in said
    assert "(`images = fn.jitter(images, nDegree=2)`)" in said
    assert "DALI has jitter only for the GPU" in said
    assert "fn.jitter(images.gpu(), ...)" in said
    # DALI itself refuses it, on any machine: it has no CPU jitter
    with pytest.raises(RuntimeError, match='Operator "Jitter" not registered for cpu'):
        made_pipe(path).build()


def test_the_same_operator_given_gpu_data_imports_on_the_gpu(tmp_path: Path) -> None:
    graph = import_graph(write(tmp_path, "jitter_gpu", JITTER_ON_GPU), run_file=True)
    jitter = next(n for n in graph.nodes if getattr(n, "op", "") == "jitter")
    assert jitter.device == "gpu"
    if not has_gpu():  # checked, the graph says where it cannot run
        with pytest.raises(GraphInvalid, match="jitter runs only on a GPU"):
            validate(graph)
