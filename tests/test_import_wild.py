"""DALI code from training repositories imports as written: each file's pipeline comes back as
a graph that runs, in a Session and from its exported module, to the arrays the file's own
pipeline gives (two batches, the same seeds); the exported module reads back as the same graph;
what cannot be imported is refused naming the call as the code wrote it."""

from __future__ import annotations

import runpy
import textwrap
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from exported_runner import run_exported
from pipelines_wild import DLE_RESNET_GPU, FEED_INPUT, MXNET, ROUND_TRIPS, TFRECORD
from wild_round_trips import (
    assert_module_gives_the_files_batches,
    assert_same,
    assert_session_gives_the_files_batches,
    first_batches,
    round_trips,
)

from augexplorer import Session
from augexplorer.data import samples_dir
from augexplorer.export import export
from augexplorer.export.importer import import_graph
from augexplorer.export.serialized import ImportRefused
from augexplorer.spec import GraphSpec, Node

# the old names are what these files are about: DALI's warnings of them are expected here
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning:nvidia.dali.*")
ANNOTATIONS = samples_dir().parent / "annotations.json"


def write(folder: Path, name: str, template: str) -> Path:
    path = folder / f"{name}.py"
    path.write_text(template.format(root=str(samples_dir()), annotations=str(ANNOTATIONS)))
    return path


def original_batches(path: Path) -> list[list[list[np.ndarray]]]:
    """What the file's pipeline gives, batch by batch, output by output, on the CPU (the files
    build theirs for GPU 0, with CPU operators)."""
    pipe = runpy.run_path(str(path))["pipe"]
    pipe._device_id = None
    return first_batches(pipe)


@pytest.fixture(scope="module")
def wild(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Each file's round trip (tests/wild_round_trips.py)."""
    folder = tmp_path_factory.mktemp("wild")
    return round_trips(folder, ROUND_TRIPS, write, original_batches)


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


def expressions(graph: GraphSpec) -> list[str]:
    return [n.args["expression"] for n in graph.operators() if n.op == "expression"]


def test_a_mux_on_a_coin_cast_to_bool_reads_as_written(wild: dict[str, Any]) -> None:
    # `condition ^ True` keeps its True (DALI types it bool: a 1 would make the mix int32)
    _original, graph, _back, _caught = wild["solo_pretrain"]
    texts = expressions(graph)
    assert "cast_4 * color_twist + (cast_4 ^ True) * random_resized_crop" in texts
    assert any("(True ^ compare)" in text for text in texts)
    assert "uniform_5 * 1.9 + 0.1" in texts  # the blur's sigma


def test_a_scalar_resize_size_runs_as_dali_broadcasts_it(wild: dict[str, Any]) -> None:
    # `fn.resize(size=48)` serializes as [48.0]: one value DALI applies to both axes
    _original, graph, _back, _caught = wild["fn_resnet_validation"]
    resize = graph.node("resize")
    assert isinstance(resize, Node) and resize.args["size"] == [48.0]


def test_readers_and_hints_of_the_training_repositories_are_kept(wild: dict[str, Any]) -> None:
    _original, graph, _back, _caught = wild["dle_resnet_ops"]
    reader = graph.sources()[0]
    assert reader.id == "Reader" and reader.shuffle
    assert reader.reader_args == {"pad_last_batch": True, "shard_id": 0, "num_shards": 1}
    _original, listed, _back, _caught = wild["solo_linear"]
    reader = listed.sources()[0]
    assert reader.kind == "file_list"  # files= of Path objects, written as a list
    assert reader.reader_args["shuffle_after_epoch"] is True
    _original, ssd, _back, _caught = wild["dle_ssd"]
    assert ssd.sources()[0].kind == "coco"
    normalize = ssd.node("crop_mirror_normalize")
    assert isinstance(normalize, Node) and normalize.args["dtype"] == "FLOAT16"
    encoder = ssd.node("box_encoder")
    assert isinstance(encoder, Node) and len(encoder.args["anchors"]) == 8732 * 4


def test_the_gpu_path_keeps_its_devices_and_decoder_hints(tmp_path: Path) -> None:
    path = write(tmp_path, "dle_resnet_gpu", DLE_RESNET_GPU)
    graph = import_graph(path, run_file=True)
    devices = {node.op: node.device for node in graph.operators()}
    assert devices["decoders.image"] == "mixed"
    assert devices["random_resized_crop"] == devices["crop_mirror_normalize"] == "gpu"
    decoder = graph.node("image")
    assert isinstance(decoder, Node)
    assert decoder.args["device_memory_padding"] == 211025920
    assert decoder.args["host_memory_padding"] == 140544512
    module = export(graph, tmp_path / "gpu_aug.py")
    assert import_graph(module) == graph


# each template, what its refusal names and the code of the line it points at
REFUSED = {
    "feed_input": (
        FEED_INPUT,
        "ops.ExternalSource (data fed by feed_input or a source= callback)",
        "self.jpegs = self.input()",
    ),
    "mxnet": (
        MXNET,
        "ops.MXNetReader (now fn.readers.mxnet, a reader of a format",
        'self.jpegs, self.labels = self.input(name="Reader")',
    ),
    "tfrecord": (
        TFRECORD,
        "ops.TFRecordReader (now fn.readers.tfrecord, a reader of a format",
        'inputs = self.input(name="Reader")',
    ),
    # DALI records this Python-side class under nvidia.dali.ops alone, as readers._tfrecord
    "readers_tfrecord": (
        TFRECORD.replace("dali.ops.TFRecordReader(", "dali.ops.readers.TFRecord("),
        "ops.readers.TFRecord (now fn.readers.tfrecord, a reader of a format",
        'inputs = self.input(name="Reader")',
    ),
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_what_cannot_come_in_is_named_as_the_code_wrote_it(tmp_path: Path, case: str) -> None:
    template, named, code = REFUSED[case]
    path = write(tmp_path, case, template)
    line = next(i for i, text in enumerate(path.read_text().splitlines(), 1) if code in text)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ImportRefused) as refused:
            import_graph(path, run_file=True)
    message = str(refused.value)
    assert message.startswith(f"{path}: {named}"), message
    assert f"at line {line} of {path} in define_graph() (`{code}`)" in message, message
    assert "fix: " in message and str(path) in message


# ---- the command line's --param, as training scripts' parameters take it -----------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("automatic_augmentation=None", None),
        ("dali_cpu=False", False),  # never the text 'False', which is true
        ("is_training=True", True),
        ("crop=(224, 224)", (224, 224)),
        ("name='val'", "val"),
        ("data_dir=/data/imagenet/train", "/data/imagenet/train"),
        ("device=cpu", "cpu"),
    ],
)
def test_params_take_python_literals(text: str, expected: Any) -> None:
    from augexplorer.export.code_pipelines import parse_param

    _name, value = parse_param(text)
    assert value == expected and type(value) is type(expected)


