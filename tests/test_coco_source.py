"""COCO sources: DALI's readers.coco behind a source, its annotations checked, followed to any
image node and turned into pixel coordinates."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from bad_inputs import coco_file

from augexplorer import Session
from augexplorer.catalog import Catalog
from augexplorer.data import sample_annotations
from augexplorer.spec import GraphSpec, Node, Ref, Source, chain
from augexplorer.spec import io as spec_io


def _graph(path: Path, *, skip_bad: bool = False, **reader_args: Any) -> GraphSpec:
    source = Source(
        "source",
        "coco",
        str(path),
        file_root=str(path.parent / "images"),
        shuffle=False,
        skip_bad=skip_bad,
        reader_args=reader_args,
    )
    return chain(source, ("decode", "decoders.image", {"output_type": "RGB"}), batch_size=3)


def _boxes_in_pixels(path: Path) -> dict[str, list[list[float]]]:
    """file name -> its boxes as l, t, r, b pixels, straight from the JSON."""
    data = json.loads(path.read_text())
    names = {image["id"]: image["file_name"] for image in data["images"]}
    out: dict[str, list[list[float]]] = {name: [] for name in names.values()}
    for annotation in data["annotations"]:
        x, y, w, h = annotation["bbox"]
        out[names[annotation["image_id"]]].append([x, y, x + w, y + h])
    return out


@pytest.mark.parametrize(
    "reader_args",
    [{"ltrb": True, "ratio": True}, {}, {"ratio": True}, {"ltrb": True}],
    ids=["ltrb-ratio", "xywh-pixels", "xywh-ratio", "ltrb-pixels"],
)
def test_annotations_come_back_in_pixels_whatever_the_format(
    tmp_path: Path, catalog: Catalog, reader_args: dict[str, Any]
) -> None:
    path = coco_file(tmp_path)
    result = Session(_graph(path, **reader_args), catalog=catalog).run()
    expected = _boxes_in_pixels(path)
    annotations = result.annotations("decode")
    assert annotations is not None
    for file, sample in zip(result.files(), annotations, strict=True):
        np.testing.assert_allclose(sample.boxes, np.reshape(expected[file], (-1, 4)), atol=0.01)


def test_labels_are_remapped_as_dali_remaps_them(tmp_path: Path, catalog: Catalog) -> None:
    # categories 5 ("square") and 9 ("round"), listed in that order: DALI numbers them 1 and 2
    path = coco_file(tmp_path)
    result = Session(_graph(path), catalog=catalog).run()
    assert result.labels() == [[1], [2], []]
    assert result.captions() == ["square", "round", ""]
    kept = Session(_graph(path, avoid_class_remapping=True), catalog=catalog).run()
    assert kept.labels() == [[5], [9], []]
    assert kept.captions() == ["square", "round", ""]


def test_polygons_follow_the_vertices_dali_reads(tmp_path: Path, catalog: Catalog) -> None:
    path = coco_file(tmp_path)
    result = Session(_graph(path, polygon_masks=True, ratio=True), catalog=catalog).run()
    annotations = result.annotations("decode")
    assert annotations is not None
    square = [[10, 12], [60, 12], [60, 52], [10, 52]]
    np.testing.assert_allclose(annotations[0].polygons[0], square, atol=0.01)
    assert annotations[0].polygon_masks == (0,)
    assert annotations[2].polygons == ()


def test_skip_bad_leaves_bad_images_out_and_says_which(tmp_path: Path, catalog: Catalog) -> None:
    def spoil(data: dict[str, Any]) -> None:
        data["annotations"][1]["category_id"] = 77  # image 2: a category the file lacks

    path = coco_file(tmp_path, spoil)
    result = Session(_graph(path, skip_bad=True), catalog=catalog).run()
    # DALI is given the kept images only: the spoilt one never reaches it
    assert set(result.files()) == {"img_0.jpg", "img_2.jpg"}
    count, why = result.data_notes()
    assert count == "1 of 3 images skipped as bad (skip_bad)"
    assert "img_1.jpg" in why and "unknown category id 77" in why


def test_a_coco_source_survives_the_spec_file(tmp_path: Path) -> None:
    spec = _graph(coco_file(tmp_path), ltrb=True, polygon_masks=True)
    again = spec_io.loads(spec_io.dumps(spec))
    assert again == spec
    assert again.sources()[0].output_names() == (
        "images",
        "boxes",
        "labels",
        "polygons",
        "vertices",
    )


def test_a_companion_moves_the_boxes_with_its_image(tmp_path: Path, catalog: Catalog) -> None:
    """A coin shared by flip and bb_flip: the flipped images' boxes are the flipped boxes."""
    path = coco_file(tmp_path)
    base = _graph(path, ltrb=True, ratio=True)
    coin = Node("coin", "random.coin_flip", args={"probability": 0.5}, seed=11)
    boxes = Node(
        "bb_flip", "bb_flip", (Ref("source", 1),), {"horizontal": Ref("coin"), "ltrb": True}
    )
    spec = (
        base.insert_after(None, coin)
        .insert_after("decode", Node("flip", "flip", args={"horizontal": Ref("coin")}))
        .insert_after(None, boxes)
    )
    result = Session(spec, catalog=catalog).run()
    flips = [int(x) for x in result.arrays("coin")]
    before = result.annotations("decode")
    after = result.annotations("flip")
    assert before is not None and after is not None
    for flipped, old, new in zip(flips, before, after, strict=True):
        expected = old.boxes.copy()
        if flipped:
            expected[:, [0, 2]] = 128 - old.boxes[:, [2, 0]]
        np.testing.assert_allclose(new.boxes, expected, atol=0.01)
    assert set(flips) == {0, 1}, "the seed should flip some samples and not others"


