"""Every pipeline of the corpus imports, runs in a Session and exports to the original's arrays;
what cannot be imported is refused in the user's own terms."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from exported_runner import run_exported
from pipelines_corpus import BATCH, CORPUS, write_lists

from augexplorer import Session
from augexplorer.data import samples_dir
from augexplorer.export import export
from augexplorer.export.importer import import_graph, import_pipeline
from augexplorer.export.serialized import ImportRefused
from augexplorer.spec import GraphSpec

RUNS = 2


def build(name: str, lists: Path) -> Any:
    return CORPUS[name](
        str(samples_dir()), str(lists), batch_size=BATCH, num_threads=1, device_id=None
    )


def run_batches(pipe: Any, runs: int) -> list[list[list[np.ndarray]]]:
    pipe.build()
    return [
        [[np.array(out.at(i)) for i in range(len(out))] for out in pipe.run()] for _ in range(runs)
    ]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Each pipeline's original batches and imported graph, and what its exported module
    gave (all modules run in one fresh process)."""
    tmp = tmp_path_factory.mktemp("corpus")
    lists = tmp / "lists"
    write_lists(str(samples_dir()), str(lists))
    found: dict[str, Any] = {"lists": lists}
    jobs = []
    for name in CORPUS:
        graph = import_pipeline(build(name, lists), name=name)
        module = export(graph, tmp / f"{name}_aug.py")
        found[name] = (run_batches(build(name, lists), RUNS), graph)
        jobs.append(
            {
                "name": name,
                "module": str(module),
                "out": str(tmp / f"{name}.npz"),
                "batch_size": BATCH,
                "device": "cpu",
                "runs": RUNS,
            }
        )
    found["exported"] = run_exported(jobs, tmp)
    return found


def assert_same(got: list[np.ndarray], want: list[np.ndarray], what: str) -> None:
    assert len(got) == len(want) == BATCH, what
    for index, (x, y) in enumerate(zip(got, want, strict=True)):
        assert x.dtype == y.dtype and x.shape == y.shape, f"{what}, sample {index}"
        np.testing.assert_array_equal(x, y, err_msg=f"{what}, sample {index}")


@pytest.mark.parametrize("name", list(CORPUS))
def test_session_runs_the_original_batch(corpus: dict[str, Any], name: str) -> None:
    original, graph = corpus[name]
    session = Session(graph, device_id=None)
    result = session.run()
    refs = list(result.plan.outputs.values())
    assert len(refs) == len(original[0])
    for index, ref in enumerate(refs):
        assert_same(result.arrays(ref), original[0][index], f"{name} output {index}")
    # the next batch is the original's second: the reader's next files and the random
    # operators' next draws, conditional branches included
    second = session.next_batch()
    for index, ref in enumerate(refs):
        assert_same(second.arrays(ref), original[1][index], f"{name} batch 2 output {index}")


@pytest.mark.parametrize("name", list(CORPUS))
def test_exported_module_runs_the_original_batches(corpus: dict[str, Any], name: str) -> None:
    original, _graph = corpus[name]
    saved = corpus["exported"][name]
    for run, batches in enumerate(original):
        prefix = f"run{run}_" if run else ""
        for index, want in enumerate(batches):
            got = [saved[f"{prefix}{index}_{i}"] for i in range(BATCH)]
            assert_same(got, want, f"{name} batch {run + 1} output {index}")


def test_every_reader_argument_survives_import(corpus: dict[str, Any]) -> None:
    _original, graph = corpus["one_shard_of_two"]
    source = graph.sources()[0]
    assert (source.shuffle, source.seed) == (True, 17)
    assert source.reader_args == {
        "initial_fill": 5,
        "shard_id": 1,
        "num_shards": 2,
        "stick_to_shard": True,
        "pad_last_batch": True,
    }
    _original, listed = corpus["list_under_file_root"]
    source = listed.sources()[0]
    assert source.kind == "file_list" and source.file_root == str(samples_dir())


def test_reader_arguments_survive_json_and_edits(corpus: dict[str, Any]) -> None:
    from augexplorer.spec import Source
    from augexplorer.spec.io import dumps, loads

    _original, graph = corpus["getting_started"]
    assert loads(dumps(graph)) == graph
    edited = graph.set_reader_arg(graph.sources()[0].id, "initial_fill", 40)
    # the code set no pad_last_batch: the import keeps DALI's default, so the graph runs the
    # code's batches (past an epoch's end too)
    read = {"pad_last_batch": False, "initial_fill": 40}
    assert edited.sources()[0].reader_args == read
    # new data, same reading
    moved = edited.with_source(Source("elsewhere", "folder", str(samples_dir())))
    assert moved.sources()[0].reader_args == read