CONDITIONAL_TRAINING = """
from nvidia.dali import fn, types
from nvidia.dali.pipeline.experimental import pipeline_def


@pipeline_def(enable_conditionals=True)
def training_pipe(data_dir, image_size, automatic_augmentation, interpolation=types.INTERP_CUBIC,
                  dali_device="gpu"):
    jpegs, labels = fn.readers.file(name="Reader", file_root=data_dir, random_shuffle=True,
                                    pad_last_batch=True)
    decoder_device = "mixed" if dali_device == "gpu" else "cpu"
    images = fn.decoders.image_random_crop(jpegs, device=decoder_device, output_type=types.RGB)
    images = fn.resize(images, size=[image_size, image_size], interp_type=interpolation,
                       antialias=False)
    if automatic_augmentation is None:
        output = images
    elif automatic_augmentation == "flip":
        output = fn.flip(images, horizontal=fn.random.coin_flip(probability=0.5))
    else:
        raise ValueError(f"Automatic augmentation: {{automatic_augmentation!r}} is not supported")
    return fn.crop_mirror_normalize(output, dtype=types.FLOAT, output_layout="CHW"), labels
"""


def test_a_conditional_pipeline_takes_none_from_the_command_line(tmp_path: Path) -> None:
    # DeepLearningExamples' training_pipe: `automatic_augmentation is None` picks no policy
    from augexplorer.cli import main
    from augexplorer.spec import load

    path = write(tmp_path, "dali", CONDITIONAL_TRAINING)
    target = tmp_path / "graph.json"
    params = [f"data_dir={samples_dir()}", "image_size=32", "dali_device=cpu"]
    argv = ["import", str(path), "-o", str(target), "--run-file", "--param", "batch_size=2"]
    for param in [*params, "automatic_augmentation=None"]:
        argv += ["--param", param]
    assert main(argv) == 0
    graph = load(target)
    assert [n.op for n in graph.operators()] == [
        "decoders.image_random_crop",
        "resize",
        "crop_mirror_normalize",
    ]
    assert Session(graph, device_id=None).run().arrays(graph.outputs["images"])[0].shape == (
        3,
        32,
        32,
    )


