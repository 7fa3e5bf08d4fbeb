"""Older and GPU DALI code imports as written: the ops API, every alias DALI still accepts,
readers given lists built in Python, shapes with a type, policy calls written with the
pipeline's parameters, DALI names given as --param, and GPU pipelines on a machine without a
GPU (kept as written, run on the CPU here and said so once). Each imported graph runs in a
Session to the original pipeline's outputs where the original can run here."""

from __future__ import annotations

import json
import re
import runpy
import shutil
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from exported_runner import run_exported
from pipeline_files import run_once
from pipelines_legacy import (
    COCO_IMAGES_IN_CODE,
    EFFICIENTNET,
    FILES_IN_CODE,
    FN_ALIASES,
    OPS_RESNET,
    OPS_SSD,
    OPS_SSD_RANDOM_CROP,
    RESNET_GPU,
)

from augexplorer import Session
from augexplorer.catalog import load_catalog
from augexplorer.catalog.aliases import alias_markdown, alias_table, operator_aliases
from augexplorer.cli import main
from augexplorer.data import samples_dir
from augexplorer.devices import GpuNodesOnCpu, has_gpu
from augexplorer.export import export
from augexplorer.export.code_pipelines import parse_param
from augexplorer.export.derived_seeds import DrawsDiffer
from augexplorer.export.importer import import_graph
from augexplorer.export.inline_lists import InlineListRefused, list_text
from augexplorer.export.serialized import ImportRefused
from augexplorer.spec import GraphSpec, Node, Ref, load
from augexplorer.validate import validate

# the old names are what these files are about: DALI's warnings of them are expected here
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning:nvidia.dali.*")
ROOT = Path(__file__).resolve().parent.parent
ANNOTATIONS = samples_dir().parent / "annotations.json"
no_gpu_only = pytest.mark.skipif(has_gpu(), reason="GPU nodes stand in on the CPU only without one")


def write(tmp_path: Path, name: str, template: str) -> Path:
    path = tmp_path / name
    path.write_text(template.format(root=str(samples_dir()), annotations=str(ANNOTATIONS)))
    return path


def built(path: Path, name: str = "pipe") -> Any:
    """The pipeline the file builds, as it runs on this machine: DALI's CPU-only mode where a
    file built it for GPU 0 and there is none (what DALI itself needs to run it here)."""
    pipe = runpy.run_path(str(path))[name]
    if not has_gpu():
        pipe._device_id = None
    return pipe


def session_batch(graph: GraphSpec) -> list[list[np.ndarray]]:
    result = Session(graph, device_id=None).run()
    return [result.arrays(ref) for ref in result.plan.outputs.values()]


def assert_same_batch(graph: GraphSpec, want: list[list[np.ndarray]]) -> None:
    got = session_batch(graph)
    assert len(got) == len(want)
    for index, (outputs, expected) in enumerate(zip(got, want, strict=True)):
        assert len(outputs) == len(expected), f"output {index}"
        for x, y in zip(outputs, expected, strict=True):
            assert x.dtype == y.dtype and x.shape == y.shape, f"output {index}"
            np.testing.assert_array_equal(x, y, err_msg=f"output {index}")


def ops_of(graph: GraphSpec) -> list[str]:
    return [node.op for node in graph.operators()]


# ---- the ops API --------------------------------------------------------------------------------


def test_an_ops_api_pipeline_subclass_imports_to_the_original_outputs(tmp_path: Path) -> None:
    source = write(tmp_path, "resnet_ops.py", OPS_RESNET)
    graph = import_graph(source, run_file=True)
    assert sorted(ops_of(graph)) == [
        "crop_mirror_normalize",
        "decoders.image_random_crop",
        "random.coin_flip",
        "random.uniform",
        "resize",
        "rotate",
    ]
    normalize = graph.node("crop_mirror_normalize")
    assert isinstance(normalize, Node)
    # output_dtype= is dtype=, types.NCHW the layout it names, image_type= (unused) dropped
    assert normalize.args["dtype"] == "FLOAT" and normalize.args["output_layout"] == "CHW"
    assert "image_type" not in normalize.args
    assert graph.batch_size == 4 and graph.name == "hybrid_train_pipe"  # the class's name
    assert_same_batch(graph, run_once(built(source)))


def test_the_ssd_example_with_a_coco_reader_imports_to_the_original_outputs(
    tmp_path: Path,
) -> None:
    source = write(tmp_path, "ssd_ops.py", OPS_SSD)
    graph = import_graph(source, run_file=True)
    assert graph.sources()[0].kind == "coco"
    assert {"decoders.image_slice", "random_bbox_crop", "color_twist", "bb_flip"} <= set(
        ops_of(graph)
    )
    resize = graph.node("resize")
    assert isinstance(resize, Node) and resize.args["min_filter"] == "INTERP_TRIANGULAR"
    assert_same_batch(graph, run_once(built(source)))