def _refusal(tmp_path: Path, body: str, conditionals: bool = False) -> str:
    source = tmp_path / "user_pipeline.py"
    source.write_text(
        textwrap.dedent(
            f"""
            import numpy as np
            from nvidia.dali import fn, pipeline_def, types
            from nvidia.dali.auto_aug import rand_augment

            @pipeline_def(batch_size=2, enable_conditionals={conditionals})
            def augment():
                jpegs, labels = fn.readers.file(file_root={str(samples_dir())!r})
                images = fn.decoders.image(jpegs)
            """
        )
        + textwrap.indent(textwrap.dedent(body).strip() + "\n", "    ")
        + "    return images, labels\n"
    )
    with pytest.raises(ImportRefused) as refused:
        import_graph(source, run_file=True)
    message = str(refused.value)
    assert "__" not in message and "Generic" not in message, message  # no DALI instance names
    assert "catalog of this DALI" not in message and "fix:" in message
    assert str(source) in message, message
    return message


REFUSALS = {
    "replaced_in_a_branch": (
        """
        mirrored = fn.flip(images)
        if fn.random.coin_flip():
            images = mirrored
        else:
            images = fn.rotate(images, angle=10.0)
        """,
        [
            "an if/else whose branches do not both continue one variable",
            "line 11",
            "if fn.random.coin_flip():",
            "first input",
        ],
    ),
    "auto_aug": (
        "strength = 9\nimages = rand_augment.rand_augment(images, n=2, m=strength)",
        [
            "auto_aug policy `rand_augment`",
            "line 11",
            "m=strength is not written as a constant",
            "import the .py file that calls it",
            "auto_aug.rand_augment node",
            "'dali_rand_augment' preset",
        ],
    ),
    "callback": (
        "images = fn.python_function(images, function=lambda x: x)",
        ["fn.python_function (a Python callback)", "line 10", "python_function node"],
    ),
    "fed_values": (
        "angle = fn.external_source(source=lambda: [np.float32(5.0)] * 2, batch=True)\n"
        "images = fn.rotate(images, angle=angle)",
        ["fn.external_source (values fed from Python", "line 10", "fn.random.uniform("],
    ),
    "another_reader": (
        "extra = fn.readers.numpy(file_root='.', files=['none.npy'])\n"
        "images = fn.cat(images, extra, axis=0)",
        [
            "fn.readers.numpy (a reader of a format the explorer does not read",
            "line 10",
            "read them with fn.readers.file",
        ],
    ),
    "external_source": (
        "extra = fn.external_source(source=lambda: [np.zeros((2, 2, 3), np.uint8)] * 2)\n"
        "images = fn.cat(images, extra, axis=0)",
        ["fn.external_source", "line 10", "file_root="],
    ),
}


@pytest.mark.parametrize("case", list(REFUSALS))
def test_refusals_name_the_construct_and_its_line(tmp_path: Path, case: str) -> None:
    body, expected = REFUSALS[case]
    conditionals = case in ("replaced_in_a_branch", "auto_aug")
    message = _refusal(tmp_path, body, conditionals)
    for text in expected:
        assert text in message, f"{text!r} not in {message!r}"


def test_file_list_with_file_root_reads_from_the_root(tmp_path: Path) -> None:
    from augexplorer.data import open_source
    from augexplorer.errors import DataError
    from augexplorer.spec import Source

    lists = tmp_path / "lists"
    write_lists(str(samples_dir()), str(lists))
    listed = Source("source", "file_list", str(lists / "list.txt"), file_root=str(samples_dir()))
    data = open_source(listed)
    assert all(file.startswith(str(samples_dir())) for file in data.files)
    # the same list without its file_root: the error says where entries were read from
    with pytest.raises(DataError) as missing:
        open_source(Source("source", "file_list", str(lists / "list.txt")))
    assert f"read from the list's folder {lists}" in str(missing.value)
    assert "set the source's file_root" in str(missing.value)


def test_reader_arguments_are_validated(corpus: dict[str, Any]) -> None:
    from augexplorer.errors import GraphInvalid
    from augexplorer.validate import validate

    _original, graph = corpus["getting_started"]
    source = graph.sources()[0].id
    bad: GraphSpec = graph.set_reader_arg(source, "initial_fil", 3)
    bad = bad.set_reader_arg(source, "random_shuffle", False)
    bad = bad.set_reader_arg(source, "prefetch_queue_depth", "deep")
    with pytest.raises(GraphInvalid) as invalid:
        validate(bad)
    text = str(invalid.value)
    assert "no argument 'initial_fil'" in text and "'initial_fill'" in text
    assert "source's shuffle" in text
    assert "reader_args.prefetch_queue_depth" in text and "expected a number" in text


