"""Geometry kept in step: an operator added to an annotated graph brings its companions, and the
boxes, polygon vertices, keypoints and masks after it equal a numpy reference computed from the
source's annotations and the draws the run recorded (coins, angles, crop windows, paste
positions, matrices)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from augexplorer import Random, Ref, Session, Source
from augexplorer.annotations import SampleAnnotations, tracks_at
from augexplorer.annotations.wiring import Added, add_operator, placement, with_ratio
from augexplorer.catalog import Catalog
from augexplorer.data import samples_dir
from augexplorer.engine import RunResult
from augexplorer.spec import GraphSpec, Node, chain

# Non-square photos of different sizes, so a mix-up of width and height shows.
PHOTOS = ("animal/cat.jpg", "food/espresso.jpg", "people/cameraman.jpg", "space/rocket_pad.jpg")
BATCH = 4
PIXELS = 1.0  # tolerance of coordinates, in pixels (DALI rounds canvas sizes to whole pixels)


def _write_coco(folder: Path) -> Path:
    """Two objects per photo, each a box and a four-point polygon inside it."""
    from PIL import Image

    images: list[dict[str, Any]] = []
    annotations: list[dict[str, Any]] = []
    for image_id, name in enumerate(PHOTOS, start=1):
        width, height = Image.open(samples_dir() / name).size
        images.append({"id": image_id, "file_name": name, "width": width, "height": height})
        for k in range(2):
            x, y = width * (0.1 + 0.4 * k), height * (0.15 + 0.35 * k)
            w, h = width * 0.35, height * 0.4
            polygon = [x, y, x + w, y + 0.2 * h, x + 0.7 * w, y + h, x + 0.1 * w, y + 0.8 * h]
            annotations.append(
                {
                    "id": len(annotations) + 1,
                    "image_id": image_id,
                    "category_id": 3 + k,
                    "bbox": [x, y, w, h],
                    "segmentation": [polygon],
                    "area": w * h,
                    "iscrowd": 0,
                }
            )
    categories = [{"id": 3, "name": "near"}, {"id": 4, "name": "far"}]
    path = folder / "annotations.json"
    path.write_text(
        json.dumps({"images": images, "annotations": annotations, "categories": categories})
    )
    return path


@pytest.fixture(scope="module")
def coco(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _write_coco(tmp_path_factory.mktemp("geometry"))


def _graph(coco: Path, *, masks: bool = False, ratio: bool = True) -> GraphSpec:
    reader_args: dict[str, Any] = {"ltrb": True, "ratio": ratio}
    reader_args["pixelwise_masks" if masks else "polygon_masks"] = True
    source = Source(
        "source", "coco", str(coco), file_root=str(samples_dir()), shuffle=False,
        reader_args=reader_args,
    )  # fmt: skip
    return chain(source, ("decode", "decoders.image", {"output_type": "RGB"}), batch_size=BATCH)


def _wired(
    coco: Path, catalog: Catalog, op: str, args: dict[str, Any], *, masks: bool = False
) -> tuple[Added, RunResult]:
    added = add_operator(_graph(coco, masks=masks), catalog, op, "decode", args)
    return added, Session(added.spec, catalog=catalog, device_id=None).run()


def _before_after(
    result: RunResult, node: str
) -> tuple[list[SampleAnnotations], list[SampleAnnotations]]:
    before, after = result.annotations("decode"), result.annotations(node)
    assert before is not None and after is not None
    return before, after


def _size(result: RunResult, node: str, sample: int) -> np.ndarray:
    """(width, height) of a sample's image at `node`."""
    height, width = result.arrays(node)[sample].shape[:2]
    return np.array([width, height], np.float64)


def _boxes_of(corners: np.ndarray) -> np.ndarray:
    """(N, 4, 2) corner points -> (N, 4) boxes enclosing them."""
    return np.concatenate([corners.min(axis=1), corners.max(axis=1)], axis=1)


def _corners(boxes: np.ndarray) -> np.ndarray:
    left, top, right, bottom = boxes.T
    return np.stack(
        [np.stack(p, axis=1) for p in ((left, top), (right, top), (left, bottom), (right, bottom))],
        axis=1,
    )


def _assert_points(got: SampleAnnotations, boxes: np.ndarray, polygons: list[np.ndarray]) -> None:
    np.testing.assert_allclose(got.boxes, boxes, atol=PIXELS)
    assert len(got.polygons) == len(polygons)
    for mine, want in zip(got.polygons, polygons, strict=True):
        np.testing.assert_allclose(mine, want, atol=PIXELS)


