"""The bundled annotated samples (``augexplorer/samples/annotations.json``): the file agrees with
itself (boxes enclose polygons, keypoints inside their image), with its generator, and with what
DALI's ``readers.coco`` reads from it on the CPU."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest
from nvidia.dali import fn, pipeline_def
from PIL import Image, ImageDraw

from augexplorer.data import sample_annotations, samples_dir
from augexplorer.samples import annotations_source, make_samples

DOC: dict[str, Any] = json.loads(sample_annotations().read_text(encoding="utf-8"))
IMAGES = {im["id"]: im for im in DOC["images"]}
CATEGORIES = {c["id"]: c for c in DOC["categories"]}
# DALI numbers the categories 1..N in the file's order unless avoid_class_remapping is set.
REMAPPED = {c["id"]: i for i, c in enumerate(DOC["categories"], start=1)}
ANNOTATED = sorted({a["image_id"] for a in DOC["annotations"]})


def annotations_of(image_id: int) -> list[dict[str, Any]]:
    return [a for a in DOC["annotations"] if a["image_id"] == image_id]


def points_of(flat: list[float]) -> np.ndarray:
    return np.asarray(flat, dtype=np.float64).reshape(-1, 2)


def read_coco(batch_size: int, **reader_args: Any) -> list[list[np.ndarray]]:
    """One batch of ``fn.readers.coco`` over the bundled samples, every output as numpy per
    sample; the last output is the image ids."""

    @pipeline_def(batch_size=batch_size, num_threads=1, device_id=None, seed=7)
    def coco_pipeline() -> tuple[Any, ...]:
        outputs = fn.readers.coco(
            file_root=str(samples_dir()),
            annotations_file=str(sample_annotations()),
            image_ids=True,
            random_shuffle=False,
            name="Reader",
            **reader_args,
        )
        return tuple(outputs)

    pipe = coco_pipeline()
    pipe.build()
    epoch = pipe.epoch_size("Reader")
    assert epoch == batch_size, f"the reader sees {epoch} images, the test expected {batch_size}"
    return [[np.array(sample) for sample in out] for out in pipe.run()]


def test_the_generator_writes_the_shipped_file() -> None:
    rebuilt = annotations_source.build_coco(make_samples.TILES, samples_dir())
    assert annotations_source.dumps(rebuilt) == sample_annotations().read_text(encoding="utf-8")


def test_every_sample_photo_is_listed_and_some_on_purpose_have_nothing() -> None:
    listed = {im["file_name"]: im for im in DOC["images"]}
    on_disk = sorted(f"{p.parent.name}/{p.name}" for p in samples_dir().glob("*/*.jpg"))
    assert sorted(listed) == on_disk
    for name, image in listed.items():
        with Image.open(samples_dir() / name) as img:
            assert img.size == (image["width"], image["height"]), name
    assert len(ANNOTATED) >= 10
    assert len(DOC["images"]) - len(ANNOTATED) >= 3  # so skip_empty changes what is read
    per_image = [len(annotations_of(i)) for i in ANNOTATED]
    assert min(per_image) >= 1 and max(per_image) <= 4
    assert 4 <= len(CATEGORIES) <= 6
    assert {a["category_id"] for a in DOC["annotations"]} == set(CATEGORIES)
    assert any(c.get("keypoints") and c.get("skeleton") for c in CATEGORIES.values())


def test_boxes_areas_polygons_and_keypoints_agree_and_stay_inside_their_images() -> None:
    ids = [a["id"] for a in DOC["annotations"]]
    assert len(ids) == len(set(ids))
    for ann in DOC["annotations"]:
        where = f"annotation {ann['id']}"
        image = IMAGES[ann["image_id"]]
        size = np.array([image["width"], image["height"]], dtype=np.float64)
        assert ann["category_id"] in CATEGORIES, where
        assert ann["iscrowd"] == 0, where
        polygons = [points_of(p) for p in ann["segmentation"]]
        assert polygons, where
        for poly in polygons:
            assert len(poly) >= 3, where
            assert (poly >= 0).all() and (poly <= size).all(), where
        every = np.concatenate(polygons)
        x, y, w, h = ann["bbox"]
        assert w > 0 and h > 0, where
        lo, hi = every.min(axis=0), every.max(axis=0)
        np.testing.assert_allclose([x, y, x + w, y + h], [*lo, *hi], atol=0.011, err_msg=where)
        shoelace = sum(
            abs(
                float(np.dot(p[:, 0], np.roll(p[:, 1], -1)) - np.dot(p[:, 1], np.roll(p[:, 0], -1)))
            )
            / 2
            for p in polygons
        )
        assert ann["area"] == pytest.approx(shoelace, abs=0.011), where
        names = CATEGORIES[ann["category_id"]].get("keypoints", [])
        if not names:
            assert "keypoints" not in ann, where
            continue
        kp = np.asarray(ann["keypoints"], dtype=np.float64).reshape(-1, 3)
        assert len(kp) == len(names), where
        assert set(kp[:, 2]) <= {0, 1, 2}, where
        labelled = kp[kp[:, 2] > 0]
        assert ann["num_keypoints"] == len(labelled) > 0, where
        assert (labelled[:, :2] >= 0).all() and (labelled[:, :2] <= size).all(), where
        assert (kp[kp[:, 2] == 0] == 0).all(), where


def test_dali_reads_boxes_labels_and_polygons_as_the_file_gives_them() -> None:
    images, boxes, labels, polygons, vertices, image_ids = read_coco(
        len(ANNOTATED), polygon_masks=True, ratio=True, ltrb=True, skip_empty=True
    )
    assert sorted(int(i.ravel()[0]) for i in image_ids) == ANNOTATED
    for k, image_id in enumerate(int(i.ravel()[0]) for i in image_ids):
        image = IMAGES[image_id]
        anns = annotations_of(image_id)
        wh = np.array([image["width"], image["height"]], dtype=np.float64)
        assert images[k].dtype == np.uint8 and images[k].size > 0  # the JPEG's bytes
        expected_boxes = [
            [x / wh[0], y / wh[1], (x + w) / wh[0], (y + h) / wh[1]]
            for x, y, w, h in (a["bbox"] for a in anns)
        ]
        np.testing.assert_allclose(boxes[k], expected_boxes, atol=1e-5, err_msg=image["file_name"])
        assert labels[k].ravel().tolist() == [REMAPPED[a["category_id"]] for a in anns]
        # polygons: one row per polygon, (object index, first vertex, one past the last vertex)
        rows: list[list[int]] = []
        expected_vertices: list[np.ndarray] = []
        for obj, ann in enumerate(anns):
            for flat in ann["segmentation"]:
                start = sum(len(v) for v in expected_vertices)
                pts = points_of(flat) / wh
                rows.append([obj, start, start + len(pts)])
                expected_vertices.append(pts)
        assert polygons[k].tolist() == rows, image["file_name"]
        np.testing.assert_allclose(
            vertices[k], np.concatenate(expected_vertices), atol=1e-5, err_msg=image["file_name"]
        )


def test_without_skip_empty_dali_reads_the_unannotated_photos_with_no_boxes() -> None:
    _, boxes, labels, image_ids = read_coco(len(DOC["images"]), ratio=True, ltrb=True)
    empty = {im["id"] for im in DOC["images"]} - set(ANNOTATED)
    seen_empty = set()
    for box, label, image_id in zip(boxes, labels, image_ids, strict=True):
        n = len(annotations_of(int(image_id.ravel()[0])))
        assert box.shape == (n, 4) and label.size == n
        if n == 0:
            seen_empty.add(int(image_id.ravel()[0]))
    assert seen_empty == empty


def test_avoid_class_remapping_keeps_the_file_s_category_ids() -> None:
    _, boxes, labels, image_ids = read_coco(
        len(ANNOTATED), skip_empty=True, avoid_class_remapping=True
    )
    for box, label, image_id in zip(boxes, labels, image_ids, strict=True):
        anns = annotations_of(int(image_id.ravel()[0]))
        assert label.ravel().tolist() == [a["category_id"] for a in anns]
        # without ratio/ltrb the boxes come back as the file's [x, y, w, h] pixels
        np.testing.assert_allclose(box, [a["bbox"] for a in anns], atol=1e-3)
    assert set(REMAPPED) != set(REMAPPED.values())  # the ids are not 1..N, so this test can fail


def test_pixelwise_masks_cover_the_polygons() -> None:
    _, _, labels, masks, image_ids = read_coco(
        len(ANNOTATED), pixelwise_masks=True, skip_empty=True
    )
    for label, mask, image_id in zip(labels, masks, image_ids, strict=True):
        image = IMAGES[int(image_id.ravel()[0])]
        assert mask.shape == (image["height"], image["width"], 1), image["file_name"]
        assert set(np.unique(mask)) <= {0, *label.ravel().tolist()}
        drawn = Image.new("1", (image["width"], image["height"]), 0)
        edges = Image.new("1", drawn.size, 0)  # where rasterisers may differ by a pixel
        for ann in annotations_of(image["id"]):
            for flat in ann["segmentation"]:
                outline = [(float(x), float(y)) for x, y in points_of(flat)]
                ImageDraw.Draw(drawn).polygon(outline, fill=1)
                ImageDraw.Draw(edges).line([*outline, outline[0]], fill=1, width=3)
        reference = np.asarray(drawn, dtype=bool)
        away_from_edges = ~np.asarray(edges, dtype=bool)
        read = mask[..., 0] > 0
        wrong = ((read != reference) & away_from_edges).sum()
        assert wrong == 0, f"{image['file_name']}: {wrong} pixels differ from the polygons"