def test_conditionals_import_as_node_conditions(corpus: dict[str, Any]) -> None:
    from augexplorer.spec import Node

    def conditions(name: str) -> dict[str, list[str]]:
        graph = corpus[name][1]
        return {
            node.id: [clause.describe() for clause in node.when]
            for node in graph.nodes
            if isinstance(node, Node) and node.when
        }

    # if / elif (two operators) / else: one chain, the elif's comparison stays an expression
    assert conditions("by_the_angle_sign") == {
        "flip": ["coin_flip"],
        "rotate": ["not coin_flip", "compare"],
        "brightness": ["not coin_flip", "compare"],
        "flip_2": ["not coin_flip", "not compare"],
    }
    assert conditions("nested_ifs") == {
        "flip": ["coin_flip"],
        "rotate": ["coin_flip", "coin_flip_2"],
        "hsv": ["coin_flip", "not coin_flip_2"],
    }
    # `if coin_flip(p): x = op(x)` alone stays an apply probability with the flip's seed
    graph = corpus["inverted_sometimes"][1]
    applied = [n for n in graph.nodes if isinstance(n, Node) and n.probability is not None]
    assert [(n.probability.p, n.probability.seed) for n in applied] == [(0.5, 7)]
    assert not any(n.op == "random.coin_flip" for n in graph.nodes if isinstance(n, Node))


def test_auto_aug_calls_import_as_policy_nodes(corpus: dict[str, Any]) -> None:
    from augexplorer.spec import Node, Ref

    def policies(name: str) -> list[tuple[str, dict[str, Any], int | None]]:
        graph = corpus[name][1]
        return [
            (node.op, node.args, node.seed)
            for node in graph.nodes
            if isinstance(node, Node) and node.op.startswith("auto_aug.")
        ]

    # the call's arguments, read from its line, and the seed its operators carry; the node
    # keeps the call's own draws, which DALI ties together under one seed
    # (augexplorer.policy_seeds)
    kept = {"independent_draws": False}
    assert policies("rand_augment_n2_m9") == [
        ("auto_aug.rand_augment", {"n": 2, "m": 9, **kept}, 42)
    ]
    assert policies("trivial_augment_some_excluded") == [
        (
            "auto_aug.trivial_augment_wide",
            {
                "num_magnitude_bins": 11,
                "excluded": ["identity", "equalize"],
                "interp_type": "INTERP_NN",
                **kept,
            },
            44,
        )
    ]
    # a shape fed from a node stays a reference to that node
    shapes = policies("auto_augment_with_shapes")
    assert shapes == [
        (
            "auto_aug.auto_augment",
            {"policy_name": "svhn", "shape": Ref("peek_image_shape"), **kept},
            46,
        )
    ]
    # none of the hundreds of operators a policy expands into stays in the graph
    graph = corpus["rand_augment_n2_m9"][1]
    assert len(graph.nodes) == 4, graph.nodes


def test_seeds_derived_from_the_pipeline_seed_are_imported(corpus: dict[str, Any]) -> None:
    from augexplorer.export.derived_seeds import SEED_TABLE, seed_sequence
    from augexplorer.spec import Node

    derived = seed_sequence([2024], SEED_TABLE)
    graph = corpus["some_seeded_some_derived"][1]
    seeds = {
        node.id: node.probability.seed if node.probability else node.seed
        for node in graph.nodes
        if isinstance(node, Node)
    }
    # the reader, the first coin flip, the `if` coin flip and the crop took the table's first
    # four seeds in the order DALI added them; the uniform draw kept its own
    assert graph.sources()[0].seed == derived[0]
    assert seeds["coin_flip"] == derived[1]
    assert seeds["uniform"] == 8
    assert seeds["rotate"] == derived[2]
    assert seeds["random_resized_crop"] == derived[3]


# ---- detection and segmentation: readers.coco ----------------------------------------------