# ---- flip -------------------------------------------------------------------------------------
@pytest.mark.parametrize("axis", ["horizontal", "vertical"])
def test_flip_moves_boxes_and_polygons_on_the_images_coin(
    coco: Path, catalog: Catalog, axis: str
) -> None:
    args = {"horizontal": 1} if axis == "horizontal" else {"horizontal": 0, "vertical": 1}
    added, result = _wired(coco, catalog, "flip", args)
    coin = added.spec.node("flip").args[axis]
    assert isinstance(coin, Ref) and added.spec.node(coin.node).op == "random.coin_flip"
    for companion, op in (("flip_boxes", "bb_flip"), ("flip_vertices", "coord_flip")):
        assert added.spec.node(companion).op == op
    assert added.spec.outputs["boxes"] == Ref("flip_boxes")
    coins = [int(c) for c in result.arrays(coin)]
    assert 0 < sum(coins) < BATCH, "the seed should flip some samples and not others"
    before, after = _before_after(result, "flip")
    column = 0 if axis == "horizontal" else 1
    for i, (was, now) in enumerate(zip(before, after, strict=True)):
        size = _size(result, "decode", i)
        image = result.arrays("decode")[i]
        flipped = np.flip(image, axis=1 - column) if coins[i] else image
        np.testing.assert_array_equal(result.arrays("flip")[i], flipped)
        corners, polygons = _corners(was.boxes.astype(np.float64)), list(was.polygons)
        if coins[i]:
            corners[..., column] = size[column] - corners[..., column]
            polygons = [p.copy() for p in polygons]
            for p in polygons:
                p[:, column] = size[column] - p[:, column]
        _assert_points(now, _boxes_of(corners), polygons)


@pytest.mark.parametrize("masks", [False, True], ids=["polygons", "masks"])
def test_crop_mirror_normalize_mirrors_annotations_on_its_coin(
    coco: Path, catalog: Catalog, masks: bool
) -> None:
    args = {"mirror": 1, "mean": [0.0, 0.0, 0.0], "std": [255.0, 255.0, 255.0]}
    added, result = _wired(coco, catalog, "crop_mirror_normalize", args, masks=masks)
    coin = added.spec.node("crop_mirror_normalize").args["mirror"]
    assert isinstance(coin, Ref) and added.spec.node(coin.node).op == "random.coin_flip"
    assert "coin" in added.note
    tracks = tracks_at(added.spec, "crop_mirror_normalize") or _none()
    assert tracks.mismatched == {}
    coins = [int(c) for c in result.arrays(coin)]
    assert 0 < sum(coins) < BATCH, "the seed should mirror some samples and not others"
    before, after = _before_after(result, "crop_mirror_normalize")
    for i, (was, now) in enumerate(zip(before, after, strict=True)):
        image = result.arrays("decode")[i]
        mirrored = image[:, ::-1] if coins[i] else image
        got = np.transpose(result.arrays("crop_mirror_normalize")[i], (1, 2, 0))  # CHW
        np.testing.assert_allclose(got * 255.0, mirrored, atol=1e-3)
        if masks:
            assert was.mask is not None and now.mask is not None
            want = was.mask[:, ::-1] if coins[i] else was.mask
            np.testing.assert_array_equal(now.mask, want)
            continue
        width = _size(result, "decode", i)[0]
        corners, polygons = _corners(was.boxes.astype(np.float64)), [p.copy() for p in was.polygons]
        if coins[i]:
            corners[..., 0] = width - corners[..., 0]
            for p in polygons:
                p[:, 0] = width - p[:, 0]
        _assert_points(now, _boxes_of(corners), polygons)


def test_crop_mirror_normalize_cropping_says_the_annotations_stay(
    coco: Path, catalog: Catalog
) -> None:
    args = {"mirror": 1, "crop": [100.0, 100.0]}
    added = add_operator(_graph(coco), catalog, "crop_mirror_normalize", "decode", args)
    assert "no longer match" in added.note and "random_bbox_crop" in added.note
    # and the graph keeps saying so: its bb_flip follows the mirror, nothing follows the crop
    tracks = tracks_at(added.spec, "crop_mirror_normalize") or _none()
    assert "boxes" in tracks.mismatched["crop_mirror_normalize"]
    mirror_only = add_operator(
        _graph(coco), catalog, "crop_mirror_normalize", "decode", {"mirror": 1}
    )
    assert (tracks_at(mirror_only.spec, "crop_mirror_normalize") or _none()).mismatched == {}
    plain = add_operator(_graph(coco), catalog, "crop_mirror_normalize", "decode", {})
    assert plain.added == () and plain.note == ""  # no mirror, no crop: nothing moves