def test_a_deprecated_operator_that_is_no_alias_is_refused_with_its_replacement(
    tmp_path: Path,
) -> None:
    source = write(tmp_path, "old_crop.py", OPS_SSD_RANDOM_CROP)
    with pytest.raises(ImportRefused) as refused:
        import_graph(source, run_file=True)
    message = str(refused.value)
    # named as fn names it, at the user's line: never as fn.nvidia.dali.ops.<...>
    assert "fn.ssd_random_crop at line 17 of" in message and "nvidia.dali.ops" not in message
    assert "fn.random_bbox_crop" in message


# ---- aliases ----------------------------------------------------------------------------------


def test_fn_aliases_deprecated_arguments_and_typed_shapes_import_to_the_original_outputs(
    tmp_path: Path,
) -> None:
    source = write(tmp_path, "old_names.py", FN_ALIASES)
    graph = import_graph(source, run_file=True)
    ops = ops_of(graph)
    assert {"decoders.image_random_crop", "random.uniform", "random.coin_flip"} <= set(ops)
    assert {"random.normal", "cast"} <= set(ops)
    assert not any(op.startswith(("image_decoder", "uniform", "coin_flip", "shapes")) for op in ops)
    casts = [n for n in graph.operators() if n.op == "cast"]
    assert sorted(n.args["dtype"] for n in casts) == ["FLOAT", "INT32"]
    assert_same_batch(graph, run_once(built(source)))


def test_the_alias_table_is_read_from_dalis_schemas() -> None:
    aliases = operator_aliases()
    assert aliases["ImageDecoderRandomCrop"].new == "decoders__ImageRandomCrop"
    assert aliases["CoinFlip"].new == "random__CoinFlip" and aliases["CoinFlip"].same_interface
    assert not aliases["SSDRandomCrop"].same_interface  # other inputs: no alias
    rows = dict(alias_table())
    assert rows["fn.image_decoder_random_crop / ops.ImageDecoderRandomCrop"] == (
        "fn.decoders.image_random_crop"
    )
    assert rows["fn.crop_mirror_normalize(output_dtype=)"] == "dtype="
    assert rows["fn.shapes / ops.Shapes"] == "x.shape()"


def test_the_import_page_shows_the_generated_alias_table() -> None:
    page = (ROOT / "docs" / "importing.md").read_text(encoding="utf-8")
    assert alias_markdown() in page, "regenerate: python -m augexplorer.catalog.aliases"


# ---- lists built in Python ---------------------------------------------------------------------


def test_a_reader_given_lists_in_code_reads_a_file_list_written_beside_the_graph(
    tmp_path: Path,
) -> None:
    source = write(tmp_path, "listed.py", FILES_IN_CODE)
    target = tmp_path / "graph.json"
    argv = ["import", str(source), "-o", str(target), "--run-file", "--pipeline", "listed"]
    assert main(argv) == 0
    graph = load(target)
    reader = graph.sources()[0]
    assert reader.kind == "file_list" and reader.path == str(tmp_path / "graph.source.txt")
    lines = Path(reader.path).read_text().splitlines()
    namespace = runpy.run_path(str(source))
    assert len(lines) == len(namespace["files"])
    assert lines[0] == f"{namespace['files'][0]} {namespace['labels'][0]}"
    pipe = namespace["listed"](num_threads=1, device_id=None)
    assert_same_batch(graph, run_once(pipe))
    # importing it again writes the same list; a different one is not overwritten
    assert main([*argv, "--overwrite"]) == 0


def test_files_without_labels_are_numbered_as_dali_numbers_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    source = write(tmp_path, "listed.py", FILES_IN_CODE)
    graph = import_graph(source, run_file=True, pipeline="unlabelled")
    reader = graph.sources()[0]
    assert reader.kind == "file_list" and reader.file_root == str(samples_dir())
    assert Path(reader.path or "").parent == tmp_path / "cache" / "augexplorer" / "file_lists"
    assert [line.split()[1] for line in Path(reader.path or "").read_text().splitlines()] == [
        str(i) for i in range(6)
    ]
    pipe = runpy.run_path(str(source))["unlabelled"](num_threads=1, device_id=None)
    assert_same_batch(graph, run_once(pipe))


