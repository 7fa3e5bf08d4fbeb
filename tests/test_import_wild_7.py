"""A ninth set of DALI code from the wild imports (tests/pipelines_wild_7.py): the old ops style
and the mixed styles of NVIDIA's older examples and the training repositories of 2019-2022.
Pipeline subclasses with their operators made in __init__ or in define_graph, reused for two
inputs, wrapped in classes of the repository; ops under other names; ops and fn in one pipeline;
the old names of operators and arguments DALI 2.4 still takes; COCO with RandomBBoxCrop into
Slice and BoxEncoder; an iterator built in the same file; a pipeline loaded back with
Pipeline.deserialize. Each file's pipeline runs, in a Session and from its exported module, to
the arrays the file's own pipeline gives (two batches), and the module reads back as the same
graph. Values fed from Python by feed_input, and ops.Jitter on the CPU (which DALI refuses), are
refused naming the line and the fix."""

from __future__ import annotations

import runpy
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from pipelines_wild_7 import (
    FED_ANGLES,
    OPS_BOXES_AS_WRITTEN,
    OPS_JITTER_CPU,
    OPS_JITTER_GPU,
    ROUND_TRIPS,
)
from wild_round_trips import (
    assert_module_gives_the_files_batches,
    assert_session_gives_the_files_batches,
    first_batches,
    round_trips,
    run_up_to,
)

from augexplorer import Session
from augexplorer.box_layouts import BoxFormatMismatch
from augexplorer.crop_search import EndlessCropSearch
from augexplorer.data import sample_annotations, samples_dir
from augexplorer.devices import has_gpu
from augexplorer.errors import GraphInvalid
from augexplorer.export.importer import import_graph
from augexplorer.export.serialized import ImportRefused
from augexplorer.spec import GraphSpec, Node
from augexplorer.validate import validate

# the old names are what these files are about: DALI's warnings of them are expected here
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning:nvidia.dali.*")


def write(folder: Path, name: str, template: str) -> Path:
    path = folder / f"{name}.py"
    path.write_text(template.format(root=str(samples_dir()), annotations=str(sample_annotations())))
    return path


def original_batches(path: Path) -> list[list[list[np.ndarray]]]:
    """What the file's pipeline gives, made by the file's code up to where it builds it (an
    iterator after that line would run it ahead)."""
    return first_batches(run_up_to(path, "pipe.build()")["pipe"])


