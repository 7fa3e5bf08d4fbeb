"""The exported module honours the source options the explorer honours: with "skip bad files" it
leaves out exactly the files the explorer leaves out (a corrupt JPEG, a truncated one, a text
file named .jpg, a missing list entry), by the same check, which it carries; the folder rule and
a file list's file_root hold too. Explorer, exported module (fresh process) and DALI written by
hand over the explorer's kept files give the same files, labels and pixels."""

from __future__ import annotations

import importlib.util
import json
import shutil
import warnings
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from bad_inputs import IMAGE_MAKERS
from exported_runner import run_exported
from nvidia.dali import fn, pipeline_def, types
from PIL import Image

from augexplorer import GraphSpec, Node, Ref, Session, Source
from augexplorer.data import inspect_image, samples_dir
from augexplorer.export import export
from augexplorer.export.annotations_note import AnnotationsLeftBehind

SAMPLE_JPEGS = sorted(samples_dir().rglob("*.jpg"))
BAD = ("corrupt_tail.jpg", "truncated.jpg", "notes.jpg")  # corrupt, cut short, not an image


def bad_folder(root: Path) -> Path:
    """Two classes of photos with the bad files among them, plus what the folder rule leaves
    out: a notebook's checkpoint folder and an image beside the class folders."""
    layout = {"cats": ["a.jpg", "b.jpg", BAD[0]], "dogs": [BAD[1], "c.jpg", BAD[2], "d.jpg"]}
    index = 0
    for name, files in layout.items():
        (root / name).mkdir(parents=True)
        for file in files:
            if file in BAD:
                (root / name / file).write_bytes(IMAGE_MAKERS[file]())
            else:
                shutil.copyfile(SAMPLE_JPEGS[index], root / name / file)
                index += 1
    (root / ".ipynb_checkpoints").mkdir()
    shutil.copyfile(SAMPLE_JPEGS[5], root / ".ipynb_checkpoints" / "a-checkpoint.jpg")
    shutil.copyfile(SAMPLE_JPEGS[6], root / "stray.jpg")
    return root


def bad_list(folder: Path, where: Path) -> Path:
    """A file list elsewhere whose entries are relative to `folder` (the source's file_root):
    one corrupt file and one that is missing among good ones."""
    where.mkdir(parents=True, exist_ok=True)
    listing = where / "train.txt"
    listing.write_text(
        "# image label\ncats/a.jpg 3\ncats/corrupt_tail.jpg 4\n\ndogs/gone.jpg 5\ndogs/d.jpg 6\n"
        "cats/b.jpg 7\n"
    )
    return listing


def annotated(root: Path, *, yolo: bool) -> Path:
    """Four photos with one box each among the bad files (each with a box too): a YOLO folder
    (images/train, labels/train) or a COCO file beside its images."""
    images = root / "images" / "train" if yolo else root / "images"
    images.mkdir(parents=True)
    names = ["a.jpg", BAD[0], "b.jpg", BAD[1], "c.jpg", BAD[2], "d.jpg"]
    coco: dict[str, list[Any]] = {"images": [], "annotations": [], "categories": []}
    coco["categories"] = [{"id": 1, "name": "thing"}]
    for index, name in enumerate(names):
        if name in BAD:
            (images / name).write_bytes(IMAGE_MAKERS[name]())
            width, height = 128, 96
        else:
            shutil.copyfile(SAMPLE_JPEGS[index], images / name)
            width, height = Image.open(images / name).size
        if yolo:
            labels = root / "labels" / "train" / f"{Path(name).stem}.txt"
            labels.parent.mkdir(parents=True, exist_ok=True)
            labels.write_text(f"0 0.5 0.5 {0.2 + index / 50} 0.3\n")
        coco["images"].append(
            {"id": index + 1, "file_name": name, "width": width, "height": height}
        )
        box = [width * 0.1, height * 0.2, width * (0.3 + index / 50), height * 0.4]
        coco["annotations"].append(
            {"id": index + 1, "image_id": index + 1, "category_id": 1, "bbox": box, "area": 1.0}
        )
    if yolo:
        (root / "classes.txt").write_text("thing\n")
        return root
    (root / "instances.json").write_text(json.dumps(coco))
    return root / "instances.json"