def test_a_listed_path_with_spaces_reads_its_image(tmp_path: Path) -> None:
    """A file list's labels are the integers that end a line, so "my photo.jpg 3" names
    ``my photo.jpg`` for the explorer and the exported loader alike, as for DALI."""
    root = tmp_path / "data"
    shutil.copytree(samples_dir(), root)
    first = sorted(root.glob("*/*.jpg"))[0]
    first.rename(first.with_name("my photo 1.jpg"))
    source = tmp_path / "spaces.py"
    source.write_text(FILES_IN_CODE.format(root=str(root)))
    graph = import_graph(source, run_file=True, pipeline="listed")
    listed = Path(graph.sources()[0].path or "").read_text().splitlines()
    assert any(line.startswith(str(first.with_name("my photo 1.jpg")) + " ") for line in listed)
    pipe = runpy.run_path(str(source))["listed"](num_threads=1, device_id=None)
    assert_same_batch(graph, run_once(pipe))


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("scan 2", "a name ending in a number after a space"),
        ("two\nlines.jpg", "a name with a line break"),
    ],
)
def test_a_listed_path_a_list_cannot_hold_is_refused_with_its_index(
    tmp_path: Path, name: str, why: str
) -> None:
    text = FILES_IN_CODE.replace("files = sorted(", f"files = [{name!r}] + sorted(")
    source = write(tmp_path, "unlistable.py", text)
    with pytest.raises(ImportRefused) as refused:
        import_graph(source, run_file=True, pipeline="listed")
    # the name as DALI reads it: from the working folder, where no file_root= is given
    named = re.escape(repr(name)[1:-1])
    assert re.search(rf"files\[0\] is '\S*{named}': {why}", str(refused.value))
    assert "fix: rename the file" in str(refused.value)


@pytest.mark.parametrize(
    ("name", "why"),
    [
        (" photo.jpg", "a name starting or ending with a space"),
        ("#1.jpg", "a name starting with #"),
        ("", "an empty name"),
    ],
)
def test_a_name_relative_to_file_root_a_list_cannot_hold_is_refused(name: str, why: str) -> None:
    with pytest.raises(InlineListRefused, match=f"files\\[1\\] is {re.escape(repr(name))}: {why}"):
        list_text(["fine.jpg", name], [0, 1])
    assert list_text(["my photo.jpg", "a\tb 2.jpg"], [0, 1]) == "my photo.jpg 0\na\tb 2.jpg 1\n"


def test_a_coco_reader_given_images_in_code_reads_a_coco_file_of_those(tmp_path: Path) -> None:
    source = write(tmp_path, "coco_listed.py", COCO_IMAGES_IN_CODE)
    target = tmp_path / "graph.json"
    assert main(["import", str(source), "-o", str(target), "--run-file"]) == 0
    reader = load(target).sources()[0]
    assert reader.kind == "coco" and reader.path == str(tmp_path / "graph.source.json")
    assert reader.file_root == str(samples_dir())
    chosen = runpy.run_path(str(source))["chosen"]
    written = json.loads(Path(reader.path).read_text())
    assert [image["file_name"] for image in written["images"]] == chosen
    pipe = runpy.run_path(str(source))["some_images"]()
    assert_same_batch(load(target), run_once(pipe))


# ---- parameters -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("interpolation=types.INTERP_TRIANGULAR", "INTERP_TRIANGULAR"),
        ("dtype=types.DALIDataType.FLOAT16", "FLOAT16"),
        ("layout=types.NCHW", "CHW"),
        ("kind=nvidia.dali.types.RGB", "RGB"),
    ],
)
def test_param_values_written_as_dali_names_are_dalis_values(text: str, expected: str) -> None:
    _name, value = parse_param(text)
    assert getattr(value, "name", value) == expected


def test_an_unknown_dali_name_in_a_param_is_named() -> None:
    with pytest.raises(ValueError, match=r"nvidia.dali.types has no INTERP_NOPE"):
        parse_param("interpolation=types.INTERP_NOPE")


def test_a_policy_called_with_the_pipelines_parameters_imports(tmp_path: Path) -> None:
    source = write(tmp_path, "efficientnet.py", EFFICIENTNET)
    target = tmp_path / "graph.json"
    params = {
        "data_dir": str(samples_dir()),
        "interpolation": "types.INTERP_TRIANGULAR",
        "image_size": "48",
        "automatic_augmentation": "autoaugment",
        "dali_device": "cpu",
    }
    argv = ["import", str(source), "-o", str(target), "--run-file"]
    for name, value in params.items():
        argv += ["--param", f"{name}={value}"]
    assert main(argv) == 0
    graph = load(target)
    policy = graph.node("auto_augment_image_net")
    assert isinstance(policy, Node) and policy.op == "auto_aug.auto_augment"
    assert policy.args == {"policy_name": "image_net", "shape": [48, 48]} and policy.seed is None
    resize = graph.node("resize")
    assert isinstance(resize, Node) and resize.args["interp_type"] == "INTERP_TRIANGULAR"
    # no seed anywhere: each run draws anew, so the batch is compared in kind, not in value
    from nvidia.dali import types

    original = runpy.run_path(str(source))["training_pipe"](
        data_dir=str(samples_dir()),
        interpolation=types.INTERP_TRIANGULAR,
        image_size=48,
        automatic_augmentation="autoaugment",
        dali_device="cpu",
        batch_size=graph.batch_size,
        num_threads=1,
        device_id=None,
    )
    want, got = run_once(original), session_batch(graph)
    assert [[(a.shape, a.dtype) for a in out] for out in got] == [
        [(a.shape, a.dtype) for a in out] for out in want
    ]