@pytest.fixture(scope="module")
def detection(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Each detection pipeline's original batches and imported graph, and what its exported
    module gave (all modules run in one fresh process)."""
    from pipelines_detection import BATCH as DETECTION_BATCH
    from pipelines_detection import DETECTION, write_coco

    tmp = tmp_path_factory.mktemp("detection_corpus")
    annotations = write_coco(samples_dir(), tmp / "annotations.json")
    found: dict[str, Any] = {"annotations": annotations}
    jobs = []
    for name, pipeline in DETECTION.items():

        def build_one(pipeline: Any = pipeline) -> Any:
            return pipeline(
                str(samples_dir()),
                str(annotations),
                batch_size=DETECTION_BATCH,
                num_threads=1,
                device_id=None,
            )

        graph = import_pipeline(build_one(), name=name)
        module = export(graph, tmp / f"{name}_aug.py")
        found[name] = (run_batches(build_one(), RUNS), graph)
        jobs.append(
            {
                "name": name,
                "module": str(module),
                "out": str(tmp / f"{name}.npz"),
                "batch_size": DETECTION_BATCH,
                "device": "cpu",
                "runs": RUNS,
            }
        )
    found["exported"] = run_exported(jobs, tmp)
    return found


DETECTION_NAMES = ["ssd_training", "flip_with_boxes", "polygons_flipped"]


@pytest.mark.parametrize("name", DETECTION_NAMES)
def test_detection_session_runs_the_original_batch(detection: dict[str, Any], name: str) -> None:
    original, graph = detection[name]
    result = Session(graph, device_id=None).run()
    refs = list(result.plan.outputs.values())
    assert len(refs) == len(original[0])
    for index, ref in enumerate(refs):
        assert_same(result.arrays(ref), original[0][index], f"{name} output {index}")


@pytest.mark.parametrize("name", DETECTION_NAMES)
def test_detection_module_runs_the_original_batches(detection: dict[str, Any], name: str) -> None:
    original, _graph = detection[name]
    saved = detection["exported"][name]
    for run, batches in enumerate(original):
        prefix = f"run{run}_" if run else ""
        for index, want in enumerate(batches):
            got = [saved[f"{prefix}{index}_{i}"] for i in range(BATCH)]
            assert_same(got, want, f"{name} batch {run + 1} output {index}")


def test_coco_reader_becomes_a_coco_source(detection: dict[str, Any]) -> None:
    _original, graph = detection["ssd_training"]
    source = graph.sources()[0]
    assert (source.id, source.kind) == ("Reader", "coco")  # the name the code gave it
    assert source.path == str(detection["annotations"]) and source.file_root == str(samples_dir())
    assert (source.shuffle, source.seed) == (True, 5)
    assert source.reader_args == {
        "pad_last_batch": False,  # DALI's default, which the code left
        "ratio": True,
        "ltrb": True,
        "skip_empty": True,
    }
    # outputs named by what they hold: box_encoder's boxes and labels per anchor
    assert list(graph.outputs) == ["images", "boxes", "labels"]
    from augexplorer.spec import Ref

    assert graph.node("random_bbox_crop").inputs == (Ref("Reader", 1), Ref("Reader", 2))
    _original, flipped = detection["flip_with_boxes"]
    assert list(flipped.outputs) == ["images", "boxes", "labels", "image_ids"]
    assert flipped.sources()[0].reader_args == {
        "pad_last_batch": False,
        "ltrb": True,
        "ratio": True,
        "image_ids": True,
        "initial_fill": 4,
    }
    _original, polygons = detection["polygons_flipped"]
    assert list(polygons.outputs) == ["images", "labels", "polygons", "vertices"]


def test_coco_reader_in_a_python_file_imports(tmp_path: Path) -> None:
    from pipelines_detection import write_coco

    annotations = write_coco(samples_dir(), tmp_path / "annotations.json")
    source = tmp_path / "detection.py"
    source.write_text(
        textwrap.dedent(
            f"""
            from nvidia.dali import fn, pipeline_def

            @pipeline_def(batch_size=2)
            def boxes():
                jpegs, bboxes, labels = fn.readers.coco(
                    file_root={str(samples_dir())!r},
                    annotations_file={str(annotations)!r},
                    ltrb=True,
                    ratio=True,
                    shuffle_after_epoch=True,
                )
                mirror = fn.random.coin_flip(seed=3)
                images = fn.flip(fn.decoders.image(jpegs), horizontal=mirror)
                return images, fn.bb_flip(bboxes, ltrb=True, horizontal=mirror), labels
            """
        )
    )
    graph = import_graph(source, run_file=True)
    reader = graph.sources()[0]
    assert reader.kind == "coco" and reader.path == str(annotations)
    assert reader.reader_args == {
        "pad_last_batch": False,
        "ltrb": True,
        "ratio": True,
        "shuffle_after_epoch": True,
    }
    assert list(graph.outputs) == ["images", "boxes", "labels"]
    assert Session(graph, device_id=None).run().arrays(graph.outputs["boxes"])


def test_coco_reader_with_an_image_list_reads_only_those_images(tmp_path: Path) -> None:
    from pipelines_detection import write_coco

    annotations = write_coco(samples_dir(), tmp_path / "annotations.json")
    source = tmp_path / "listed.py"
    source.write_text(
        textwrap.dedent(
            f"""
            from nvidia.dali import fn, pipeline_def

            @pipeline_def(batch_size=2)
            def listed():
                jpegs, bboxes, labels = fn.readers.coco(
                    file_root={str(samples_dir())!r},
                    annotations_file={str(annotations)!r},
                    images=["animal/cat.jpg"],
                )
                return fn.decoders.image(jpegs), bboxes, labels
            """
        )
    )
    graph = import_graph(source, run_file=True)
    (reader,) = graph.sources()
    assert reader.kind == "coco" and reader.path is not None
    listed = json.loads(Path(reader.path).read_text())
    assert [Path(image["file_name"]).name for image in listed["images"]] == ["cat.jpg"]