def graph(source: Source, batch_size: int) -> GraphSpec:
    nodes = (
        source,
        Node("decode", "decoders.image", (Ref("source"),), {"output_type": "RGB"}),
        Node("small", "resize", (Ref("decode"),), {"resize_x": 20.0, "resize_y": 16.0}),
    )
    if source.reads_coco:  # images, then each image's boxes and their labels
        outputs = {"images": Ref("small"), "boxes": Ref("source", 1), "labels": Ref("source", 2)}
    else:
        outputs = {"images": Ref("small"), "labels": Ref("source", 1)}
    return GraphSpec(nodes, outputs, batch_size)


def sources(tmp: Path) -> dict[str, Source]:
    folder = bad_folder(tmp / "photos")
    listing = bad_list(folder, tmp / "lists")
    coco = annotated(tmp / "coco", yolo=False)
    yolo = annotated(tmp / "yolo", yolo=True)
    return {
        "folder": Source("source", "folder", str(folder), shuffle=False, skip_bad=True),
        "file_list": Source(
            "source", "file_list", str(listing), file_root=str(folder), shuffle=False, skip_bad=True
        ),
        "coco": Source(
            "source",
            "coco",
            str(coco),
            file_root=str(coco.parent / "images"),
            shuffle=False,
            skip_bad=True,
        ),
        "yolo": Source("source", "yolo", str(yolo), shuffle=False, skip_bad=True),
    }


KEPT = {"folder": 4, "file_list": 3, "coco": 4, "yolo": 4}  # images each source keeps


def hand_built(files: list[str], labels: list[int]) -> list[list[np.ndarray]]:
    """The same graph written with DALI alone over the explorer's kept files."""

    @pipeline_def(batch_size=len(files), num_threads=2, device_id=None)
    def hand() -> tuple[Any, ...]:
        jpegs, read_labels = fn.readers.file(files=files, labels=labels, random_shuffle=False)
        images = fn.decoders.image(jpegs, output_type=types.RGB)
        return fn.resize(images, resize_x=20.0, resize_y=16.0), read_labels

    pipe = hand()
    pipe.build()
    return [[np.array(out.at(i)) for i in range(len(files))] for out in pipe.run()]


def hand_built_coco(annotations_file: str, file_root: str, images: list[str]) -> list[Any]:
    """DALI's COCO reader alone over the explorer's kept images: images, boxes, labels."""

    @pipeline_def(batch_size=len(images), num_threads=2, device_id=None)
    def hand() -> tuple[Any, ...]:
        jpegs, boxes, labels = fn.readers.coco(
            annotations_file=annotations_file,
            file_root=file_root,
            images=images,
            random_shuffle=False,
        )
        decoded = fn.decoders.image(jpegs, output_type=types.RGB)
        return fn.resize(decoded, resize_x=20.0, resize_y=16.0), boxes, labels

    pipe = hand()
    pipe.build()
    return [[np.array(out.at(i)) for i in range(len(images))] for out in pipe.run()]


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """Each source's graph in the explorer, and exported and run in one fresh process (a YOLO
    folder is converted into a cache of the test's own, by each)."""
    tmp = tmp_path_factory.mktemp("skip_bad")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CACHE_HOME", str(tmp / "cache"))
        yield explore_and_export(tmp)


def explore_and_export(tmp: Path) -> dict[str, Any]:
    found: dict[str, Any] = {"sources": sources(tmp), "modules": {}, "sessions": {}}
    jobs = []
    for name, source in found["sources"].items():
        spec = graph(source, KEPT[name])
        found["sessions"][name] = Session(spec, device_id=None)
        with warnings.catch_warnings():
            # its boxes are the reader's, not resized: compared as the hand-written pipeline's
            warnings.simplefilter("ignore", AnnotationsLeftBehind)
            module = export(spec, tmp / f"{name}_aug.py")
        found["modules"][name] = module
        jobs.append(
            {
                "name": name,
                "module": str(module),
                "out": str(tmp / f"{name}.npz"),
                "batch_size": KEPT[name],
                "device": "cpu",
                "loader": not source.reads_coco,
            }
        )
    found["exported"] = run_exported(jobs, tmp)
    return found