# ---- random_bbox_crop + slice -----------------------------------------------------------------
def test_random_bbox_crop_drives_the_image_crop_and_the_polygons(
    coco: Path, catalog: Catalog
) -> None:
    added, result = _wired(coco, catalog, "random_bbox_crop", {})
    crop = added.spec.node(added.node_id)
    assert crop.op == "slice" and crop.inputs[1:] == (
        Ref("random_bbox_crop", 0),
        Ref("random_bbox_crop", 1),
    )
    before, after = _before_after(result, crop.id)
    anchors = result.arrays(Ref("random_bbox_crop", 0))
    shapes = result.arrays(Ref("random_bbox_crop", 1))
    kept = result.arrays(Ref("random_bbox_crop", 4))
    cropped_some = False
    for i, (was, now) in enumerate(zip(before, after, strict=True)):
        size_in, size_out = _size(result, "decode", i), _size(result, crop.id, i)
        anchor, shape = anchors[i].astype(np.float64), shapes[i].astype(np.float64)
        cropped_some |= bool(np.any(shape < 1))

        def moved(points: np.ndarray, a: np.ndarray = anchor, s: np.ndarray = shape) -> Any:
            return ((points / size_in - a) / s) * size_out  # noqa: B023

        indices = [int(k) for k in np.asarray(kept[i]).reshape(-1)]
        boxes = _boxes_of(np.clip(moved(_corners(was.boxes[indices])), 0, size_out))
        polygons = [moved(was.polygons[was.polygon_masks.index(k)]) for k in indices]
        _assert_points(now, boxes, polygons)
        assert list(now.labels) == [int(was.labels[k]) for k in indices]
        assert list(now.polygon_masks) == list(range(len(indices)))  # one per box kept
    assert cropped_some, "the seed should crop at least one sample"


# ---- resize -----------------------------------------------------------------------------------
def test_resize_needs_no_companion_for_ratio_coordinates(coco: Path, catalog: Catalog) -> None:
    added, result = _wired(coco, catalog, "resize", {"resize_x": 200.0, "resize_y": 120.0})
    assert added.added == ()
    before, after = _before_after(result, "resize")
    for i, (was, now) in enumerate(zip(before, after, strict=True)):
        scale = _size(result, "resize", i) / _size(result, "decode", i)
        polygons = [p * scale for p in was.polygons]
        _assert_points(now, was.boxes * np.tile(scale, 2), polygons)


# ---- rotate -----------------------------------------------------------------------------------
def _rotated(points: np.ndarray, angle: float, size_in: np.ndarray, size_out: np.ndarray) -> Any:
    """Pixel points turned `angle` degrees counter-clockwise (as fn.rotate turns the image)
    about the image's centre, on the output canvas."""
    turn = np.deg2rad(angle)
    cos, sin = np.cos(turn), np.sin(turn)
    centred = points - size_in / 2
    x, y = centred[..., 0], centred[..., 1]
    return np.stack([cos * x + sin * y, -sin * x + cos * y], axis=-1) + size_out / 2


@pytest.mark.parametrize(
    "angle", [90.0, Random.uniform(-40.0, 40.0, seed=5)], ids=["by-90", "any-angle"]
)
def test_rotate_moves_boxes_with_bbox_rotate_and_polygons_with_coord_transform(
    coco: Path, catalog: Catalog, angle: Any
) -> None:
    added, result = _wired(coco, catalog, "rotate", {"angle": angle})
    shared = added.spec.node("rotate").args["angle"]
    assert isinstance(shared, Ref)
    assert added.spec.node("rotate_boxes").op == "bbox_rotate"
    assert added.spec.node("rotate_boxes").args["angle"] == shared
    angles = [float(a) for a in result.arrays(shared)]
    before, after = _before_after(result, "rotate")
    for i, (was, now) in enumerate(zip(before, after, strict=True)):
        size_in, size_out = _size(result, "decode", i), _size(result, "rotate", i)
        if angle == 90.0:  # the canvas turns too
            np.testing.assert_array_equal(size_out, size_in[::-1])
        corners = _rotated(_corners(was.boxes), angles[i], size_in, size_out)
        polygons = [_rotated(p, angles[i], size_in, size_out) for p in was.polygons]
        _assert_points(now, _boxes_of(corners), polygons)


