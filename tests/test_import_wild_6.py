"""An eighth set of DALI code from the wild imports (tests/pipelines_wild_6.py): detection and
segmentation. Mask R-CNN's polygons, DALI's polygon crop with select_masks, pixel masks moved
with their images, foreground-centred crops drawn from the masks, EfficientDet's scale jitter,
RetinaNet's box_encoder, bbox_rotate, one affine draw for the image and its polygons, the ops
API's COCO reader, x, y, width, height boxes, a zoom-out under conditionals, an evaluation
pipeline, a mask flipped on a coin of its own, vertical flips of boxes and polygons, a letterbox
padded in crop_mirror_normalize. Each file's pipeline runs, in a Session and from
its exported module, to the arrays the file's own pipeline gives (two batches), and the module
reads back as the same graph. Boxes given to bb_flip in another layout than the reader gives
them, which DALI runs without an error, import as written and are said, naming the line and the
fix; int32 pixel masks resized as read, which DALI refuses, are refused with the cast to write."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from pipelines_wild_6 import (
    INT32_MASK_RESIZE,
    PIXEL_BOXES_FLIPPED,
    ROUND_TRIPS,
    XYWH_AS_LTRB,
    XYWH_CROPPED_AS_LTRB,
)
from wild_round_trips import (
    assert_module_gives_the_files_batches,
    assert_same,
    assert_session_gives_the_files_batches,
    first_batches,
    round_trips,
    run_up_to,
)

from augexplorer import Session
from augexplorer.annotations import tracks_at
from augexplorer.data import sample_annotations, samples_dir
from augexplorer.export.box_formats import BoxFormatMismatch
from augexplorer.export.importer import import_graph
from augexplorer.export.serialized import ImportRefused
from augexplorer.spec import Ref

# the old names of some of these files are expected here
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning:nvidia.dali.*")


def write(folder: Path, name: str, template: str) -> Path:
    path = folder / f"{name}.py"
    path.write_text(template.format(root=str(samples_dir()), annotations=str(sample_annotations())))
    return path


def original_batches(path: Path) -> list[list[list[np.ndarray]]]:
    """What the file's pipeline gives, made by the file's code (the whole file: it ends there)."""
    return first_batches(run_up_to(path, "pipe.build()")["pipe"])


@pytest.fixture(scope="module")
def wild(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Each file's round trip (tests/wild_round_trips.py)."""
    folder = tmp_path_factory.mktemp("wild6")
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
def test_each_file_imports_without_a_warning(wild: dict[str, Any], name: str) -> None:
    # its boxes read in the form the reader gives them (DALI's own warnings of old names aside)
    said = [w.message for w in wild[name].caught if w.category is not DeprecationWarning]
    assert said == []


def test_outputs_are_named_by_what_they_hold(wild: dict[str, Any]) -> None:
    names = {name: list(wild[name].graph.outputs) for name in ROUND_TRIPS}
    assert names["mask_rcnn"] == ["images", "boxes", "labels", "polygons", "vertices"]
    assert names["select_masks"] == ["images", "boxes", "labels", "polygons", "vertices"]
    assert names["pixel_masks"] == ["images", "masks"]
    assert names["retinanet"] == ["images", "boxes", "labels"]
    assert names["old_ops"] == ["images", "boxes", "labels", "image_ids"]
    assert names["vertical"] == ["images", "boxes", "labels", "polygons", "vertices"]
    # the masks cut where the image is, and the pixel drawn from the masks, which places the
    # crop but moves no mask: not "masks"
    assert names["object_crop"] == ["images", "masks"]
    assert names["mask_pixel"] == ["images", "masks", "output_2"]


def test_a_pixel_drawn_from_the_masks_is_no_mask_moved_with_the_image(
    wild: dict[str, Any],
) -> None:
    graph = wild["mask_pixel"].graph
    tracks = tracks_at(graph, graph.outputs["images"].node)
    assert tracks is not None
    assert tracks.refs["masks"] == graph.outputs["masks"]  # the mask's own slice
    drawn = graph.outputs["output_2"]
    assert graph.node(drawn.node).op == "segmentation.random_mask_pixel"


