"""YOLO folders (images with one ``.txt`` label file each) as an annotated source: converted to a
COCO file and read by DALI's readers.coco, each label line's box coming back in pixels; bad
label lines named by file and line (or left out with skip_bad); and the exported module reads
the same folder to the same outputs."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from exported_checks import check_module
from exported_runner import run_exported
from PIL import Image

from augexplorer import GraphSpec, Node, Ref, Session, Source
from augexplorer.builder import build_pipeline
from augexplorer.catalog import Catalog
from augexplorer.data import open_source, samples_dir
from augexplorer.errors import DataError, GraphInvalid
from augexplorer.export import export
from augexplorer.spec import chain
from augexplorer.validate import validate
from augexplorer.yolo_folder import scan_yolo, yolo_annotations_file, yolo_to_coco

PHOTOS = ("animal/cat.jpg", "animal/cat_face.jpg", "food/espresso.jpg", "space/rocket_pad.jpg")
CLASSES = ("cat", "fruit", "moon")
# image name (under images/train) -> its label lines: class cx cy w h
LINES: dict[str, list[str]] = {
    "cat.jpg": ["0 0.5 0.5 0.4 0.6", "0 0.2 0.3 0.2 0.2"],
    "cat_face.jpg": ["0 0.25 0.75 0.5 0.5"],
    "espresso.jpg": ["1 0.6 0.4 0.3 0.5", "2 0.1 0.1 0.2 0.2", ""],
    # rocket_pad.jpg has no label file: no objects
}


def write_yolo(folder: Path, lines: dict[str, list[str]] = LINES) -> Path:
    """A YOLO folder of bundled photos: images/train/*.jpg, labels/train/*.txt, classes.txt."""
    for photo in PHOTOS:
        image = folder / "images" / "train" / Path(photo).name
        image.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(samples_dir() / photo, image)
    for name, text in lines.items():
        label = folder / "labels" / "train" / f"{Path(name).stem}.txt"
        label.parent.mkdir(parents=True, exist_ok=True)
        label.write_text("\n".join(text) + "\n")
    (folder / "classes.txt").write_text("\n".join(CLASSES) + "\n")
    return folder


def expected_boxes(folder: Path, name: str, lines: list[str]) -> tuple[np.ndarray, list[int]]:
    """The label lines of `name` as l, t, r, b pixels and DALI labels (class + 1)."""
    width, height = Image.open(folder / "images" / "train" / name).size
    boxes, labels = [], []
    for line in filter(None, lines):
        label, cx, cy, w, h = line.split()
        x, y, bw, bh = float(cx), float(cy), float(w), float(h)
        boxes.append(
            [
                (x - bw / 2) * width,
                (y - bh / 2) * height,
                (x + bw / 2) * width,
                (y + bh / 2) * height,
            ]
        )
        labels.append(int(label) + 1)
    return np.reshape(np.asarray(boxes, np.float32), (-1, 4)), labels


def yolo_graph(folder: Path, *, skip_bad: bool = False, **reader_args: Any) -> GraphSpec:
    source = Source(
        "source", "yolo", str(folder), shuffle=False, skip_bad=skip_bad, reader_args=reader_args
    )
    return chain(source, ("decode", "decoders.image", {"output_type": "RGB"}), batch_size=4)


@pytest.fixture(autouse=True)
def cache_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The converted files go into the test's own cache folder."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache"


@pytest.mark.parametrize(
    "reader_args", [{}, {"ltrb": True, "ratio": True}], ids=["xywh-pixels", "ltrb-ratio"]
)
def test_boxes_are_the_label_lines_in_pixels(
    tmp_path: Path, catalog: Catalog, reader_args: dict[str, Any]
) -> None:
    folder = write_yolo(tmp_path / "yolo")
    result = Session(yolo_graph(folder, **reader_args), catalog=catalog).run()
    annotations = result.annotations("decode")
    assert annotations is not None
    names = [Path(file).name for file in result.files()]
    assert names == [
        "cat.jpg",
        "cat_face.jpg",
        "espresso.jpg",
        "rocket_pad.jpg",
    ]  # sorted, none left out
    for name, sample in zip(names, annotations, strict=True):
        boxes, labels = expected_boxes(folder, name, LINES.get(name, []))
        np.testing.assert_allclose(sample.boxes, boxes, atol=0.01, err_msg=name)
        assert sample.labels.tolist() == labels, name
        assert sample.names == tuple(CLASSES[label - 1] for label in labels), name


def test_converted_file_is_cached_under_a_name_of_the_folders_state(
    tmp_path: Path, cache_home: Path
) -> None:
    folder = write_yolo(tmp_path / "yolo")
    data = open_source(Source("source", "yolo", str(folder)))
    assert data.kind == "coco" and data.file_root == str(folder)
    assert data.annotations_file is not None
    cached = Path(data.annotations_file)
    assert cached.parent == cache_home / "augexplorer" / "yolo"
    assert json.loads(cached.read_text()) == yolo_to_coco(str(folder))
    assert yolo_annotations_file(str(folder)) == str(cached)  # same folder, same file
    (folder / "labels" / "train" / "cat.txt").write_text("0 0.5 0.5 0.1 0.1\n")
    changed = Path(yolo_annotations_file(str(folder)))
    assert changed != cached
    assert json.loads(changed.read_text())["annotations"][0]["bbox"][2] == pytest.approx(
        0.1 * Image.open(folder / "images" / "train" / "cat.jpg").size[0]
    )


def test_without_class_names_each_class_is_its_number(tmp_path: Path) -> None:
    folder = write_yolo(tmp_path / "yolo")
    (folder / "classes.txt").unlink()
    coco = yolo_to_coco(str(folder))
    assert coco["categories"] == [
        {"id": 1, "name": "0"},
        {"id": 2, "name": "1"},
        {"id": 3, "name": "2"},
    ]


def test_class_names_from_data_yaml(tmp_path: Path) -> None:
    folder = write_yolo(tmp_path / "yolo")
    (folder / "classes.txt").unlink()
    (folder / "data.yaml").write_text(
        "path: .\ntrain: images/train\nnames:\n  0: cat\n  1: fruit\n  2: moon\n"
    )
    assert [c["name"] for c in yolo_to_coco(str(folder))["categories"]] == list(CLASSES)
    (folder / "data.yaml").write_text("nc: 3\nnames: ['cat', 'fruit', 'moon']  # three\n")
    assert [c["name"] for c in yolo_to_coco(str(folder))["categories"]] == list(CLASSES)


def test_label_file_beside_its_image(tmp_path: Path, catalog: Catalog) -> None:
    folder = tmp_path / "flat"
    folder.mkdir()
    shutil.copy(samples_dir() / "animal" / "cat.jpg", folder / "cat.jpg")
    (folder / "cat.txt").write_text("3 0.5 0.5 0.5 0.5\n")
    result = Session(yolo_graph(folder), catalog=catalog).run()
    annotations = result.annotations("decode")
    assert annotations is not None
    assert annotations[0].labels.tolist() == [4]
    np.testing.assert_allclose(annotations[0].boxes, [[112.75, 75.0, 338.25, 225.0]], atol=0.01)


BAD_LINES = [
    ("0 0.5 0.5 0.2", "labels/train/cat.txt line 1: 4 values, expected 5"),
    ("cat 0.5 0.5 0.2 0.2", "labels/train/cat.txt line 1: class 'cat' is not a whole number"),
    ("7 0.5 0.5 0.2 0.2", "labels/train/cat.txt line 1: class 7 is not one of the 3 names"),
    ("-1 0.5 0.5 0.2 0.2", "labels/train/cat.txt line 1: class -1 is not one of the 3 names"),
    ("0 0.5 0.5 x 0.2", "labels/train/cat.txt line 1: '0.5 0.5 x 0.2': cx cy w h must be numbers"),
    ("0 0.5 0.5 0 0.2", "labels/train/cat.txt line 1: zero-area box (w 0, h 0.2)"),
    (
        "0 0.9 0.5 0.4 0.2",
        "labels/train/cat.txt line 1: box x 0.7 to 1.1, y 0.4 to 0.6 reaches outside [0, 1]",
    ),
    ("0 0.5 0.5 0.2 0.2 0.3", "labels/train/cat.txt line 1: 6 values, expected 5"),
    (
        "0 0.1 0.1 0.9 0.1 1.2 0.8",
        "labels/train/cat.txt line 1: box x 0.1 to 1.2, y 0.1 to 0.8 reaches outside [0, 1]",
    ),
]


@pytest.mark.parametrize(
    "line, message", BAD_LINES, ids=[m.split(": ")[1][:20] for _, m in BAD_LINES]
)
def test_bad_label_line_names_the_file_and_line(tmp_path: Path, line: str, message: str) -> None:
    folder = write_yolo(tmp_path / "yolo", {**LINES, "cat.jpg": [line]})
    with pytest.raises(DataError) as raised:
        open_source(Source("source", "yolo", str(folder)))
    text = str(raised.value)
    assert message in text
    assert str(folder) in text and "class cx cy w h" in text and "skip_bad=True" in text


def test_every_bad_line_of_a_file_is_named(tmp_path: Path) -> None:
    folder = write_yolo(
        tmp_path / "yolo",
        {**LINES, "cat.jpg": ["0 0.5 0.5 0.2 0.2", "", "9 0.5 0.5 0.2 0.2", "0 2 0.5 0.2 0.2"]},
    )
    _, problems = scan_yolo(str(folder))
    assert [name for name, _ in problems] == ["images/train/cat.jpg"]
    reason = problems[0][1]
    assert "line 3: class 9" in reason and "line 4: box x 1.9" in reason and "line 1" not in reason


def test_missing_and_unreadable_folders(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="YOLO folder not found"):
        open_source(Source("source", "yolo", str(tmp_path / "nowhere")))
    (tmp_path / "empty").mkdir()
    with pytest.raises(DataError, match="holds no images"):
        open_source(Source("source", "yolo", str(tmp_path / "empty")))
    with pytest.raises(GraphInvalid, match="a yolo source needs a path"):
        validate(GraphSpec((Source("source", "yolo"),), {"images": Ref("source")}))


def test_skip_bad_leaves_out_the_images_with_bad_lines(tmp_path: Path, catalog: Catalog) -> None:
    folder = write_yolo(tmp_path / "yolo", {**LINES, "cat.jpg": ["0 0.5 0.5 0.2 1.5"]})
    data = open_source(Source("source", "yolo", str(folder)), skip_bad=True)
    assert [Path(path).name for path, _ in data.skipped] == ["cat.jpg"]
    assert "labels/train/cat.txt line 1" in data.skipped[0][1]
    assert [Path(file).name for file in data.files] == [
        "cat_face.jpg",
        "espresso.jpg",
        "rocket_pad.jpg",
    ]
    result = Session(yolo_graph(folder, skip_bad=True), catalog=catalog).run()
    names = [Path(file).name for file in result.files()]
    assert "cat.jpg" not in names
    annotations = result.annotations("decode")
    assert annotations is not None
    for name, sample in zip(names, annotations, strict=True):
        boxes, labels = expected_boxes(folder, name, LINES.get(name, []))
        np.testing.assert_allclose(sample.boxes, boxes, atol=0.01, err_msg=name)
        assert sample.labels.tolist() == labels


def flip_graph(folder: Path, *, skip_bad: bool = False) -> GraphSpec:
    """Decode, resize, then flip images and boxes on one shared coin; shuffled with a seed."""
    source = Source(
        "source",
        "yolo",
        str(folder),
        seed=11,
        skip_bad=skip_bad,
        reader_args={"ltrb": True, "ratio": True, "initial_fill": 4},
    )
    nodes = (
        source,
        Node("decode", "decoders.image", (Ref("source"),), {"output_type": "RGB"}),
        Node("resize", "resize", (Ref("decode"),), {"resize_x": 64.0, "resize_y": 48.0}),
        Node("coin", "random.coin_flip", args={"probability": 0.5}, seed=7),
        Node("flip", "flip", (Ref("resize"),), {"horizontal": Ref("coin")}),
        Node("bb_flip", "bb_flip", (Ref("source", 1),), {"horizontal": Ref("coin"), "ltrb": True}),
    )
    outputs = {"images": Ref("flip"), "boxes": Ref("bb_flip"), "labels": Ref("source", 2)}
    return GraphSpec(nodes, outputs, batch_size=3, name="yolo_flip")


def source_outputs_graph(folder: Path, kinds: tuple[str, ...], **source_args: Any) -> GraphSpec:
    """Decode the folder's images; give them and the source's outputs named `kinds`."""
    source = Source("source", "yolo", str(folder), shuffle=False, **source_args)
    outputs = {"images": Ref("decode")}
    outputs |= {n: Ref("source", i) for i, n in enumerate(source.output_names()) if n in kinds}
    decode = Node("decode", "decoders.image", (Ref("source"),), {"output_type": "RGB"})
    return GraphSpec((source, decode), outputs, batch_size=4, name="yolo_outputs")


def write_pose_and_segments(tmp_path: Path) -> dict[str, GraphSpec]:
    """A pose folder (kpt_shape, keypoints=True) and a segmentation folder (polygons)."""
    pose = write_yolo(tmp_path / "pose", {"cat.jpg": ["0 0.5 0.5 0.4 0.6 0.4 0.3 2 0.6 0.3 1"]})
    (pose / "data.yaml").write_text("names: [person]\nkpt_shape: [2, 3]\n")
    (pose / "classes.txt").unlink()
    segments = write_yolo(
        tmp_path / "segments",
        {"cat.jpg": ["2 0.1 0.2 0.5 0.2 0.3 0.6"], "espresso.jpg": ["1 0.2 0.2 0.8 0.3 0.5 0.9"]},
    )
    return {
        "pose": source_outputs_graph(
            pose, ("boxes", "labels", "keypoints", "keypoint_visibility"), keypoints=True
        ),
        "segments": source_outputs_graph(
            segments, ("boxes", "polygons", "vertices"), reader_args={"polygon_masks": True}
        ),
    }


def test_exported_module_converts_the_folder_to_the_explorers_outputs(
    tmp_path: Path, catalog: Catalog, cache_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = write_yolo(tmp_path / "yolo")
    skipping = write_yolo(tmp_path / "skipping", {**LINES, "cat_face.jpg": ["5 0.5 0.5 0.2 0.2"]})
    specs = {"flip": flip_graph(folder), "skip_bad": flip_graph(skipping, skip_bad=True)}
    specs |= write_pose_and_segments(tmp_path)
    jobs = []
    for name, spec in specs.items():
        module = export(spec, tmp_path / f"{name}_aug.py")
        check_module(module.read_text(), spec)
        jobs.append(
            {
                "name": name,
                "module": str(module),
                "out": str(tmp_path / f"{name}.npz"),
                "batch_size": spec.batch_size,
                "device": "cpu",
                "runs": 2,
            }
        )
    # the module writes its own COCO file, into a cache of its own
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "module_cache"))
    saved = run_exported(jobs, tmp_path)
    assert len(list((tmp_path / "module_cache" / "augexplorer" / "yolo").iterdir())) == len(specs)
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache_home))
    for name, spec in specs.items():
        # the first batch is the Session's; both are the explorer's fused pipeline's
        live = Session(spec, device_id=None).run()  # on the CPU, as the module ran
        data = {
            source.id: open_source(source, skip_bad=source.skip_bad) for source in spec.sources()
        }
        pipe = build_pipeline(live.plan, data, num_threads=1)
        pipe.build()
        for run in range(2):
            fused = [[np.array(out.at(i)) for i in range(len(out))] for out in pipe.run()]
            prefix = f"run{run}_" if run else ""
            for index, ref in enumerate(live.plan.outputs.values()):
                for sample, want in enumerate(fused[index]):
                    got = saved[name][f"{prefix}{index}_{sample}"]
                    assert got.dtype == want.dtype and got.shape == want.shape, (name, ref)
                    np.testing.assert_array_equal(got, want, err_msg=f"{name} {ref} #{sample}")
                    if run == 0:
                        np.testing.assert_array_equal(live.arrays(ref)[sample], want)


def test_the_panel_switches_to_a_yolo_folder(tmp_path: Path, catalog: Catalog) -> None:
    from augexplorer_widgets import Explorer

    folder = write_yolo(tmp_path / "yolo")
    panel = Explorer("basic", batch_size=4, autosave=tmp_path / "autosave.json", catalog=catalog)
    panel.flush()
    bar = panel.toolbar
    bar.source.value = "yolo"
    assert bar.path.layout.display == "" and bar.file_root.layout.display == "none"
    bar.path.value = str(folder)
    panel.flush()
    source = panel.spec.sources()[0]
    assert (source.kind, source.path) == ("yolo", str(folder))
    assert source.reader_args == {"ltrb": True, "ratio": True}
    assert panel.state.failure is None, panel.state.failure
    assert sorted(t["label"] for t in panel.grid.tiles.tiles) == [
        "",
        "cat",
        "cat x2",
        "fruit, moon",
    ]


@pytest.mark.parametrize("orientation", [1, 6, 8])
def test_exif_rotated_photos_keep_their_boxes_on_the_picture_as_seen(
    tmp_path: Path, cache_home: Path, catalog: Catalog, orientation: int
) -> None:
    """A phone photo stored 120x80 with EXIF orientation 6 or 8 is shown 80x120 (DALI's decoder
    turns it, as YOLO tools do): its label fractions are of the picture as seen."""
    folder = tmp_path / "phone"
    (folder / "images").mkdir(parents=True)
    (folder / "labels").mkdir()
    stored = Image.new("RGB", (120, 80), (200, 30, 30))
    exif = Image.Exif()
    exif[0x0112] = orientation
    stored.save(folder / "images" / "photo.jpg", exif=exif.tobytes())
    # the left half of the picture as seen, top to bottom
    (folder / "labels" / "photo.txt").write_text("0 0.25 0.5 0.5 1.0\n")
    (folder / "classes.txt").write_text("thing\n")

    seen = (80, 120) if orientation in (6, 8) else (120, 80)
    image = yolo_to_coco(str(folder))["images"][0]
    assert (image["width"], image["height"]) == seen
    result = Session(yolo_graph(folder, ltrb=True), catalog=catalog).run()
    assert result.arrays(Ref("decode"))[0].shape[:2] == (seen[1], seen[0])
    annotations = result.annotations("decode")
    assert annotations is not None
    np.testing.assert_allclose(annotations[0].boxes, [[0, 0, seen[0] / 2, seen[1]]], atol=0.01)


def test_segmentation_lines_become_polygons_with_their_boxes(
    tmp_path: Path, catalog: Catalog
) -> None:
    """Ultralytics' segmentation lines (class x1 y1 x2 y2 ...) are read as COCO polygons in
    pixels, each with the box around its points; box lines in the same folder stay boxes."""
    triangle = "2 0.1 0.2 0.5 0.2 0.3 0.6"
    folder = write_yolo(tmp_path / "yolo", {**LINES, "cat.jpg": [triangle, "0 0.5 0.5 0.4 0.6"]})
    spec = yolo_graph(folder, ltrb=True, polygon_masks=True)
    result = Session(spec, catalog=catalog).run()
    annotations = result.annotations("decode")
    assert annotations is not None
    index = [Path(f).name for f in result.files()].index("cat.jpg")
    cat = annotations[index]
    height, width = result.arrays(Ref("decode"))[index].shape[:2]
    np.testing.assert_allclose(
        cat.boxes,
        [
            [0.1 * width, 0.2 * height, 0.5 * width, 0.6 * height],
            expected_boxes(folder, "cat.jpg", ["0 0.5 0.5 0.4 0.6"])[0][0],
        ],
        atol=0.01,
    )
    assert cat.names == ("moon", "cat") and len(cat.polygons) == 1 and cat.polygon_masks == (0,)
    np.testing.assert_allclose(
        cat.polygons[0],
        [[0.1 * width, 0.2 * height], [0.5 * width, 0.2 * height], [0.3 * width, 0.6 * height]],
        atol=0.01,
    )


@pytest.mark.parametrize("per_point", [3, 2])
def test_pose_datasets_give_their_keypoints(
    tmp_path: Path, catalog: Catalog, per_point: int
) -> None:
    """``kpt_shape`` in data.yaml: each line is a box and its keypoints, which a source with
    keypoints=True gives (x, y in pixels and COCO's visibility). With two values a point, an odd
    count of values is still a pose line, not a polygon."""
    points = ["0.4 0.3 2", "0.6 0.3 1", "0 0 0"] if per_point == 3 else ["0.4 0.3", "0 0"]
    line = "0 0.5 0.5 0.4 0.6 " + " ".join(points)
    folder = write_yolo(tmp_path / "pose", {"cat.jpg": [line]})
    (folder / "classes.txt").unlink()
    (folder / "data.yaml").write_text(
        f"names: [person]\nkpt_shape: [{len(points)}, {per_point}]  # points, values\n"
    )
    source = Source("source", "yolo", str(folder), shuffle=False, keypoints=True)
    spec = chain(source, ("decode", "decoders.image", {"output_type": "RGB"}), batch_size=4)
    result = Session(spec, catalog=catalog).run()
    annotations = result.annotations("decode")
    assert annotations is not None
    index = [Path(f).name for f in result.files()].index("cat.jpg")
    height, width = result.arrays(Ref("decode"))[index].shape[:2]
    cat = annotations[index]
    assert cat.keypoints is not None and cat.names == ("person",)
    want = [[0.4 * width, 0.3 * height, 2], [0.6 * width, 0.3 * height, 1], [0, 0, 0]]
    if per_point == 2:
        want = [want[0], [0, 0, 0]]
    np.testing.assert_allclose(cat.keypoints[0], want, atol=0.01)
    np.testing.assert_allclose(
        cat.boxes, [[0.3 * width, 0.2 * height, 0.7 * width, 0.8 * height]], atol=0.01
    )

    # a line whose count does not fit kpt_shape is named, with the count it should have
    (folder / "labels" / "train" / "cat.txt").write_text("0 0.5 0.5 0.4 0.6 0.4 0.3\n")
    with pytest.raises(DataError, match=r"line 1: 7 values, expected \d+: class cx cy w h and"):
        open_source(source)

    # a labelled point outside the picture is named, with how to write it; an unlabelled one
    # (visibility 0) may sit anywhere
    outside = "1.7 0.3 2" if per_point == 3 else "1.7 0.3"
    (folder / "labels" / "train" / "cat.txt").write_text(
        "0 0.5 0.5 0.4 0.6 " + " ".join([outside, *points[1:]]) + "\n"
    )
    with pytest.raises(DataError, match=r"keypoint 0: x 1.7, y 0.3 is outside \[0, 1\]"):
        open_source(source)
    if per_point == 3:
        (folder / "labels" / "train" / "cat.txt").write_text(
            "0 0.5 0.5 0.4 0.6 " + " ".join([points[0], points[1], "1.7 -0.2 0"]) + "\n"
        )
        assert open_source(source) is not None


def test_a_pose_folder_with_only_bad_lines_gets_the_pose_line_fix(tmp_path: Path) -> None:
    """The fix offered follows data.yaml's kpt_shape, even where no line could be read (and so
    no class was ever seen)."""
    folder = write_yolo(tmp_path / "pose", {"cat.jpg": ["0 0.5 0.5 0.4 0.6 1.5 0.3 2"]})
    (folder / "classes.txt").unlink()
    (folder / "data.yaml").write_text("kpt_shape: [1, 3]\n")
    with pytest.raises(DataError, match=r"keypoint 0: x 1.5, y 0.3 is outside") as raised:
        open_source(Source("source", "yolo", str(folder), keypoints=True))
    assert "kpt_shape's points as 'x y v'" in str(raised.value)
