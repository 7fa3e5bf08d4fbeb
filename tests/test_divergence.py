"""What you tune is what you train: the explorer (a live Session), the exported module and a
hand-built DALI pipeline agree on random draws, class lists and labels."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from exported_runner import run_exported
from nvidia.dali import fn, pipeline_def, types

from augexplorer import GraphSpec, Node, Random, Ref, Session, Source
from augexplorer.data import open_source, samples_dir
from augexplorer.export import export
from augexplorer.folder_listing import HIDDEN_NAMES

BATCH = 8
ANGLES = (0.0, 90.0, 180.0)
WEIGHTS = (0.6, 0.3, 0.1)


def weighted_rotation_graph() -> GraphSpec:
    """Decoded samples rotated by an angle drawn from a weighted choice."""
    nodes = (
        Source("source", shuffle=False),
        Node("decode", "decoders.image", (Ref("source"),), {"output_type": "RGB"}),
        Node("small", "resize", (Ref("decode"),), {"resize_x": 32.0, "resize_y": 24.0}),
        Node("rotate", "rotate", (Ref("small"),), {"angle": Random.choice(ANGLES, p=WEIGHTS)}),
    )
    return GraphSpec(nodes, {"images": Ref("rotate"), "labels": Ref("source", 1)}, batch_size=BATCH)


def weighted_crop_graph() -> GraphSpec:
    """A crop whose (height, width) is a vector draw from a weighted choice."""
    sizes = Random("choice", values=(8.0, 16.0), p=(0.25, 0.75), shape=2)
    return (
        weighted_rotation_graph()
        .set_arg("rotate", "angle", 0.0)
        .insert_after("rotate", Node("crop", "crop", args={"crop": sizes}))
    )


def hand_built_choice(values: list[Any], weights: list[float], seed: int, shape: int) -> list[Any]:
    """Draws of `fn.random.choice` alone, one batch."""

    @pipeline_def(batch_size=BATCH, num_threads=1, device_id=None)
    def hand() -> Any:
        pool = types.Constant(values, dtype=types.FLOAT)
        return fn.random.choice(pool, p=weights, shape=[shape], seed=seed)

    pipe = hand()
    pipe.build()
    (draws,) = pipe.run()
    return [np.array(draws.at(i)).tolist() for i in range(BATCH)]


def hand_built_rotation(seed: int) -> tuple[list[np.ndarray], list[float]]:
    """The same graph written with DALI alone: images and the angles drawn."""

    @pipeline_def(batch_size=BATCH, num_threads=2, device_id=None)
    def hand() -> tuple[Any, ...]:
        jpegs, _ = fn.readers.file(file_root=str(samples_dir()), random_shuffle=False)
        images = fn.decoders.image(jpegs, output_type=types.RGB)
        images = fn.resize(images, resize_x=32.0, resize_y=24.0)
        angle = fn.random.choice(
            types.Constant(list(ANGLES), dtype=types.FLOAT), p=list(WEIGHTS), seed=seed
        )
        return fn.rotate(images, angle=angle), angle

    pipe = hand()
    pipe.build()
    images, angles = pipe.run()
    return (
        [np.array(images.at(i)) for i in range(BATCH)],
        [float(np.array(angles.at(i))) for i in range(BATCH)],
    )


# ---- folder trees ------------------------------------------------------------------------------

SAMPLE_JPEGS = sorted(samples_dir().rglob("*.jpg"))
CLASS_FILES = {"cats": ["a.jpg", "b.jpg"], "dogs": ["c.jpg", "d.jpg", "e.jpg"]}
FOLDER_IMAGES = sum(len(names) for names in CLASS_FILES.values())


def _copy(target: Path, index: int) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(SAMPLE_JPEGS[index % len(SAMPLE_JPEGS)], target)


def clean_tree(root: Path) -> Path:
    """Class folders of images and nothing else: what DALI's own folder listing reads right."""
    index = 0
    for name, files in CLASS_FILES.items():
        for file in files:
            _copy(root / name / file, index)
            index += 1
    return root


def cluttered_tree(root: Path) -> Path:
    """The clean tree plus what notebooks, git, zip tools and users leave beside it."""
    clean_tree(root)
    _copy(root / ".ipynb_checkpoints" / "a-checkpoint.jpg", 7)
    (root / ".git" / "objects").mkdir(parents=True)
    _copy(root / "__MACOSX" / "cats" / "._a.jpg", 8)
    _copy(root / "__MACOSX" / "x.jpg", 8)
    _copy(root / "stray.jpg", 9)  # beside the class folders
    _copy(root / "cats" / "more" / "f.jpg", 10)  # nested: not searched
    (root / "dogs" / "._c.jpg").write_bytes(b"\x00\x05\x16\x07 AppleDouble")
    (root / "dogs" / "notes.txt").write_text("not an image")
    return root


def flat_tree(root: Path) -> Path:
    """Images with no class folders (one class), beside a notebook's checkpoint folder."""
    for index, name in enumerate(["p.jpg", "q.jpg", "r.jpg"]):
        _copy(root / name, index)
    _copy(root / ".ipynb_checkpoints" / "p-checkpoint.jpg", 5)
    return root