def test_a_coin_shared_by_image_and_mask_stays_one_and_two_coins_stay_two(
    wild: dict[str, Any],
) -> None:
    def coins(name: str) -> list[str]:
        graph = wild[name].graph
        return [n.id for n in graph.operators() if n.op == "random.coin_flip"]

    assert len(coins("pixel_masks")) == 1
    flips = [n for n in wild["pixel_masks"].graph.operators() if n.op == "flip"]
    assert len({n.args["horizontal"] for n in flips}) == 1
    assert len(coins("separate_coins")) == 2
    # and the two coins differ on some sample, as the file's do: a mask flipped alone, which
    # the panel says at the image's flip
    session = Session(wild["separate_coins"].graph, device_id=None)
    results = (session.run(), session.next_batch())
    draws = [
        np.concatenate([result.arrays(Ref(coin)) for result in results])
        for coin in coins("separate_coins")
    ]
    assert (draws[0] != draws[1]).any()
    masks = results[0].overlay_states("flip")["masks"]
    assert masks.left_behind and masks.reason == "masks are not flipped by 'flip': add them"


# ---- boxes in another layout than the reader gives ------------------------------------------


FLIPPED = (
    "fn.bb_flip at line 15 of {path} in {function}() "
    "(`bboxes = fn.bb_flip(bboxes, horizontal=flip, ltrb=True)`)"
)
CROPPED = (
    "fn.random_bbox_crop at line 12 of {path} in default_layout_pipe() "
    "(`crop_begin, crop_size, bboxes, labels = fn.random_bbox_crop(`)"
)
WRONG_LAYOUTS = {
    "x, y, width, height flipped as ltrb": (
        XYWH_AS_LTRB,
        FLIPPED.replace("{function}", "wrong_layout_pipe"),
        "it reads the boxes with ltrb=True as left, top, right, bottom, but fn.readers.coco at "
        "line 9 gives them as x, y, width, height, so the boxes it gives are off their objects",
        "fix: ltrb=True on fn.readers.coco, or ltrb=False on fn.bb_flip",
    ),
    "boxes in pixels flipped": (
        PIXEL_BOXES_FLIPPED,
        FLIPPED.replace("{function}", "pixel_boxes_pipe"),
        "it reads boxes in 0-1 units of the image, but fn.readers.coco at line 9 gives them in "
        "pixels (no ratio=True), so the boxes it gives are off their objects",
        "fix: ratio=True on fn.readers.coco",
    ),
    "x, y, width, height cropped with the crop's default": (
        XYWH_CROPPED_AS_LTRB,
        CROPPED,
        "it reads the boxes with ltrb=True (its default) as left, top, right, bottom",
        'fix: ltrb=True on fn.readers.coco, or bbox_layout="xyWH" on fn.random_bbox_crop',
    ),
}


@pytest.mark.parametrize("case", WRONG_LAYOUTS, ids=list(WRONG_LAYOUTS))
def test_boxes_in_another_layout_than_the_reader_gives_are_said_with_the_line(
    tmp_path: Path, case: str
) -> None:
    template, call, what, fix = WRONG_LAYOUTS[case]
    path = write(tmp_path, "wrong_layout", template)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        graph = import_graph(path, run_file=True)
    said = [str(w.message) for w in caught if w.category is BoxFormatMismatch]
    assert len(said) == 1
    assert said[0].startswith(call.format(path=path) + ": ")
    assert what in said[0] and fix in said[0]
    # DALI runs it without an error, boxes off their objects; the graph runs it as written
    original = original_batches(path)
    result = Session(graph, device_id=None).run()
    assert_same(result.arrays(graph.outputs["boxes"]), original[0][1], case)


# ---- pixel masks resized as the reader gives them ---------------------------------------------


def test_int32_masks_resized_as_read_are_refused_with_the_cast_to_write(tmp_path: Path) -> None:
    path = write(tmp_path, "int_masks", INT32_MASK_RESIZE)
    with pytest.raises(ImportRefused) as refused:
        import_graph(path, run_file=True)
    said = str(refused.value)
    assert "fn.resize at line 15 of" in said
    assert "(`masks = fn.resize(masks, size=[48, 48], interp_type=types.INTERP_NN)`)" in said
    assert "pixel masks as the reader gives them, int32 class ids" in said
    assert "(fix: cast the masks first, masks = fn.cast(masks, dtype=types.UINT8)" in said
    # DALI itself fails the file's first batch
    with pytest.raises(RuntimeError, match="Unsupported type: int32"):
        original_batches(path)
    # cast first, as the fix says, it imports
    fixed = write(
        tmp_path,
        "cast_masks",
        INT32_MASK_RESIZE.replace(
            "    masks = fn.flip(",
            "    masks = fn.cast(masks, dtype=types.UINT8)\n    masks = fn.flip(",
        ),
    )
    graph = import_graph(fixed, run_file=True)
    assert [n.op for n in graph.operators() if n.op in ("cast", "resize")] == [
        "resize",
        "cast",
        "resize",
    ]