def test_rotate_keep_size_clips_boxes_and_turns_polygons_on_the_same_canvas(
    coco: Path, catalog: Catalog
) -> None:
    """keep_size=True: the canvas stays, boxes are clipped to it (bbox_rotate drops those with
    less than remove_threshold, 0.1, of their area left, and their labels) and polygons turn
    about the centre without clipping."""
    angle = Random.uniform(-60.0, 60.0, seed=11)
    added, result = _wired(coco, catalog, "rotate", {"angle": angle, "keep_size": True})
    assert added.spec.node("rotate_boxes").args["keep_size"] is True
    angles = [float(a) for a in result.arrays(added.spec.node("rotate").args["angle"])]
    before, after = _before_after(result, "rotate")
    clipped = 0
    for i, (was, now) in enumerate(zip(before, after, strict=True)):
        size = _size(result, "decode", i)
        np.testing.assert_array_equal(_size(result, "rotate", i), size)
        whole = _boxes_of(_rotated(_corners(was.boxes), angles[i], size, size))
        inside = np.clip(whole, 0, np.tile(size, 2))
        area = np.prod(whole[:, 2:] - whole[:, :2], axis=1)
        left = np.prod(np.maximum(inside[:, 2:] - inside[:, :2], 0), axis=1)
        kept = left / area >= 0.1
        clipped += int(np.any(np.abs(inside - whole) > PIXELS))
        polygons = [_rotated(p, angles[i], size, size) for p in was.polygons]
        np.testing.assert_allclose(now.boxes, inside[kept], atol=PIXELS)
        assert list(now.labels) == list(was.labels[kept])
        for mine, want in zip(now.polygons, polygons, strict=True):
            np.testing.assert_allclose(mine, want, atol=PIXELS)
    assert clipped > 0, "the seed should turn some box partly off the canvas"


def test_rotate_onto_a_canvas_of_given_size_moves_boxes_and_polygons(
    coco: Path, catalog: Catalog
) -> None:
    """rotate's `size` goes to bbox_rotate too (its boxes are in ratio to that canvas)."""
    angle = Random.uniform(-30.0, 30.0, seed=4)
    added, result = _wired(coco, catalog, "rotate", {"angle": angle, "size": [500.0, 700.0]})
    assert added.spec.node("rotate_boxes").args["size"] == [500.0, 700.0]
    angles = [float(a) for a in result.arrays(added.spec.node("rotate").args["angle"])]
    before, after = _before_after(result, "rotate")
    for i, (was, now) in enumerate(zip(before, after, strict=True)):
        size_in, size_out = _size(result, "decode", i), _size(result, "rotate", i)
        np.testing.assert_array_equal(size_out, [700, 500])  # size is (height, width)
        corners = _rotated(_corners(was.boxes), angles[i], size_in, size_out)
        polygons = [_rotated(p, angles[i], size_in, size_out) for p in was.polygons]
        _assert_points(now, _boxes_of(corners), polygons)


# ---- warp_affine ------------------------------------------------------------------------------
def test_warp_affine_moves_polygons_by_its_transforms_matrix(coco: Path, catalog: Catalog) -> None:
    spec = _graph(coco)
    turn = Node(
        "turn",
        "transforms.rotation",
        args={"angle": Random.uniform(-30.0, 30.0, seed=3), "center": [120.0, 90.0]},
    )
    spec = spec.insert_after(None, turn, rewire=False)
    added = add_operator(spec, catalog, "warp_affine", "decode", {"matrix": Ref("turn")})
    assert added.spec.node("warp_affine").args["inverse_map"] is False
    assert "no longer match" not in added.note
    tracks = tracks_at(added.spec, "warp_affine") or _none()
    assert tracks.mismatched == {} and tracks.refs["boxes"] == Ref("warp_affine_boxes")
    assert added.spec.node("warp_affine_boxes").op == "coord_transform"
    result = Session(added.spec, catalog=catalog, device_id=None).run()
    before, after = _before_after(result, "warp_affine")
    for i, (was, now) in enumerate(zip(before, after, strict=True)):
        matrix = np.asarray(result.arrays("turn")[i], np.float64).reshape(2, 3)
        assert len(now.polygons) == len(was.polygons)
        for mine, want in zip(now.polygons, was.polygons, strict=True):
            np.testing.assert_allclose(mine, _affine(want, matrix), atol=0.05)
        # boxes: the boxes enclosing each box's four corners, moved (not clipped)
        np.testing.assert_allclose(now.boxes, _boxes_of(_affine(_corners(was.boxes), matrix)),
                                   atol=0.05)  # fmt: skip
        assert list(now.labels) == list(was.labels)