def test_a_policy_in_a_pipeline_the_file_builds_reads_the_values_of_its_call(
    tmp_path: Path,
) -> None:
    text = EFFICIENTNET + (
        "\n\npipe = training_pipe(data_dir={root!r}, interpolation=types.INTERP_LINEAR, "
        'image_size=40, automatic_augmentation="autoaugment", dali_device="cpu", '
        "batch_size=2, num_threads=1, device_id=None)\n"
    )
    source = write(tmp_path, "efficientnet_built.py", text)
    # built with no seed= (DALI draws anew each run): said, since the graph's seeds are fixed
    with pytest.warns(DrawsDiffer, match="gives no seed, so DALI draws anew each time it runs"):
        graph = import_graph(source, run_file=True)
    policy = graph.node("auto_augment_image_net")
    assert isinstance(policy, Node) and policy.args["shape"] == [40, 40]
    assert graph.name == "training_pipe" and graph.batch_size == 2


def test_a_policy_argument_the_reader_cannot_know_is_named(tmp_path: Path) -> None:
    # the parameter is assigned anew in the function: its value is not the one given
    text = EFFICIENTNET.replace(
        "    rng = fn.random.coin_flip(probability=0.5)\n",
        "    rng = fn.random.coin_flip(probability=0.5)\n    image_size = int(image_size)\n",
    )
    source = write(tmp_path, "efficientnet.py", text)
    params = {"data_dir": str(samples_dir()), "interpolation": 1, "image_size": 48}
    params |= {"automatic_augmentation": "autoaugment", "dali_device": "cpu"}
    with pytest.raises(ImportRefused) as refused:
        import_graph(source, run_file=True, params=params)
    message = str(refused.value)
    assert "auto_augment_image_net` at line 27" in message
    assert "shape=[image_size, image_size] is not written as a constant or with the " in message
    assert "the file changed since" not in message


# ---- GPU pipelines on a machine without a GPU ------------------------------------------------------

RESNET_PARAMS = ["data_dir={root}", "crop=64", "size=72", "shard_id=0", "num_shards=1"]


def import_resnet(tmp_path: Path, *, dali_cpu: bool = False) -> tuple[Path, GraphSpec]:
    source = write(tmp_path, "resnet.py", RESNET_GPU)
    target = tmp_path / "resnet.json"
    argv = ["import", str(source), "-o", str(target), "--run-file", "--param", "batch_size=4"]
    for param in [*RESNET_PARAMS, f"dali_cpu={json.dumps(dali_cpu)}"]:
        argv += ["--param", param.format(root=samples_dir())]
    assert main(argv) == 0
    return source, load(target)


def cpu_copy_of(source: Path) -> Any:
    """The original pipeline as it can run here: its CPU option on and its `.gpu()` transfers
    left out (the only edits; its operators, arguments and seeds are the file's)."""
    text = source.read_text().replace(".gpu()", "")
    copy = source.with_name("resnet_on_cpu.py")
    copy.write_text(text)
    return runpy.run_path(str(copy))["create_dali_pipeline"](
        data_dir=str(samples_dir()), crop=64, size=72, shard_id=0, num_shards=1,
        dali_cpu=True, batch_size=4, num_threads=1, device_id=None,
    )  # fmt: skip


@no_gpu_only
def test_the_resnet_training_example_keeps_its_devices_and_runs_here(tmp_path: Path) -> None:
    source, graph = import_resnet(tmp_path)
    devices = {node.op: node.device for node in graph.operators()}
    assert devices == {
        "decoders.image_random_crop": "mixed",
        "resize": "gpu",
        "random.coin_flip": None,
        "crop_mirror_normalize": "gpu",
        "copy": "gpu",  # labels.gpu(): the reader's labels moved to the GPU
    }
    assert graph.outputs["labels"] == Ref("labels_to_gpu")
    with pytest.warns(GpuNodesOnCpu) as said:
        session = Session(graph, device_id=None)
    assert len(said) == 1
    note = str(said[0].message)
    assert "image_random_crop (mixed), resize (gpu), crop_mirror_normalize (gpu)" in note
    assert "labels_to_gpu (gpu)" in note
    assert "decoder" in note and "nvJPEG" in note
    with warnings.catch_warnings():
        warnings.simplefilter("error", GpuNodesOnCpu)  # said once: an edit does not repeat it
        session.set_arg("resize", "resize_x", 72.0)
        session.set_arg("resize", "resize_x", 64.0)
    assert session.spec.node("resize").device == "gpu"  # type: ignore[union-attr]
    with pytest.warns(GpuNodesOnCpu):
        assert_same_batch(graph, run_once(cpu_copy_of(source)))
    # the export keeps them: a mixed decoder and GPU operators where device="gpu" is asked
    module = export(graph, tmp_path / "resnet_aug.py").read_text()
    assert 'decoder_device = "mixed" if device == "gpu" else "cpu"' in module
    assert re.search(r"fn\.resize\([^)]*device=device", module)