@pytest.fixture(scope="module")
def wild(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Each file's round trip (tests/wild_round_trips.py)."""
    folder = tmp_path_factory.mktemp("wild7")
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
def test_each_file_imports_without_a_warning_of_ours(wild: dict[str, Any], name: str) -> None:
    # its seeds read, the one given by position too (DALI's own warnings of old names and
    # options, which the file raises as it runs, aside)
    said = [w.message for w in wild[name].caught if w.category.__module__.startswith("augexplorer")]
    assert said == []


def ops_of(graph: GraphSpec) -> list[str]:
    return [node.op for node in graph.operators()]


def test_old_names_come_in_as_the_current_operators(wild: dict[str, Any]) -> None:
    assert ops_of(wild["ops_resize_crop_mirror"].graph).count("resize_crop_mirror") == 2
    old = wild["old_arguments"].graph
    assert {"crop", "rotate", "random.normal", "color_space_conversion"} <= set(ops_of(old))
    crop = old.node("crop")
    assert isinstance(crop, Node) and crop.args["dtype"] == "FLOAT"
    assert "image_type" not in crop.args and "output_dtype" not in crop.args
    lookup = wild["ops_constants"].graph.node("lookup_table")
    assert isinstance(lookup, Node) and lookup.args["dtype"] == "INT64"


def test_the_fast_resize_crop_mirror_keeps_its_own_default(wild: dict[str, Any]) -> None:
    # FastResizeCropMirror resizes without antialias, ResizeCropMirror (its replacement) with
    # it: the file never wrote antialias, and the graph runs what it ran
    graph = wild["ops_resize_crop_mirror"].graph
    fast, slow = (n for n in graph.operators() if n.op == "resize_crop_mirror")
    assert fast.args["antialias"] is False
    assert "antialias" not in slow.args


def test_readers_keep_the_files_shards_and_names(wild: dict[str, Any]) -> None:
    reader = wild["sharded_iterator"].graph.sources()[0]
    assert reader.id == "Reader"
    assert reader.reader_args["shard_id"] == 1 and reader.reader_args["num_shards"] == 2
    pair = wild["ops_reused"].graph
    assert [source.id for source in pair.sources()] == ["Images", "Targets"]
    # one coin object called once flips both: one coin node, two flips reading it
    coins = [n for n in pair.operators() if n.op == "random.coin_flip"]
    flips = [n for n in pair.operators() if n.op == "flip"]
    assert len(coins) == 1 and len(flips) == 2
    assert {flip.args["horizontal"].node for flip in flips} == {coins[0].id}
    coco = wild["coco_slice_encoder"].graph
    assert coco.sources()[0].kind == "coco"
    assert list(coco.outputs) == ["images", "boxes", "labels"]


def test_a_deserialized_pipeline_is_read_as_it_was_saved(tmp_path: Path) -> None:
    # DALI's own serialize() fails on it (define_graph is not implemented), with no message:
    # the import reads what its backend holds
    path = write(tmp_path, "deserialized", ROUND_TRIPS["deserialized"])
    pipe = runpy.run_path(str(path))["pipe"]
    with pytest.raises(NotImplementedError, match=r"^$"):
        pipe.serialize()
    graph = import_graph(path, run_file=True)
    assert ops_of(graph) == ["decoders.image", "resize", "random.coin_flip", "flip", "cast"]


# ---- what cannot be imported, or runs only on a GPU --------------------------------------------


def test_angles_fed_by_feed_input_are_refused_naming_the_line(tmp_path: Path) -> None:
    path = write(tmp_path, "fed", FED_ANGLES)
    with pytest.raises(ImportRefused) as refused:
        import_graph(path, run_file=True)
    said = str(refused.value)
    assert (
        "ops.ExternalSource (values fed from Python, such as angles or factors) at line 20" in said
    )
    assert "(`self.angle = self.angles()`)" in said
    assert "(fix: draw them in the pipeline with an fn.random operator" in said
    # DALI runs the file: what stands in the way is the graph, which holds no Python values
    batches = original_batches(path)
    assert len(batches[0][0]) == 3


def test_ops_jitter_on_the_cpu_is_refused_with_the_ops_fix(tmp_path: Path) -> None:
    path = write(tmp_path, "jitter", OPS_JITTER_CPU)
    with pytest.raises(ImportRefused) as refused:
        import_graph(path, run_file=True)
    said = str(refused.value)
    assert "ops.Jitter at line 18 of" in said and "(`images = self.jitter(images)`)" in said
    # an ops object runs on the device it is made with: moving its input alone is no fix
    assert 'make it with ops.Jitter(device="gpu", ...) and call it on images.gpu()' in said
    assert "fn.jitter" not in said
    # DALI itself refuses it, on any machine: it has no CPU jitter
    with pytest.raises(RuntimeError, match='Operator "Jitter" not registered for cpu'):
        runpy.run_path(str(path))["pipe"].build()


def test_the_ops_gpu_path_imports_on_the_gpu(tmp_path: Path) -> None:
    graph = import_graph(write(tmp_path, "jitter_gpu", OPS_JITTER_GPU), run_file=True)
    devices = {node.op: node.device for node in graph.operators()}
    assert devices == {"decoders.image": "mixed", "resize": "gpu", "jitter": "gpu", "copy": "gpu"}
    assert list(graph.outputs) == ["images", "labels"]
    if not has_gpu():  # checked, the graph says where it cannot run
        with pytest.raises(GraphInvalid, match="jitter runs only on a GPU"):
            validate(graph)


# ---- boxes and crops said as the ops code names them ------------------------------------------


def said_of(path: Path) -> tuple[GraphSpec, dict[type[Warning], list[str]]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        graph = import_graph(path, run_file=True)
    said: dict[type[Warning], list[str]] = {}
    for warning in caught:
        said.setdefault(warning.category, []).append(str(warning.message))
    return graph, said


def test_an_ops_pipelines_boxes_and_crop_search_are_said_as_its_code_names_them(
    tmp_path: Path,
) -> None:
    path = write(tmp_path, "ops_boxes", OPS_BOXES_AS_WRITTEN)
    _graph, said = said_of(path)
    (flipped,) = said[BoxFormatMismatch]
    assert flipped.startswith(f"ops.BbFlip at line 27 of {path} in define_graph() (`bboxes = ")
    assert "but ops.COCOReader at line 23 gives them as x, y, width, height" in flipped
    assert "(fix: ltrb=True on ops.COCOReader, or ltrb=False on ops.BbFlip)" in flipped
    (endless,) = said[EndlessCropSearch]
    assert endless.startswith(f"ops.RandomBBoxCrop at line 25 of {path}")
    # its settings go where the object is made, not to its call in define_graph
    assert "(fix, where ops.RandomBBoxCrop(...) is made: set total_num_attempts=100" in endless
    assert "fn." not in flipped + endless


def test_an_ops_pipelines_boxes_in_another_layout_run_as_dali_runs_them(tmp_path: Path) -> None:
    # bounded, the search ends: DALI runs the flip without an error, boxes off their objects,
    # and the graph gives the same boxes
    bounded = OPS_BOXES_AS_WRITTEN.replace(
        "allow_no_crop=False)", "allow_no_crop=False, total_num_attempts=10)"
    )
    path = write(tmp_path, "ops_boxes_bounded", bounded)
    graph, said = said_of(path)
    assert EndlessCropSearch not in said and len(said[BoxFormatMismatch]) == 1
    original = original_batches(path)
    result = Session(graph, device_id=None).run()
    for index, ref in enumerate(graph.outputs.values()):
        got = result.arrays(ref)
        for x, y in zip(got, original[0][index], strict=True):
            np.testing.assert_array_equal(x, y, err_msg=f"output {index}")