def _affine(points: np.ndarray, matrix: np.ndarray) -> Any:
    """Pixel points mapped forward by a 2x3 matrix."""
    return points @ matrix[:, :2].T + matrix[:, 2]


@pytest.mark.parametrize("ltrb", [True, False], ids=["ltrb", "xywh"])
def test_warp_affine_moves_boxes_in_either_layout_and_in_pixels(
    coco: Path, catalog: Catalog, ltrb: bool
) -> None:
    """A shear and shift (a constant matrix): each box becomes the box around its moved corners,
    whether the source reads ltrb or xywh, in ratio or (for ltrb) in pixels."""
    for ratio in (True, False) if ltrb else (True,):
        spec = _graph(coco, ratio=ratio).set_reader_arg("source", "ltrb", ltrb)
        matrix = [0.9, 0.3, -20.0, -0.2, 1.1, 15.0]
        added = add_operator(spec, catalog, "warp_affine", "decode", {"matrix": matrix})
        tracks = tracks_at(added.spec, "warp_affine") or _none()
        assert "boxes" not in tracks.mismatched.get("warp_affine", "")
        assert tracks.refs["boxes"] == Ref("warp_affine_boxes")
        result = Session(added.spec, catalog=catalog, device_id=None).run()
        before, after = _before_after(result, "warp_affine")
        forward = np.asarray(matrix, np.float64).reshape(2, 3)
        for was, now in zip(before, after, strict=True):
            want = _boxes_of(_affine(_corners(was.boxes.astype(np.float64)), forward))
            np.testing.assert_allclose(now.boxes, want, atol=0.05, err_msg=f"ratio={ratio}")


def _none() -> Any:
    raise AssertionError("no tracks")


# ---- paste ------------------------------------------------------------------------------------
def test_paste_moves_boxes_with_bbox_paste_on_the_same_draws(coco: Path, catalog: Catalog) -> None:
    args = {
        "ratio": Random.uniform(1.2, 2.0, seed=1),
        "paste_x": Random.uniform(0.0, 1.0, seed=2),
        "paste_y": Random.uniform(0.0, 1.0, seed=3),
        "fill_value": [0, 0, 0],
    }
    added, result = _wired(coco, catalog, "paste", args)
    node = added.spec.node("paste")
    assert added.spec.node("paste_boxes").args["ratio"] == node.args["ratio"]
    draws = {name: result.arrays(node.args[name]) for name in ("ratio", "paste_x", "paste_y")}
    before, after = _before_after(result, "paste")
    for i, (was, now) in enumerate(zip(before, after, strict=True)):
        size_in, size_out = _size(result, "decode", i), _size(result, "paste", i)
        ratio = float(draws["ratio"][i])
        where = np.array([float(draws["paste_x"][i]), float(draws["paste_y"][i])])

        def pasted(points: np.ndarray, r: float = ratio, p: np.ndarray = where) -> Any:
            return (points / size_in / r + p * (r - 1) / r) * size_out  # noqa: B023

        _assert_points(now, pasted(was.boxes.reshape(-1, 2)).reshape(-1, 4), [
            pasted(p) for p in was.polygons
        ])  # fmt: skip


# ---- keypoints --------------------------------------------------------------------------------
KEYPOINT_CASES: dict[str, tuple[str, dict[str, Any]]] = {
    "flip-horizontal": ("flip", {"horizontal": 1}),
    "flip-vertical": ("flip", {"horizontal": 0, "vertical": 1}),
    "random_bbox_crop": ("random_bbox_crop", {}),
    "resize": ("resize", {"resize_x": 200.0, "resize_y": 120.0}),
    "rotate-by-90": ("rotate", {"angle": 90.0}),
    "rotate-any-angle": ("rotate", {"angle": Random.uniform(-40.0, 40.0, seed=5)}),
    "warp_affine": ("warp_affine", {"matrix": [0.9, 0.3, -20.0, -0.2, 1.1, 15.0]}),
    "paste": (
        "paste",
        {
            "ratio": Random.uniform(1.2, 2.0, seed=1),
            "paste_x": Random.uniform(0.0, 1.0, seed=2),
            "paste_y": Random.uniform(0.0, 1.0, seed=3),
            "fill_value": [0, 0, 0],
        },
    ),
}