@no_gpu_only
def test_cpu_operators_before_gpu_transfers_stay_there_in_the_graph_and_the_export(
    tmp_path: Path,
) -> None:
    # dali_cpu=True: decoding and resizing on the CPU, then images.gpu() and labels.gpu()
    source, graph = import_resnet(tmp_path, dali_cpu=True)
    moved = {node.id: node for node in graph.operators() if node.op == "copy"}
    assert set(moved) == {"resize_to_gpu", "labels_to_gpu"}
    assert moved["resize_to_gpu"].inputs == (Ref("resize"),)
    assert moved["labels_to_gpu"].inputs == (Ref("Reader", 1),)
    assert all(node.device == "gpu" for node in moved.values())
    normalize = graph.node("crop_mirror_normalize")
    assert isinstance(normalize, Node) and normalize.inputs == (Ref("resize_to_gpu"),)
    assert graph.outputs == {"images": Ref("crop_mirror_normalize"), "labels": Ref("labels_to_gpu")}
    # the node the code moved from is kept on the CPU, and so everything before it: on a GPU
    # the data moves where the code moves it, not at the decoder
    assert graph.node("resize").device == "cpu"  # type: ignore[union-attr]
    on_gpu = {step.id: step.device for step in validate(graph, load_catalog(gpu=True)).steps}
    assert on_gpu == {
        "Reader": "cpu",
        "image_random_crop": "cpu",
        "resize": "cpu",
        "coin_flip": "cpu",
        "resize_to_gpu": "gpu",
        "crop_mirror_normalize": "gpu",
        "labels_to_gpu": "gpu",
    }
    # shown here, on the CPU, said once; the pixels and labels are the original's
    with pytest.warns(GpuNodesOnCpu) as said:
        assert_same_batch(graph, run_once(cpu_copy_of(source)))
    notes = [str(w.message) for w in said if w.category is GpuNodesOnCpu]
    assert len(notes) == 1
    assert "resize_to_gpu (gpu), crop_mirror_normalize (gpu), labels_to_gpu (gpu)" in notes[0]
    # the export moves the data at the same points, and runs to the explorer's outputs
    module = export(graph, tmp_path / "resnet_cpu_aug.py")
    text = module.read_text()
    assert "resize_to_gpu = fn.copy(resize, device=device)" in text
    assert re.search(r"labels_to_gpu = fn.copy\(reader_labels, device=device\)", text)
    assert not re.search(r"fn\.resize\([^)]*device=", text)
    # and its docstring says so (not "the operators run on the GPU")
    placed = " ".join(text.split())
    assert (
        "on the GPU: resize_to_gpu, crop_mirror_normalize, labels_to_gpu; on the CPU, as the "
        "graph places them: Reader, image_random_crop, resize, coin_flip."
    ) in placed
    job = {"name": "resnet", "module": str(module), "out": str(tmp_path / "resnet.npz")}
    job |= {"batch_size": graph.batch_size, "device": "cpu", "arrays": None, "data": None}
    exported = run_exported([job], tmp_path)["resnet"]
    with pytest.warns(GpuNodesOnCpu):
        live = session_batch(graph)
    for index, arrays in enumerate(live):
        for sample, expected in enumerate(arrays):
            np.testing.assert_array_equal(exported[f"{index}_{sample}"], expected)