def test_an_error_the_code_raises_under_conditionals_is_shown_with_its_line(
    tmp_path: Path,
) -> None:
    from augexplorer.export.code_pipelines import parse_param

    # a line more than the file above: DALI's conditionals cache their conversion by code
    # object, which compares equal across files, and name the first file's path
    path = write(tmp_path, "dali", "\n" + CONDITIONAL_TRAINING)
    params = {"data_dir": str(samples_dir()), "image_size": 32, "dali_device": "cpu"}
    params |= {
        "automatic_augmentation": "rand",
        "interpolation": parse_param("interpolation=types.INTERP_LINEAR")[1],
    }
    with pytest.raises(ImportRefused) as refused:
        import_graph(path, run_file=True, params=params)
    message = str(refused.value)
    # DALI's values as the code writes them, not <DALIInterpType.INTERP_LINEAR: 1>
    assert "interpolation=types.INTERP_LINEAR (set)" in message, message
    line = next(
        i for i, text in enumerate(path.read_text().splitlines(), 1) if "raise ValueError" in text
    )
    # the error itself and where it was raised, not DALI's "in user code:"
    assert (
        "ValueError: Automatic augmentation: 'rand' is not supported, "
        f"at line {line} of {path} (`raise ValueError(" in message
    ), message
    assert "in user code" not in message


def test_dali_0x_crop_cast_permute_is_named_with_what_to_write(tmp_path: Path) -> None:
    path = tmp_path / "old.py"
    path.write_text(
        "import nvidia.dali.ops as ops\n"
        "import nvidia.dali.types as types\n"
        "ccp = ops.CropCastPermute(device='gpu', crop=(224, 224), output_layout=types.NHWC)\n"
    )
    with pytest.raises(ImportRefused) as refused:
        import_graph(path, run_file=True)
    message = str(refused.value)
    assert "running it failed at line 3" in message
    assert (
        "fix: ops.CropCastPermute was removed from DALI; write ops.CropMirrorNormalize(crop=..., "
        'dtype=types.FLOAT, output_layout="CHW")' in message
    ), message


# A pipeline class given the script's argparse Namespace, built only in main().
ARGS_PIPELINE = """
import argparse

import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


class HybridPipe(Pipeline):
    def __init__(self, split, args=None):
        super(HybridPipe, self).__init__(args.batch_size, args.workers, 0, seed=12)
        self.input = ops.FileReader(file_root=args.data, random_shuffle=split == "train")
        self.decode = ops.ImageDecoder(device="cpu", output_type=types.RGB)
        self.res = ops.RandomResizedCrop(device="cpu", size=args.crop)

    def define_graph(self):
        jpegs, labels = self.input(name="Reader")
        return self.res(self.decode(jpegs)), labels


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default="/data/imagenet/train")
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--crop", type=int, default=224)
    HybridPipe("train", parser.parse_args()).build()


if __name__ == "__main__":
    main()
"""


# the half-built pipeline the refusal leaves is collected quietly (DALI's __del__ raised)
@pytest.mark.filterwarnings("error::pytest.PytestUnraisableExceptionWarning")
def test_a_pipeline_class_given_the_scripts_args_takes_them_as_params(tmp_path: Path) -> None:
    import argparse
    import gc

    path = write(tmp_path, "train", ARGS_PIPELINE)
    # without them: what to give, read from the attributes its code reads of `args`
    with pytest.raises(ImportRefused) as refused:
        import_graph(path, run_file=True, params={"split": "train"})
    message = str(refused.value)
    del refused
    gc.collect()
    assert (
        "(fix: give the attributes the code reads of 'args': --param args.batch_size=VALUE "
        "--param args.workers=VALUE --param args.data=VALUE --param args.crop=VALUE)"
    ) in message
    given = {"batch_size": 3, "workers": 1, "data": str(samples_dir()), "crop": 32}
    params = {"split": "train", **{f"args.{k}": v for k, v in given.items()}}
    graph = import_graph(path, run_file=True, params=params)
    assert graph.batch_size == 3 and graph.sources()[0].shuffle
    pipe = runpy.run_path(str(path))["HybridPipe"]("train", argparse.Namespace(**given))
    pipe._device_id = None
    pipe.build()
    want = [[np.array(out.at(i)) for i in range(len(out))] for out in pipe.run()]
    result = Session(graph, device_id=None).run()
    for index, ref in enumerate(result.plan.outputs.values()):
        assert_same(result.arrays(ref), want[index], f"output {index}")