def _moved(added: Added, result: RunResult, sample: int, points: np.ndarray) -> Any:
    """Pixel `points` of one sample where the operator `added` put the image's content, from
    the draws the run recorded."""
    node = added.spec.node(added.node_id)
    size_in, size_out = _size(result, "decode", sample), _size(result, node.id, sample)
    moved = points.astype(np.float64)
    if node.op == "flip":
        for column, axis in enumerate(("horizontal", "vertical")):
            coin = node.args.get(axis, 0)
            if isinstance(coin, Ref) and int(result.arrays(coin)[sample]):
                moved[..., column] = size_in[column] - moved[..., column]
        return moved
    if node.op == "slice":  # random_bbox_crop's window, in ratio to the image
        anchor = result.arrays(Ref("random_bbox_crop", 0))[sample].astype(np.float64)
        shape = result.arrays(Ref("random_bbox_crop", 1))[sample].astype(np.float64)
        return (moved / size_in - anchor) / shape * size_out
    if node.op == "resize":
        return moved * size_out / size_in
    if node.op == "rotate":
        angle = float(result.arrays(node.args["angle"])[sample])
        return _rotated(moved, angle, size_in, size_out)
    if node.op == "warp_affine":
        matrix = np.asarray(result.arrays(node.args["matrix"])[sample], np.float64)
        return _affine(moved, matrix.reshape(2, 3))
    assert node.op == "paste", node.op
    ratio = float(result.arrays(node.args["ratio"])[sample])
    where = np.array([float(result.arrays(node.args[k])[sample]) for k in ("paste_x", "paste_y")])
    return (moved / size_in / ratio + where * (ratio - 1) / ratio) * size_out


@pytest.fixture(scope="module")
def keypoint_graph() -> GraphSpec:
    """The bundled annotated samples (their first photos have keypoints) with keypoints."""
    source = Source(
        "source", "coco", shuffle=False, keypoints=True, reader_args={"ratio": True, "ltrb": True}
    )
    return chain(source, ("decode", "decoders.image", {"output_type": "RGB"}), batch_size=BATCH)


@pytest.mark.parametrize("case", list(KEYPOINT_CASES))
def test_keypoints_move_with_every_geometric_operator(
    keypoint_graph: GraphSpec, catalog: Catalog, case: str
) -> None:
    op, args = KEYPOINT_CASES[case]
    added = add_operator(keypoint_graph, catalog, op, "decode", args)
    tracks = tracks_at(added.spec, added.node_id) or _none()
    assert "keypoints" not in tracks.mismatched.get(added.node_id, "")
    if op != "resize":  # ratio coordinates need no companion through a resize
        assert tracks.refs["keypoints"].node in added.added  # a companion moved them
    result = Session(added.spec, catalog=catalog, device_id=None).run()
    before, after = result.annotations("decode"), result.annotations(added.node_id)
    assert before is not None and after is not None
    labelled = moved = 0
    for i, (was, now) in enumerate(zip(before, after, strict=True)):
        assert was.keypoints is not None and now.keypoints is not None
        assert now.keypoints.shape == was.keypoints.shape
        np.testing.assert_array_equal(now.keypoints[..., 2], was.keypoints[..., 2])
        seen = was.keypoints[..., 2] > 0
        labelled += int(seen.sum())
        want = _moved(added, result, i, was.keypoints[..., :2][seen])
        np.testing.assert_allclose(now.keypoints[..., :2][seen], want, atol=PIXELS)
        moved += int(np.any(np.abs(want - was.keypoints[..., :2][seen]) > PIXELS))
    assert labelled > 0, "the first samples should have labelled keypoints"
    assert moved > 0, "the seeds should move the keypoints of some sample"


# ---- masks ------------------------------------------------------------------------------------
def _iou(got: np.ndarray, want: np.ndarray) -> float:
    """The worst intersection over union of any label's region (0 is background)."""
    scores = []
    for label in np.unique(want[want > 0]):
        a, b = got == label, want == label
        scores.append(np.logical_and(a, b).sum() / np.logical_or(a, b).sum())
    assert scores, "the reference mask is empty"
    return float(min(scores))