@no_gpu_only
def test_render_stats_and_profile_run_a_gpu_graph_here_with_one_note(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import_resnet(tmp_path)
    capsys.readouterr()
    spec = tmp_path / "resnet.json"
    commands = [
        ["render", str(spec), "-o", str(tmp_path / "grid.png")],
        ["stats", str(spec), "--batches", "1", "--json", str(tmp_path / "stats.json")],
        ["profile", str(spec), "--repeats", "1", "--warmup", "0"],
    ]
    for argv in commands:
        assert main(argv) == 0, argv
        error = capsys.readouterr().err
        assert error.count("note: this machine has no GPU") == 1, argv
        assert "Traceback" not in error and "Warning" not in error
    assert (tmp_path / "grid.png").exists()
    assert json.loads((tmp_path / "stats.json").read_text())
    # asked for, the GPU is refused rather than stood in for
    for argv in (
        ["render", str(spec), "-o", str(tmp_path / "g2.png"), "--device", "gpu"],
        ["profile", str(spec), "--repeats", "1", "--device", "gpu"],
    ):
        assert main(argv) == 2
        assert "needs a GPU" in capsys.readouterr().err
    # and --device cpu puts every node there, with nothing to say
    assert main(["render", str(spec), "-o", str(tmp_path / "g3.png"), "--device", "cpu"]) == 0
    assert "note:" not in capsys.readouterr().err


@no_gpu_only
def test_the_panel_shows_an_imported_gpu_graph_and_keeps_its_devices(tmp_path: Path) -> None:
    from augexplorer_widgets import Explorer

    _source, graph = import_resnet(tmp_path)
    with pytest.warns(GpuNodesOnCpu):
        explorer = Explorer(graph, autosave=False)
    explorer.select("image_random_crop")
    device = explorer.node_panel.device
    assert device.value == "mixed" and device.label == "mixed (on the CPU here)"
    explorer.select("resize")
    assert explorer.node_panel.device.value == "gpu"
    kept = explorer.controller.session.spec.node("image_random_crop")
    assert isinstance(kept, Node) and kept.device == "mixed"


TRANSFERS_AND_CONDITIONS = """
from nvidia.dali import fn, pipeline_def, types


@pipeline_def(enable_conditionals=True, batch_size=4, num_threads=1, device_id=None, seed=3)
def after_the_if():
    jpegs, labels = fn.readers.file(file_root={root!r}, seed=1)
    images = fn.resize(fn.decoders.image(jpegs, output_type=types.RGB), size=[64, 64])
    if fn.random.coin_flip(seed=5):
        images = fn.flip(images)
    return fn.crop_mirror_normalize(images.gpu(), dtype=types.FLOAT), labels


@pipeline_def(enable_conditionals=True, batch_size=4, num_threads=1, device_id=None, seed=3)
def inside_the_if():
    jpegs, labels = fn.readers.file(file_root={root!r}, seed=1)
    images = fn.resize(fn.decoders.image(jpegs, output_type=types.RGB), size=[64, 64])
    if fn.random.coin_flip(seed=5):
        images = fn.flip(images.gpu(), device="gpu")
    else:  # both branches give GPU data
        images = images.gpu()
    return images, labels
"""


@no_gpu_only
def test_a_transfer_after_a_condition_is_kept_and_one_inside_it_is_not(tmp_path: Path) -> None:
    source = write(tmp_path, "conditions.py", TRANSFERS_AND_CONDITIONS)
    after = import_graph(source, run_file=True, pipeline="after_the_if")
    flip = after.node("flip")
    assert isinstance(flip, Node) and flip.probability is not None and flip.device == "cpu"
    moved = after.node("flip_to_gpu")
    assert isinstance(moved, Node) and moved.inputs == (Ref("flip"),) and moved.device == "gpu"
    # inside a branch the copy would need the branch's condition: the graph reads as before
    inside = import_graph(source, run_file=True, pipeline="inside_the_if")
    assert "copy" not in ops_of(inside)
    for graph in (after, inside):
        with pytest.warns(GpuNodesOnCpu):
            assert [len(out) for out in session_batch(graph)] == [4, 4]


@pytest.mark.gpu
def test_on_a_gpu_the_export_moves_data_where_the_code_does(tmp_path: Path) -> None:
    # dali_cpu=True: decoded and resized on the CPU, moved by the copies, normalised on the GPU
    _source, graph = import_resnet(tmp_path, dali_cpu=True)
    live = Session(graph, device_id=0).run()
    placed = {step.id: step.device for step in live.plan.steps if step.role == "node"}
    assert placed["image_random_crop"] == placed["resize"] == "cpu"
    assert placed["resize_to_gpu"] == placed["crop_mirror_normalize"] == "gpu"
    assert placed["labels_to_gpu"] == "gpu"
    module = export(graph, tmp_path / "resnet_gpu_aug.py")
    job = {"name": "resnet", "module": str(module), "out": str(tmp_path / "resnet.npz")}
    job |= {"batch_size": graph.batch_size, "device": "gpu"}
    exported = run_exported([job], tmp_path)["resnet"]
    for index, ref in enumerate(live.plan.outputs.values()):
        for sample, expected in enumerate(live.arrays(ref)):
            np.testing.assert_array_equal(exported[f"{index}_{sample}"], expected)


def test_a_pipeline_subclass_built_only_in_main_is_built_with_its_parameters(
    tmp_path: Path,
) -> None:
    """The ops examples often build their class only inside main(): the class itself is the
    pipeline the file offers, built with --param values for what its __init__ needs (batch
    size, threads and device filled in as for a @pipeline_def function)."""
    built_here = write(tmp_path, "resnet_ops.py", OPS_RESNET)
    only_main = tmp_path / "resnet_main.py"
    only_main.write_text(
        built_here.read_text().split("\npipe = ")[0]
        + "\n\ndef main():\n    pipe = HybridTrainPipe(32, 4, 0, '/data', 224)\n    pipe.build()\n"
    )
    with pytest.raises(ImportRefused) as refused:
        import_graph(only_main, run_file=True)
    said = str(refused.value)  # every missing one at once, and what the import sets itself
    assert "needs a value for its parameters 'data_dir', 'crop'" in said
    assert "batch_size=8 (set), num_threads=1 (set), device_id=0 (set)" in said
    assert "fix: --param data_dir=VALUE --param crop=VALUE" in said
    params = {"data_dir": str(samples_dir()), "crop": 64, "dali_cpu": True}
    # main() builds it at 32: at the batch size the import chose, the same files draw other
    # values, which is said with the fix
    with pytest.warns(DrawsDiffer, match=r"batch_size=8, which the import chose.*--param batch"):
        import_graph(only_main, run_file=True, params=params)
    with warnings.catch_warnings():
        warnings.simplefilter("error", DrawsDiffer)  # a batch size given: nothing to say
        graph = import_graph(only_main, run_file=True, params={**params, "batch_size": 4})
    assert graph.name == "hybrid_train_pipe" and graph.batch_size == 4
    assert graph == import_graph(built_here, run_file=True)
    assert_same_batch(graph, run_once(built(built_here)))


OPS_CASTS = """
from nvidia.dali.pipeline import Pipeline
import nvidia.dali.ops as ops
import nvidia.dali.types as types


class CastPipe(Pipeline):
    def __init__(self, batch_size, num_threads, device_id):
        super().__init__(batch_size, num_threads, device_id, seed=5)
        self.input = ops.FileReader(file_root="{root}", random_shuffle=False)
        self.decode = ops.ImageDecoder(device="cpu", output_type=types.RGB)
        self.resize = ops.Resize(resize_x=64, resize_y=64)
        self.coin = ops.CoinFlip(probability=0.5)
        self.to_float = ops.Cast(dtype=types.FLOAT)
        self.to_uint8 = ops.Cast(dtype=types.UINT8)
        self.to_int64 = ops.Cast(dtype=types.INT64)

    def define_graph(self):
        jpegs, labels = self.input()
        images = self.to_float(self.resize(self.decode(jpegs)))
        weight = self.to_float(self.coin())
        images = self.to_uint8(images * (1.0 - 0.5 * weight))
        return images, self.to_int64(labels)


pipe = CastPipe(4, 1, None)
"""


def test_casts_of_labels_and_draws_import_to_the_original_outputs(tmp_path: Path) -> None:
    """labels.cast(INT64) for PyTorch was imported, then refused by every run ("cast takes
    HWC/CHW/HW images; here there are labels")."""
    source = write(tmp_path, "casts.py", OPS_CASTS)
    graph = import_graph(source, run_file=True)
    labels = session_batch(graph)[1]
    assert labels[0].dtype == np.int64
    assert_same_batch(graph, run_once(built(source)))
    # the cast labels are still the labels: named so, and the exported loader hands them to
    # PyTorch as its losses take them, int64 of shape (N,) (they were "output_1", (N, 1))
    assert list(graph.outputs) == ["images", "labels"]
    module = export(graph, tmp_path / "casts_aug.py")
    job = {"name": "casts", "module": str(module), "out": str(tmp_path / "casts.npz")}
    job |= {"batch_size": 4, "device": "cpu", "loader": True, "data": str(samples_dir())}
    loader_labels = run_exported([job], tmp_path)["casts"]["loader_labels"]
    assert loader_labels.dtype == np.int64 and loader_labels.shape == (4,)


FN_LABELS_RESHAPED = """
from nvidia.dali import fn, pipeline_def, types


@pipeline_def(batch_size=4, num_threads=1, device_id=None, seed=3)
def reshaped():
    jpegs, labels = fn.readers.file(file_root="{root}", seed=5)
    images = fn.resize(fn.decoders.image(jpegs), resize_x=32, resize_y=32)
    scalars = fn.reshape(fn.cast(labels, dtype=types.INT64), shape=[])
    return images, scalars, fn.one_hot(labels, num_classes=5)


pipe = reshaped()
"""


def test_labels_reshaped_or_one_hot_keep_their_name(tmp_path: Path) -> None:
    """Labels reshaped to scalars for PyTorch (or one-hot, as MixUp takes them) were named
    output_1: the exported loader's batches had no "labels" for a training loop to read."""
    source = write(tmp_path, "reshaped.py", FN_LABELS_RESHAPED)
    graph = import_graph(source, run_file=True)
    assert list(graph.outputs) == ["images", "labels", "output_2"]
    assert_same_batch(graph, run_once(built(source)))


OPS_FILTERED = """
from nvidia.dali.pipeline import Pipeline
import nvidia.dali.ops as ops


class FilteredPipe(Pipeline):
    def __init__(self, batch_size, num_threads, device_id):
        super().__init__(batch_size, num_threads, device_id, seed=12)
        self.input = ops.readers.File(file_root="{root}", file_filters=["a*.jpg"])
        self.decode = ops.decoders.Image(device="cpu")

    def define_graph(self):
        jpegs, labels = self.input()
        return self.decode(jpegs), labels


pipe = FilteredPipe(2, 1, None)
"""


def test_a_folder_readers_file_filters_are_refused_not_ignored(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The explorer gives DALI the folder's files, and DALI applies file_filters only to a
    file_root it lists itself: the graph read every image where the original read some."""
    from augexplorer.errors import GraphInvalid

    source = write(tmp_path, "filtered.py", OPS_FILTERED)
    out = tmp_path / "filtered.json"
    assert main(["import", str(source), "--run-file", "-o", str(out)]) == 0
    said = capsys.readouterr().err
    assert "does not run here yet" in said and "'file_filters' is not applied to a folder" in said
    with pytest.raises(GraphInvalid, match=r"reader_args\.file_filters.*fix: read the files"):
        Session(load(out), device_id=None)


def test_a_hidden_folder_dalis_reader_counts_as_a_class_is_said_at_import(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """DALI's readers.file numbers '.ipynb_checkpoints' as class 0; the explorer and the
    exported module do not, so every label after it differs from the original pipeline's."""
    import shutil

    root = tmp_path / "photos"
    shutil.copytree(samples_dir(), root)
    (root / ".ipynb_checkpoints").mkdir()
    shutil.copy(next(samples_dir().glob("food/*.jpg")), root / ".ipynb_checkpoints")
    source = tmp_path / "plain.py"
    source.write_text(OPS_FILTERED.replace(', file_filters=["a*.jpg"]', "").format(root=root))
    assert main(["import", str(source), "--run-file", "-o", str(tmp_path / "plain.json")]) == 0
    notes = [line for line in capsys.readouterr().err.splitlines() if line.startswith("note:")]
    assert any(
        ".ipynb_checkpoints" in line and "DALI's own readers.file" in line for line in notes
    ), notes


OPS_CALLBACK = """
from nvidia.dali.pipeline import Pipeline
import nvidia.dali.ops as ops


class CallbackPipe(Pipeline):
    def __init__(self, batch_size, num_threads, device_id):
        super().__init__(batch_size, num_threads, device_id, seed=12, exec_async=False,
                         exec_pipelined=False)
        self.input = ops.FileReader(file_root="{root}")
        self.decode = ops.ImageDecoder(device="cpu")
        self.cutout = ops.PythonFunction(function=lambda image: image)

    def define_graph(self):
        jpegs, labels = self.input()
        return self.cutout(self.decode(jpegs)), labels


pipe = CallbackPipe(2, 1, None)
"""


def test_an_ops_python_function_is_refused_in_the_users_terms(tmp_path: Path) -> None:
    """DALI cannot serialize it, and its assert ("spec.GetSchema().IsSerializable()") was the
    whole message."""
    source = write(tmp_path, "callback.py", OPS_CALLBACK)
    with pytest.raises(ImportRefused) as refused:
        import_graph(source, run_file=True)
    said = str(refused.value)
    assert "ops.PythonFunction (a Python callback) at line 16 of" in said, said
    assert "IsSerializable" not in said and "fix: import the pipeline without it" in said


def test_an_operator_dali_removed_is_named_with_what_to_write(tmp_path: Path) -> None:
    source = tmp_path / "removed.py"
    source.write_text(
        "import nvidia.dali.ops as ops\n"
        "decode = ops.nvJPEGDecoder(device='mixed')\n"
        "normalize = ops.NormalizePermute()\n"
    )
    with pytest.raises(ImportRefused) as refused:
        import_graph(source, run_file=True)
    said = str(refused.value)
    assert "running it failed at line 2: AttributeError" in said
    assert (
        'fix: ops.nvJPEGDecoder was removed from DALI; write ops.decoders.Image(device="mixed")'
        in said
    )