def _bundled(**reader_args: Any) -> Source:
    return Source("source", "coco", None, shuffle=False, keypoints=True, reader_args=reader_args)


def test_keypoints_come_from_the_file_by_image_id(catalog: Catalog) -> None:
    """readers.coco reads no keypoints: the source looks them up by image id, and each sample
    gets its own image's keypoints (checked against the JSON, in pixels)."""
    data = json.loads(sample_annotations().read_text())
    by_file = {image["file_name"]: image["id"] for image in data["images"]}
    expected: dict[int, list[list[float]]] = {}
    for annotation in data["annotations"]:
        if annotation.get("keypoints"):
            expected.setdefault(annotation["image_id"], []).append(annotation["keypoints"])
    spec = chain(
        _bundled(ratio=True), ("decode", "decoders.image", {"output_type": "RGB"}), batch_size=8
    )
    session = Session(spec, catalog=catalog)
    checked = 0
    for _ in range(3):
        result = session.run()
        annotations = result.annotations("decode")
        assert annotations is not None
        for file, sample in zip(result.files(), annotations, strict=True):
            assert sample.keypoints is not None
            for row, values in enumerate(expected.get(by_file[file], [])):
                points = np.reshape(values, (-1, 3))
                np.testing.assert_allclose(sample.keypoints[row, : len(points)], points, atol=0.05)
                assert len(sample.skeletons[row]) > 0
                checked += 1
        session.next_batch()
    assert checked >= 3


def test_keypoints_flip_with_the_image(catalog: Catalog) -> None:
    coin = Node("coin", "random.coin_flip", args={"probability": 0.5}, seed=5)
    keypoints = _bundled(ratio=True).output_names().index("keypoints")
    points = Node("kp_flip", "coord_flip", (Ref("source", keypoints),), {"flip_x": Ref("coin")})
    spec = (
        chain(_bundled(ratio=True), ("decode", "decoders.image", {"output_type": "RGB"}))
        .insert_after(None, coin)
        .insert_after("decode", Node("flip", "flip", args={"horizontal": Ref("coin")}))
        .insert_after(None, points)
    )
    result = Session(spec, catalog=catalog).run()
    flips = [int(x) for x in result.arrays("coin")]
    before, after = result.annotations("decode"), result.annotations("flip")
    assert before is not None and after is not None
    widths = [image.shape[1] for image in result.arrays("decode")]
    for flipped, width, old, new in zip(flips, widths, before, after, strict=True):
        assert old.keypoints is not None and new.keypoints is not None
        expected = old.keypoints.copy()
        if flipped:
            expected[..., 0] = width - old.keypoints[..., 0]
        np.testing.assert_allclose(new.keypoints, expected, atol=0.05)
    assert set(flips) == {0, 1}


def test_statistics_count_objects_per_class(tmp_path: Path, catalog: Catalog) -> None:
    """Over an epoch of a COCO file, the label counts are the file's boxes, class by class."""
    from augexplorer.stats import collect_stats

    path = coco_file(tmp_path)
    stats = collect_stats(_graph(path), batches=1, device_id=None)
    (counts,) = stats.labels
    assert counts.per_box and counts.samples == 3
    assert counts.to_json()["columns"] == [{"square": 1, "round": 1}]
    assert "objects (source) square 1, round 1" in stats.summary()


def test_a_crop_after_a_flip_keeps_every_annotation_in_step(catalog: Catalog) -> None:
    """The crop's vertices read the flip's: they move with the crop, not the flip (whose coin
    random_bbox_crop reads only through the flipped boxes)."""
    from augexplorer.annotations import tracks_at
    from augexplorer.annotations.wiring import add_operator

    source = _bundled(ltrb=True, ratio=True, polygon_masks=True)
    graph = chain(source, ("decode", "decoders.image", {"output_type": "RGB"}))
    flipped = add_operator(graph, catalog, "flip")
    cropped = add_operator(flipped.spec, catalog, "random_bbox_crop", flipped.node_id)
    tracks = tracks_at(cropped.spec, cropped.node_id)
    assert tracks is not None and tracks.mismatched == {}
    flip_moved = set(tracks.companions[flipped.node_id])
    crop_moved = set(tracks.companions[cropped.node_id])
    assert flip_moved.isdisjoint(crop_moved)
    assert tracks.refs["vertices"].node in crop_moved
    assert tracks.refs["keypoints"].node in crop_moved


def test_a_graph_without_outputs_returns_the_sources_outputs_by_name(catalog: Catalog) -> None:
    from augexplorer.validate import validate

    graph = chain(_bundled(ratio=True), ("decode", "decoders.image", {}))
    plan = validate(dataclasses.replace(graph, outputs={}), catalog)
    names = _bundled().output_names()
    assert {name: ref.output for name, ref in plan.outputs.items() if name != "images"} == {
        name: index for index, name in enumerate(names) if index
    }
    assert plan.outputs["labels"].output == 2  # the labels, not the boxes