def test_the_ssd_crop_of_the_whole_resized_image_leaves_no_box_behind(
    wild: dict[str, Any],
) -> None:
    # resize to 300x300, colour, crop_mirror_normalize(crop=(300, 300)): the crop is the whole
    # image, so the export's header carries no "annotations do not match" warning
    from augexplorer.export.annotations_note import left_behind

    _original, graph, _back, _caught = wild["dle_ssd"]
    assert left_behind(graph) == []
    # a crop smaller than the image does move the pixels: said, as before
    cropped = graph.set_arg("crop_mirror_normalize", "crop", [280.0, 300.0])
    assert left_behind(cropped) == [
        "the boxes no longer match the images after 'crop_mirror_normalize' (crop_mirror_normalize)"
    ]


def test_edited_in_the_engine_the_export_gives_what_the_session_shows(
    wild: dict[str, Any], tmp_path: Path
) -> None:
    # solo-learn's pretraining pipeline, edited where its user would tune it: the solarize
    # threshold and inversion (numbers of expressions holding True), a mux's probability and
    # the blur's window
    original, graph, _back, _caught = wild["solo_pretrain"]
    session = Session(graph, device_id=None)
    session.run()
    session.set_arg("compare", "c0", 100)
    session.set_arg("expr_5", "c0", 200)
    session.set_arg("coin_flip", "probability", 0.9)
    result = session.set_arg("gaussian_blur", "window_size", [5, 5])
    edited = session.spec
    assert edited.node("expr_5").args == {
        "expression": (
            "cast * (compare * (255 - expr_4) + (True ^ compare) * expr_4) + (cast ^ True) * expr_4"
        ),
        "c0": 200,
    }
    shown = [result.arrays(ref) for ref in result.plan.outputs.values()]
    assert any(not np.array_equal(x, y) for x, y in zip(shown[0], original[0][0], strict=True)), (
        "the edits changed nothing"
    )
    module = export(edited, tmp_path / "edited_aug.py")
    assert import_graph(module) == edited
    job = {
        "name": "edited",
        "module": str(module),
        "out": str(tmp_path / "edited.npz"),
        "batch_size": len(shown[0]),
        "device": "cpu",
    }
    saved = run_exported([job], tmp_path)["edited"]
    for index, want in enumerate(shown):
        got = [saved[f"{index}_{i}"] for i in range(len(want))]
        assert_same(got, want, f"edited output {index}")


# A @pipeline_def made inside the iterator's call at the file's top level (no name holds it),
# for GPU 0 with a mixed decoder.
ITERATOR_AT_TOP_LEVEL = """
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali.pipeline import pipeline_def
from nvidia.dali.plugin.pytorch import DALIGenericIterator

images_dir = "/data/imagenet/train"


@pipeline_def(num_threads=4, device_id=0)
def get_dali_pipeline(images_dir):
    images, labels = fn.readers.file(file_root=images_dir, random_shuffle=True, name="Reader")
    images = fn.decoders.image_random_crop(images, device="mixed", output_type=types.RGB)
    images = fn.resize(images, resize_x=64, resize_y=64)
    images = fn.crop_mirror_normalize(images, crop_h=56, crop_w=56,
                                      mean=[0.485 * 255, 0.456 * 255, 0.406 * 255],
                                      std=[0.229 * 255, 0.224 * 255, 0.225 * 255],
                                      mirror=fn.random.coin_flip())
    return images, labels


train_data = DALIGenericIterator(
    [get_dali_pipeline(images_dir=images_dir, batch_size=16)],
    ["data", "label"],
    reader_name="Reader",
)
"""