def _sample(mask: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Nearest-neighbour look-up of source pixels at points (x, y), 0 outside."""
    height, width = mask.shape
    col, row = np.floor(x).astype(int), np.floor(y).astype(int)
    inside = (col >= 0) & (col < width) & (row >= 0) & (row < height)
    out = np.zeros(x.shape, mask.dtype)
    out[inside] = mask[row[inside], col[inside]]
    return out


def _grid(height: int, width: int) -> tuple[np.ndarray, np.ndarray]:
    rows, cols = np.mgrid[0:height, 0:width]
    return cols + 0.5, rows + 0.5  # pixel centres


@pytest.mark.parametrize("op", ["flip", "resize", "rotate"])
def test_masks_stay_aligned_with_their_images(coco: Path, catalog: Catalog, op: str) -> None:
    cases: dict[str, dict[str, Any]] = {
        "flip": {"horizontal": 1},
        "resize": {"resize_x": 200.0, "resize_y": 150.0},
        "rotate": {"angle": Random.uniform(-40.0, 40.0, seed=5)},
    }
    args = cases[op]
    added, result = _wired(coco, catalog, op, args, masks=True)
    node = added.spec.node(op)
    assert any(added.spec.node(n).args.get("interp_type") == "INTERP_NN" for n in added.added) or (
        op == "flip"
    )
    before, after = _before_after(result, op)
    for i, (was, now) in enumerate(zip(before, after, strict=True)):
        assert was.mask is not None and now.mask is not None
        source = was.mask.astype(np.int32)
        height, width = result.arrays(op)[i].shape[:2]
        assert now.mask.shape == (height, width)
        x, y = _grid(height, width)
        if op == "flip":
            flipped = bool(int(result.arrays(node.args["horizontal"])[i]))
            want = source[:, ::-1] if flipped else source
        elif op == "resize":
            want = _sample(source, x * source.shape[1] / width, y * source.shape[0] / height)
        else:
            angle = np.deg2rad(float(result.arrays(node.args["angle"])[i]))
            cos, sin = np.cos(angle), np.sin(angle)
            dx, dy = x - width / 2, y - height / 2  # back from the output to the source
            sx = cos * dx - sin * dy + source.shape[1] / 2
            sy = sin * dx + cos * dy + source.shape[0] / 2
            want = _sample(source, sx, sy)
        assert _iou(now.mask.astype(np.int32), want) >= 0.99


# ---- what cannot follow, and pixel coordinates -------------------------------------------------
def test_an_operator_with_no_safe_form_says_so_and_the_tracks_name_it(
    coco: Path, catalog: Catalog
) -> None:
    added = add_operator(_graph(coco), catalog, "water", "decode", {})
    assert "no longer match" in added.note and "water" in added.note
    tracks = tracks_at(added.spec, "water")
    assert tracks is not None and "boxes" in tracks.mismatched["water"]
    colour = add_operator(_graph(coco), catalog, "brightness", "decode", {"brightness": 1.2})
    assert colour.note == "" and colour.added == ()
    colour_tracks = tracks_at(colour.spec, "brightness")
    assert colour_tracks is not None and colour_tracks.mismatched == {}


def test_pixel_coordinates_are_named_with_the_fix(coco: Path, catalog: Catalog) -> None:
    spec = _graph(coco, ratio=False)
    added = add_operator(spec, catalog, "flip", "decode", {"horizontal": 1})
    assert "ratio=True" in added.note
    fixed = with_ratio(added.spec)
    assert fixed.sources()[0].reader_args["ratio"] is True


def test_random_bbox_crop_is_offered_only_where_there_are_boxes(
    coco: Path, catalog: Catalog
) -> None:
    assert placement(_graph(coco), catalog, "random_bbox_crop", "decode").ok
    plain = chain(Source("source"), ("decode", "decoders.image", {}))
    refused = placement(plain, catalog, "random_bbox_crop", "decode")
    assert not refused.ok and "COCO" in str(refused.reason)


def test_the_panel_adds_operators_with_their_companions_and_says_so(
    coco: Path, catalog: Catalog
) -> None:
    from augexplorer_widgets.state import Controller

    session = Session(_graph(coco), catalog=catalog, device_id=None)
    controller = Controller(session, rng_seed=1)
    assert controller.placement("random_bbox_crop", "decode").ok
    state = controller.add_op("random_bbox_crop", "decode")
    assert state.ok and state.selected == "crop"
    state = controller.add_op("flip", "crop")
    assert state.ok and state.selected == "flip"
    assert "coin" in controller.last_note
    assert state.history[-1].label.startswith("added flip after crop with ")
    tracks = tracks_at(state.spec, "flip")
    assert tracks is not None
    assert tracks.refs["boxes"] == Ref("flip_boxes") and tracks.mismatched == {}
    assert state.spec.node("flip_boxes").inputs == (Ref("random_bbox_crop", 2),)
    annotations = state.result.annotations("flip") if state.result else None
    assert annotations is not None and len(annotations) == BATCH
    controller.add_op("water", "flip")
    assert "no longer match" in controller.last_note


def _touching(boxes: np.ndarray, size: np.ndarray) -> int:
    ratio = boxes / np.tile(size, 2)
    low, high = (ratio[:, :2] <= 1e-4).any(axis=1), (ratio[:, 2:] >= 1 - 1e-4).any(axis=1)
    return int(np.count_nonzero(low | high))


def test_statistics_count_boxes_in_out_and_clipped_per_geometric_node(
    coco: Path, catalog: Catalog
) -> None:
    from augexplorer.stats import collect_stats

    spec = add_operator(_graph(coco), catalog, "random_bbox_crop", "decode", {}).spec
    spec = add_operator(spec, catalog, "flip", "crop", {"horizontal": 1}).spec
    stats = collect_stats(spec, batches=1, device_id=None, num_threads=1)
    flows = {flow.node: flow for flow in stats.boxes}
    assert set(flows) == {"crop", "flip"}  # the decoder and the coin move no boxes
    # the statistics' first batch is the session's: count it from the annotations
    result = Session(spec, catalog=catalog, device_id=None).run()
    before, cropped = _before_after(result, "crop")
    flipped = result.annotations("flip")
    assert flipped is not None
    crop = flows["crop"]
    assert crop.samples == BATCH
    assert crop.boxes_in == sum(len(a.boxes) for a in before) == 2 * BATCH
    assert crop.boxes_out == sum(len(a.boxes) for a in cropped)
    clipped = [
        _touching(a.boxes, _size(result, "crop", i))
        - _touching(b.boxes, _size(result, "decode", i))
        for i, (a, b) in enumerate(zip(cropped, before, strict=True))
    ]
    assert crop.clipped == sum(max(0, n) for n in clipped) > 0
    flip = flows["flip"]
    assert (flip.boxes_in, flip.boxes_out, flip.clipped) == (crop.boxes_out, crop.boxes_out, 0)
    assert "boxes through crop (slice)" in stats.summary()
    assert stats.to_json()["boxes"][0]["node"] == "crop"


# ---- export and import ------------------------------------------------------------------------
WIRED: dict[str, dict[str, Any]] = {
    "flip": {"horizontal": 1},
    "random_bbox_crop": {},
    "resize": {"resize_shorter": 160.0},
    "rotate": {"angle": Random.uniform(-40.0, 40.0, seed=5)},
    "warp_affine": {"matrix": [1.0, 0.2, 0.0, 0.1, 1.0, 0.0]},
    "paste": {"ratio": 1.5, "fill_value": [0, 0, 0]},
    "crop_mirror_normalize": {"mirror": 1},
}


@pytest.fixture(scope="module")
def exported(
    coco: Path, catalog: Catalog, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, dict[str, Any]]:
    """Every wired graph (polygons and masks), exported and run by its module in one process."""
    from exported_runner import run_exported

    from augexplorer.export import export

    tmp = tmp_path_factory.mktemp("exported")
    found: dict[str, dict[str, Any]] = {}
    jobs = []
    for masks in (False, True):
        for op, args in WIRED.items():
            name = f"{op}_{'masks' if masks else 'polygons'}"
            spec = add_operator(_graph(coco, masks=masks), catalog, op, "decode", args).spec
            module = export(spec, tmp / f"{name}_aug.py")
            found[name] = {"spec": spec, "module": module}
            out = str(tmp / f"{name}.npz")
            jobs.append({"name": name, "module": str(module), "out": out, "batch_size": BATCH})
            jobs[-1]["device"] = "cpu"
    for name, saved in run_exported(jobs, tmp).items():
        found[name]["saved"] = saved
    return found


@pytest.mark.parametrize("masks", ["polygons", "masks"])
@pytest.mark.parametrize("op", list(WIRED))
def test_wired_graphs_export_and_import_bit_for_bit(
    exported: dict[str, dict[str, Any]], catalog: Catalog, op: str, masks: str
) -> None:
    from augexplorer.export.importer import import_graph

    case = exported[f"{op}_{masks}"]
    spec, saved = case["spec"], case["saved"]
    assert import_graph(case["module"]) == spec
    live = Session(spec, catalog=catalog, device_id=None).run()
    for index, ref in enumerate(live.plan.outputs.values()):
        for sample, want in enumerate(live.arrays(ref)):
            got = saved[f"{index}_{sample}"]
            assert got.dtype == want.dtype and got.shape == want.shape, (ref, sample)
            np.testing.assert_array_equal(got, want, err_msg=f"{op} {ref} #{sample}")
