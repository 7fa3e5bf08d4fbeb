"""More DALI code as written in the wild imports (tests/pipelines_wild_2.py): each file's
pipeline runs, in a Session and from its exported module, to the arrays the file's own pipeline
gives (two batches), and the module reads back as the same graph; DALI's ResNet-50 example's
random_area=[0.08, 1.25] is taken as DALI takes it; pipelines held in a list (one per GPU) or
made inside a loader function the file stopped in are read; what cannot come in is named as the
code wrote it."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from pipelines_wild_2 import (
    CAFFE,
    LOADER_FUNCTION,
    PIPES_PER_GPU_AS_WRITTEN,
    ROUND_TRIPS,
    VIDEO,
)
from wild_round_trips import (
    assert_module_gives_the_files_batches,
    assert_session_gives_the_files_batches,
    first_batches,
    round_trips,
    run_up_to,
)

from augexplorer import Session
from augexplorer.catalog import Catalog, load_catalog
from augexplorer.checks.values import check_value, value_fix
from augexplorer.data import samples_dir
from augexplorer.devices import has_gpu
from augexplorer.export.held_pipelines import FirstOfSeveral
from augexplorer.export.importer import import_graph
from augexplorer.export.script_run import StoppedForGpu
from augexplorer.export.serialized import ImportRefused
from augexplorer.spec import Node

# the old names are what these files are about: DALI's warnings of them are expected here
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning:nvidia.dali.*")


def write(folder: Path, name: str, template: str) -> Path:
    path = folder / f"{name}.py"
    path.write_text(template.format(root=str(samples_dir())))
    return path


def original_batches(path: Path) -> list[list[list[np.ndarray]]]:
    """What the file's pipeline gives, batch by batch, output by output: a fresh one, made by
    the file's code up to where it builds and hands it to an iterator (which runs it ahead)."""
    namespace = run_up_to(path, "pipes[0].build()")
    pipe = namespace["pipe"] if "pipe" in namespace else namespace["pipes"][0]
    return first_batches(pipe)