@pytest.mark.parametrize("kind", ["folder", "file_list"])
def test_explorer_module_and_dali_read_the_same_files_labels_and_pixels(
    made: dict[str, Any], kind: str
) -> None:
    result = made["sessions"][kind].run()
    data = result.sources["source"]
    assert len(data.files) == KEPT[kind]
    assert not any(Path(f).name in BAD for f in data.files)
    live_images = result.arrays(Ref("small"))
    live_labels = [int(np.asarray(x).reshape(-1)[0]) for x in result.arrays(Ref("source", 1))]
    hand_images, hand_labels = hand_built(list(data.files), list(data.labels))
    module = made["exported"][kind]
    for sample in range(KEPT[kind]):
        np.testing.assert_array_equal(live_images[sample], hand_images[sample])
        np.testing.assert_array_equal(module[f"0_{sample}"], hand_images[sample])
        assert int(hand_labels[sample].reshape(-1)[0]) == live_labels[sample]
        assert int(module[f"1_{sample}"].reshape(-1)[0]) == live_labels[sample]
    assert module["loader_labels"].reshape(-1).tolist() == live_labels  # make_loader too
    if kind == "file_list":
        assert live_labels == [3, 6, 7], "labels stay with their files"
    else:
        assert live_labels == [0, 0, 1, 1]


@pytest.mark.parametrize("kind", ["coco", "yolo"])
def test_annotated_sources_read_the_same_images_boxes_and_pixels(
    made: dict[str, Any], kind: str
) -> None:
    result = made["sessions"][kind].run()
    data = result.sources["source"]
    assert sorted(Path(path).name for path, _ in data.skipped) == sorted(BAD)
    assert len(data.coco_images) == KEPT[kind]
    assert data.annotations_file is not None and data.file_root is not None
    hand = hand_built_coco(data.annotations_file, data.file_root, list(data.coco_images))
    module = made["exported"][kind]
    for index, ref in enumerate(result.plan.outputs.values()):
        live = result.arrays(ref)
        for sample in range(KEPT[kind]):
            np.testing.assert_array_equal(live[sample], hand[index][sample], err_msg=str(ref))
            np.testing.assert_array_equal(module[f"{index}_{sample}"], hand[index][sample])


def load(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"exported_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("kind", ["folder", "file_list"])
def test_the_module_leaves_out_the_explorers_files_and_names_them_once(
    made: dict[str, Any], kind: str, capsys: pytest.CaptureFixture[str]
) -> None:
    data = made["sessions"][kind].run().sources["source"]
    module = load(made["modules"][kind])
    assert module.SKIP_BAD is True
    capsys.readouterr()
    files, labels, _ = module.read_data(made["sources"][kind].path)
    said = capsys.readouterr().out
    assert [Path(f).resolve() for f in files] == [Path(f).resolve() for f in data.files]
    assert tuple(labels) == data.labels
    assert len(said.strip().splitlines()) == 1, said
    for path, _ in data.skipped:
        assert said.count(Path(path).name) == 1, (path, said)
    total = len(data.files) + len(data.skipped)
    assert f"{len(data.skipped)} of {total} images left out (skip_bad)" in said


def test_without_skip_bad_the_module_reads_every_listed_file_and_refuses_a_missing_one(
    made: dict[str, Any],
) -> None:
    """skip_bad=False is the graph's choice: every file goes to DALI, as the explorer's reader
    would get it; a list naming a missing file is refused with the folder it was read from."""
    module = load(made["modules"]["folder"])
    files, _, _ = module.read_data(made["sources"]["folder"].path, skip_bad=False)
    assert sorted(Path(f).name for f in files if Path(f).name in BAD) == sorted(BAD)
    listed = load(made["modules"]["file_list"])
    with pytest.raises(ValueError, match=r"gone\.jpg not found"):
        listed.read_data(made["sources"]["file_list"].path, skip_bad=False)


def test_the_carried_check_says_what_the_explorer_says_of_every_corpus_file(
    made: dict[str, Any], tmp_path: Path
) -> None:
    module = load(made["modules"]["folder"])
    for name, make in IMAGE_MAKERS.items():
        if name == "huge.jpg":  # slow to make; its header is like any JPEG's
            continue
        path = tmp_path / name
        path.write_bytes(make())
        explorer = inspect_image(str(path))
        carried = module.image_header(str(path))
        if isinstance(explorer, str):
            assert carried == explorer, name
        else:
            assert carried == (explorer.format, explorer.width, explorer.height), name