def test_a_pipeline_made_inside_the_iterators_call_is_built_from_its_definition(
    tmp_path: Path,
) -> None:
    from augexplorer.devices import has_gpu
    from augexplorer.export.script_run import StoppedForGpu

    path = write(tmp_path, "loader", ITERATOR_AT_TOP_LEVEL)
    params = {"images_dir": str(samples_dir()), "batch_size": 16}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        graph = import_graph(path, run_file=True, params=params)
    stopped = [w for w in caught if issubclass(w.category, StoppedForGpu)]
    if not has_gpu():  # the file stopped where the iterator built it: said, and read anyway
        line = next(
            i
            for i, text in enumerate(path.read_text().splitlines(), 1)
            if text.startswith("train_data = ")
        )
        assert len(stopped) == 1 and f"stopped at line {line} " in str(stopped[0].message)
    assert graph.batch_size == 16 and graph.sources()[0].id == "Reader"
    assert [(n.op, n.device) for n in graph.operators()] == [
        ("decoders.image_random_crop", "mixed"),
        ("resize", "gpu"),  # where DALI placed them: after the mixed decoder
        ("random.coin_flip", None),
        ("crop_mirror_normalize", "gpu"),
    ]


def test_a_pipeline_in_debug_mode_is_refused_with_what_to_change(tmp_path: Path) -> None:
    path = tmp_path / "debugged.py"
    path.write_text(
        textwrap.dedent(
            f"""
            from nvidia.dali import fn
            from nvidia.dali.pipeline.experimental import pipeline_def

            @pipeline_def(batch_size=2, num_threads=1, device_id=None, debug=True)
            def debugged():
                jpegs, labels = fn.readers.file(file_root={str(samples_dir())!r})
                return fn.decoders.image(jpegs), labels

            pipe = debugged()
            """
        )
    )
    with pytest.raises(ImportRefused) as refused:
        import_graph(path, run_file=True)
    message = str(refused.value)
    # not DALI's "Using `with` statement is not supported"
    assert "pipeline 'debugged' runs in DALI's debug mode (debug=True)" in message
    assert "fix: build it with debug=False" in message and "`with`" not in message
    path.write_text(path.read_text().replace("debug=True", "debug=False"))
    assert [n.op for n in import_graph(path, run_file=True).operators()] == ["decoders.image"]


def test_decoder_arguments_dali_ignores_are_left_out_and_said(tmp_path: Path) -> None:
    # older training scripts still pass nvJPEG's split_stages and use_chunk_allocator
    from nvidia.dali import fn, pipeline_def, types

    from augexplorer.export.alias_import import ArgumentLeftOut
    from augexplorer.export.importer import import_pipeline

    @pipeline_def(batch_size=2, num_threads=1, device_id=None, seed=4)
    def old_decoder() -> Any:
        jpegs, labels = fn.readers.file(file_root=str(samples_dir()), random_shuffle=True)
        images = fn.decoders.image_random_crop(
            jpegs, output_type=types.RGB, split_stages=True, use_chunk_allocator=False
        )
        return fn.resize(images, size=[24, 24]), labels

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        graph = import_pipeline(old_decoder())
    said = [str(w.message) for w in caught if issubclass(w.category, ArgumentLeftOut)]
    assert len(said) == 2 and said[0].startswith("split_stages= of fn.decoders.image_random_crop")
    assert "DALI deprecates it and ignores it, so no image changes" in said[0]
    decoder = graph.node("image_random_crop")
    assert isinstance(decoder, Node) and decoder.args == {"output_type": "RGB"}
    pipe = old_decoder()
    pipe.build()
    want = [[np.array(out.at(i)) for i in range(len(out))] for out in pipe.run()]
    result = Session(graph, device_id=None).run()
    for index, ref in enumerate(result.plan.outputs.values()):
        assert_same(result.arrays(ref), want[index], f"output {index}")


def test_a_coco_reader_with_dalis_old_masks_is_refused_with_polygon_masks() -> None:
    from nvidia.dali import fn, pipeline_def

    from augexplorer.export.importer import import_pipeline

    @pipeline_def(batch_size=2, num_threads=1, device_id=None, seed=1)
    def old_masks() -> Any:
        jpegs, boxes, labels, polygons, vertices = fn.readers.coco(
            file_root=str(samples_dir()), annotations_file=str(ANNOTATIONS), masks=True
        )
        return fn.decoders.image(jpegs), boxes, labels, polygons, vertices

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ImportRefused) as refused:
            import_pipeline(old_masks())
    message = str(refused.value)  # never an IndexError of the outputs it did not count
    assert "readers.coco(masks=True), the polygon form DALI deprecates" in message
    assert "(fix: polygon_masks=True" in message