@pytest.fixture(scope="module")
def wild(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Each file's round trip (tests/wild_round_trips.py)."""
    folder = tmp_path_factory.mktemp("wild2")
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


# ---- random_area=[0.08, 1.25], as DALI's ResNet-50 example writes it ----------------------------


def test_the_resnet_examples_random_area_is_kept_as_written(wild: dict[str, Any]) -> None:
    _original, graph, _back, _caught = wild["dali_resnet_example"]
    crop = graph.node("random_resized_crop")
    assert isinstance(crop, Node) and crop.args["random_area"] == [0.08, 1.25]


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog()


@pytest.mark.parametrize("op", ["random_resized_crop", "decoders.image_random_crop"])
def test_an_area_above_one_is_taken_at_the_high_end_only(catalog: Catalog, op: str) -> None:
    # measured on DALI 2.4: a high end of 1.25, 3 or 100 runs (an area larger than the image is
    # drawn again); a low end, or a lone value, above 1 fails the batch or kills the process
    info = catalog[op]
    area = info.arg("random_area")
    assert area is not None
    for taken in ([0.08, 1.25], [0.08, 3.0], [0.5], [0.0, 1.0]):
        assert check_value(info, area, taken) is None, taken
    assert check_value(info, area, [1.5, 2.0]) == "element 1.5: 1.5 is out of range [0, 1]"
    assert check_value(info, area, [2.0]) == "element 2: 2 is out of range [0, 1]"
    assert check_value(info, area, [0.08, 150.0]) == "element 150: 150 is out of range [0, 100]"
    assert value_fix(info, area) == (
        "use one value in [0, 1], or a low end in that range and a high end in [0, 100]"
    )


# ---- pipelines held in a list, or made in a function the file stopped in ------------------------

no_gpu = pytest.mark.skipif(has_gpu(), reason="nothing stops the file where there is a GPU")


def test_one_pipeline_per_gpu_in_a_list_is_read_from_the_first(wild: dict[str, Any]) -> None:
    _original, graph, _back, caught = wild["pipes_per_gpu"]
    said = [str(w.message) for w in caught if issubclass(w.category, FirstOfSeveral)]
    assert len(said) == 1 and said[0].startswith(
        "pipes[0] is the first of 2 pipelines the file built in one list"
    ), said
    assert "set num_shards=1 among the source's reader arguments" in said[0]
    reader = graph.sources()[0]
    assert reader.reader_args["shard_id"] == 0 and reader.reader_args["num_shards"] == 2


@no_gpu  # the file asks for GPUs 0 and 1; where there are GPUs, pipes_per_gpu runs through
def test_pipelines_per_gpu_as_dalis_examples_write_them_import_here(tmp_path: Path) -> None:
    path = write(tmp_path, "various_readers", PIPES_PER_GPU_AS_WRITTEN)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        graph = import_graph(path, run_file=True)
    # stopped at pipes[0].build(): the list was made before it
    stopped = [str(w.message) for w in caught if issubclass(w.category, StoppedForGpu)]
    assert len(stopped) == 1 and "(`pipes[0].build()`)" in stopped[0], stopped
    assert any(issubclass(w.category, FirstOfSeveral) for w in caught)
    assert graph.batch_size == 3
    assert [(n.op, n.device) for n in graph.operators()] == [
        ("decoders.image", "mixed"),
        ("random_resized_crop", "gpu"),
        ("random.coin_flip", None),
        ("crop_mirror_normalize", "gpu"),
    ]
    assert Session(graph, device_id=None).run().arrays(graph.outputs["images"])[0].shape == (
        3,
        32,
        32,
    )


@no_gpu
def test_a_pipeline_made_in_a_loader_function_the_file_stopped_in_is_read(
    tmp_path: Path,
) -> None:
    path = write(tmp_path, "loader", LOADER_FUNCTION)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        graph = import_graph(path, run_file=True)
    stopped = [str(w.message) for w in caught if issubclass(w.category, StoppedForGpu)]
    assert len(stopped) == 1 and "(`train_loader = get_train_loader(batch_size=5)`)" in stopped[0]
    # the batch size the function was given, never the import's sample one, nor a refusal
    # asking for the class's parameters
    assert graph.batch_size == 5
    assert graph.sources()[0].reader_args["num_shards"] == 1
    assert [n.op for n in graph.operators()] == [
        "decoders.image",
        "random_resized_crop",
        "random.coin_flip",
        "crop_mirror_normalize",
    ]


def test_a_pipeline_held_only_by_the_files_iterator_is_read(tmp_path: Path) -> None:
    # the loader function run through (no GPU asked for): only train_loader holds the pipeline
    text = LOADER_FUNCTION.replace('"mixed", "gpu"', '"cpu", "cpu"')
    path = write(tmp_path, "loader", text.replace("device_id=0", "device_id=None"))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        graph = import_graph(path, run_file=True)
    assert not any(issubclass(w.category, FirstOfSeveral) for w in caught)  # the only one
    assert graph.batch_size == 5 and graph.name == "file_read_pipeline"
    assert import_graph(path, run_file=True, pipeline="train_loader._pipes[0]") == graph


# ---- what cannot come in --------------------------------------------------------------------


# each template, what its refusal names, the code of the line it points at, and its fix
REFUSED = {
    "caffe": (
        CAFFE,
        "ops.CaffeReader (now fn.readers.caffe, a reader of",
        "jpegs, labels = self.input()",
        "fix: write the images out as files in class folders or a file list",
    ),
    "video": (
        VIDEO,
        "ops.VideoReader (now fn.readers.video, a reader of",
        'output = self.input(name="Reader")',
        "fix: the explorer works on single images, not on sequences of frames: write frames "
        "out as image files",
    ),
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_a_reader_of_another_format_is_named_as_the_code_wrote_it(
    tmp_path: Path, case: str
) -> None:
    template, named, code, fix = REFUSED[case]
    path = write(tmp_path, case, template)
    line = next(i for i, text in enumerate(path.read_text().splitlines(), 1) if code in text)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ImportRefused) as refused:
            import_graph(path, run_file=True)
    message = str(refused.value)
    assert message.startswith(f"{path}: {named}"), message
    assert f"at line {line} of {path} in define_graph()" in message
    assert fix in message, message