def folder_graph(root: Path, batch_size: int) -> GraphSpec:
    nodes = (
        Source("source", "folder", str(root), shuffle=True, seed=11),
        Node("decode", "decoders.image", (Ref("source"),), {"output_type": "RGB"}),
        Node("small", "resize", (Ref("decode"),), {"resize_x": 16.0, "resize_y": 12.0}),
    )
    outputs = {"images": Ref("small"), "labels": Ref("source", 1)}
    return GraphSpec(nodes, outputs, batch_size=batch_size)


def hand_built_folder(root: Path, batch_size: int) -> list[list[np.ndarray]]:
    """DALI's own folder reader (file_root=) on a tree it reads right: images, labels."""

    @pipeline_def(batch_size=batch_size, num_threads=2, device_id=None)
    def hand() -> tuple[Any, ...]:
        jpegs, labels = fn.readers.file(file_root=str(root), random_shuffle=True, seed=11)
        images = fn.decoders.image(jpegs, output_type=types.RGB)
        return fn.resize(images, resize_x=16.0, resize_y=12.0), labels

    pipe = hand()
    pipe.build()
    return [[np.array(out.at(i)) for i in range(batch_size)] for out in pipe.run()]


@pytest.fixture(scope="module")
def trees(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("trees")
    return {
        "clean": clean_tree(tmp / "clean"),
        "cluttered": cluttered_tree(tmp / "cluttered"),
        "flat": flat_tree(tmp / "flat"),
    }


@pytest.fixture(scope="module")
def exported(
    tmp_path_factory: pytest.TempPathFactory, trees: dict[str, Path]
) -> dict[str, dict[str, np.ndarray]]:
    """Each graph of this file exported and run (one batch) in one fresh process."""
    tmp = tmp_path_factory.mktemp("divergence")
    graphs = {
        "weighted_choice": (weighted_rotation_graph(), None),
        "weighted_vector": (weighted_crop_graph(), None),
        "cluttered": (folder_graph(trees["cluttered"], FOLDER_IMAGES), trees["cluttered"]),
        "flat": (folder_graph(trees["flat"], 3), trees["flat"]),
    }
    jobs = [
        {
            "name": name,
            "module": str(export(spec, tmp / f"{name}_aug.py")),
            "out": str(tmp / f"{name}.npz"),
            "batch_size": spec.batch_size,
            "device": "cpu",
            "data": str(data) if data is not None else None,
        }
        for name, (spec, data) in graphs.items()
    ]
    return run_exported(jobs, tmp)


# ---- weighted choices ---------------------------------------------------------------------------


def test_weighted_choice_draws_agree_with_export_and_dali(exported: dict[str, Any]) -> None:
    session = Session(weighted_rotation_graph(), device_id=None)
    result = session.run()
    drawn = result.draws("rotate")["rotate"]["angle"]
    seed = session.plan.step("rotate_angle").seed
    assert seed is not None
    hand_images, hand_angles = hand_built_rotation(seed)
    assert drawn == hand_angles
    assert len(set(drawn)) > 1, "the batch should show more than one angle"
    live_images = result.arrays(Ref("rotate"))
    for sample in range(BATCH):
        np.testing.assert_array_equal(live_images[sample], hand_images[sample])
        np.testing.assert_array_equal(
            exported["weighted_choice"][f"0_{sample}"], hand_images[sample]
        )


def test_weighted_vector_choice_keeps_its_shape(exported: dict[str, Any]) -> None:
    session = Session(weighted_crop_graph(), device_id=None)
    result = session.run()
    drawn = result.draws("crop")["crop"]["crop"]
    seed = session.plan.step("crop_crop").seed
    assert seed is not None
    assert drawn == hand_built_choice([8.0, 16.0], [0.25, 0.75], seed, shape=2)
    assert {len(pair) for pair in drawn} == {2}
    for sample, image in enumerate(result.arrays(Ref("crop"))):
        assert image.shape[:2] == tuple(int(v) for v in drawn[sample])
        np.testing.assert_array_equal(exported["weighted_vector"][f"0_{sample}"], image)


def test_weighted_choice_follows_its_weights() -> None:
    draws = 4000
    images = [np.zeros((1, 1, 3), np.uint8)] * draws
    spec = GraphSpec(
        (
            Source("source", "arrays"),
            Node(
                "flip",
                "flip",
                (Ref("source"),),
                {"horizontal": Random.choice([0, 1], p=[0.9, 0.1])},
            ),
        ),
        {"images": Ref("flip")},
        batch_size=draws,
    )
    flips = Session(spec, data=images, device_id=None).run().draws("flip")["flip"]["horizontal"]
    assert len(flips) == draws and set(flips) <= {0, 1}
    # 400 expected; 5 standard deviations (about 95) either side. Uniform draws would give 2000.
    mean, spread = draws * 0.1, 5 * (draws * 0.1 * 0.9) ** 0.5
    assert mean - spread < sum(flips) < mean + spread


def test_unweighted_choice_still_draws_every_value_evenly() -> None:
    spec = weighted_rotation_graph().set_arg("rotate", "angle", Random.choice(ANGLES, seed=4))
    step = Session(spec, device_id=None).plan.step("rotate_angle")
    assert step.op == "random.uniform" and step.args["values"] == list(ANGLES)


def test_exported_module_writes_the_weights(tmp_path: Path) -> None:
    source = export(weighted_rotation_graph(), tmp_path / "aug.py").read_text()
    assert "fn.random.choice(" in source and "p=[0.6, 0.3, 0.1]" in source


# ---- hidden folders and what a folder holds beside its classes -----------------------------------


def test_hidden_folders_are_never_classes_in_the_explorer_the_export_and_dali(
    trees: dict[str, Path], exported: dict[str, Any]
) -> None:
    session = Session(folder_graph(trees["cluttered"], FOLDER_IMAGES), device_id=None)
    result = session.run()
    assert result.sources["source"].classes == ("cats", "dogs")
    live_images = result.arrays(Ref("small"))
    live_labels = [
        int(np.asarray(label).reshape(-1)[0]) for label in result.arrays(Ref("source", 1))
    ]
    assert sorted(live_labels) == [0, 0, 1, 1, 1]
    hand_images, hand_labels = hand_built_folder(trees["clean"], FOLDER_IMAGES)
    module = exported["cluttered"]
    for sample in range(FOLDER_IMAGES):
        np.testing.assert_array_equal(live_images[sample], hand_images[sample])
        np.testing.assert_array_equal(module[f"0_{sample}"], hand_images[sample])
        assert int(hand_labels[sample].reshape(-1)[0]) == live_labels[sample]
        assert int(module[f"1_{sample}"].reshape(-1)[0]) == live_labels[sample]


@pytest.mark.parametrize("tree", ["clean", "cluttered", "flat"])
def test_exported_read_folder_lists_what_the_explorer_lists(
    trees: dict[str, Path], tmp_path: Path, tree: str
) -> None:
    module_path = export(folder_graph(trees[tree], 2), tmp_path / "aug.py")
    loaded = importlib.util.spec_from_file_location(f"exported_{tree}", module_path)
    assert loaded is not None and loaded.loader is not None
    module = importlib.util.module_from_spec(loaded)
    loaded.loader.exec_module(module)
    data = open_source(Source("source", "folder", str(trees[tree])))
    files, labels = module.read_folder(str(trees[tree]))
    assert (tuple(files), tuple(labels)) == (data.files, data.labels)


def test_without_class_folders_the_images_of_the_root_are_one_class_everywhere(
    trees: dict[str, Path], exported: dict[str, Any]
) -> None:
    result = Session(folder_graph(trees["flat"], 3), device_id=None).run()
    data = result.sources["source"]
    assert sorted(Path(f).name for f in data.files) == ["p.jpg", "q.jpg", "r.jpg"]
    for sample, image in enumerate(result.arrays(Ref("small"))):
        np.testing.assert_array_equal(exported["flat"][f"0_{sample}"], image)
        assert int(exported["flat"][f"1_{sample}"].reshape(-1)[0]) == 0


def test_dali_file_root_counts_hidden_folders_which_is_why_readers_get_lists(
    trees: dict[str, Path],
) -> None:
    """The reason for explicit lists: should DALI stop counting hidden folders, this fails and
    the lists could go."""

    @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    def listing() -> Any:
        _, labels = fn.readers.file(file_root=str(trees["cluttered"]), name="reader")
        return labels

    pipe = listing()
    pipe.build()
    assert pipe.epoch_size("reader") > FOLDER_IMAGES


def test_what_a_folder_leaves_out_is_said_not_silent(trees: dict[str, Path]) -> None:
    root = trees["cluttered"]
    data = open_source(Source("source", "folder", str(root)))
    ignored = {Path(path).relative_to(root).as_posix(): reason for path, reason in data.ignored}
    assert set(ignored) == {
        ".git",
        ".ipynb_checkpoints",
        "__MACOSX",
        "stray.jpg",
        "cats/more",
        "dogs/._c.jpg",
    }
    assert "move it into" in ignored["stray.jpg"]
    notes = "\n".join(data.notes())
    assert "stray.jpg" in notes and ".ipynb_checkpoints" in notes and "cats/more" in notes
    assert "__MACOSX" in HIDDEN_NAMES


def test_other_data_is_read_the_way_the_graph_reads() -> None:
    """`data=` and `--data` swap what is read, never how: a validation graph stays unshuffled,
    so the explorer shows the same first images that DALI's reader gives in file order."""
    from augexplorer import preset
    from augexplorer.data import source_for_path

    spec = preset("imagenet_val")
    assert not spec.sources()[0].shuffle
    session = Session(spec, data=str(samples_dir()), batch_size=4)
    assert not session.spec.sources()[0].shuffle
    files = session.run().files()
    ordered = open_source(source_for_path(str(samples_dir()))).files[:4]
    assert list(files) == list(ordered)
