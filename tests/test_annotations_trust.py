"""What the statistics and the overlay's notes say about annotations is what the graph does.

The segmentation preset on the panel's COCO source reads boxes but moves only its masks: its
crop, flip and rotate leave the boxes where the source put them, and its mask chain's resize and
crop are no image nodes at all. The statistics used to report "boxes through crop (crop): 239
in, 239 out, 0 clipped" (and through mask_resize) while the panel said the boxes are not cropped
by 'crop'. And the note of a kind left behind spoke of boxes whatever the kind ("keypoints are
not cropped ... the boxes follow its crop window")."""

from __future__ import annotations

import re

import numpy as np
import pytest
from test_overlay_carry import panel_coco

from augexplorer import Session
from augexplorer.annotations.drawable import overlay_states
from augexplorer.annotations.geometry import PLACED_KINDS, moves_pixels, no_safe_form
from augexplorer.annotations.tracks import image_chain, tracks_at
from augexplorer.export import generate
from augexplorer.presets import PRESETS, preset, preset_on
from augexplorer.spec import GraphSpec, Node
from augexplorer.stats import collect_stats
from augexplorer.stats.boxes import BoxCounter


def drawable_boxes(spec: GraphSpec, node_id: str) -> bool:
    states = overlay_states(spec, node_id) or {}
    return "boxes" in states and states["boxes"].drawable


def test_the_segmentation_presets_boxes_are_counted_only_where_they_go() -> None:
    spec = preset_on("segmentation", panel_coco())
    # what the engine does at its crop: the boxes there are the source's, not cropped
    result = Session(spec, batch_size=4, device_id=None).run()
    at_crop = tracks_at(spec, "crop")
    at_source = tracks_at(spec, "source")
    assert at_crop is not None and at_source is not None
    assert at_crop.get("boxes") == at_source.get("boxes")
    read = 0
    for boxes, image in zip(
        result.arrays(at_crop.refs["boxes"]), result.arrays("crop"), strict=True
    ):
        assert image.shape[:2] == (224, 224)
        assert np.all((boxes >= 0) & (boxes <= 1))  # in ratio to the whole photo
        read += len(boxes)
    assert read
    # and the exported module reads them from readers.coco and passes them to no operator
    code = generate(spec)
    assert re.search(r"_source_boxes, [\w, ]+ = fn\.readers\.coco\(", code), code
    assert code.count("_source_boxes") == 1
    stats = collect_stats(spec, batches=2, device_id=None)
    # ratio boxes stay right through the resize (it scales the picture only); nowhere else
    assert [flow.node for flow in stats.boxes] == ["resize"]
    (flow,) = stats.boxes
    assert flow.boxes_in == flow.boxes_out > 0 and flow.clipped == 0
    summary = stats.summary()
    for node in ("crop", "mask_resize", "mask_crop", "flip", "rotate", "mask_rotate"):
        assert f"boxes through {node} " not in summary, summary
    # the panel says the same: boxes are drawn at the resize and not at the crop
    assert drawable_boxes(spec, "resize") and not drawable_boxes(spec, "crop")


def test_the_segmentation_preset_on_its_own_source_counts_no_boxes() -> None:
    """Its own source reads boxes in pixels: the resize already leaves them behind."""
    assert BoxCounter(preset("segmentation")).flows == []


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_boxes_are_counted_through_a_node_exactly_where_the_panel_draws_them(name: str) -> None:
    spec = preset_on(name, panel_coco())
    counted = {flow.node for flow in BoxCounter(spec).flows}
    final = next(iter(spec.outputs.values())).node
    expected = {
        node_id
        for node_id in image_chain(spec, final)[1:]
        if isinstance(node := spec.node(node_id), Node)
        and moves_pixels(node.op, node.args)
        and drawable_boxes(spec, node_id)
    }
    assert counted == expected


def test_a_detection_graph_still_counts_the_boxes_its_crop_drops() -> None:
    stats = collect_stats(preset_on("ssd_detection", panel_coco()), batches=2, device_id=None)
    flows = {flow.node: flow for flow in stats.boxes}
    assert list(flows) == ["crop", "flip", "resize"]
    assert flows["crop"].boxes_in > 0 and flows["crop"].boxes_out <= flows["crop"].boxes_in
    assert flows["flip"].boxes_in == flows["crop"].boxes_out  # the crop's boxes go on


# "box" as a word, not inside an operator's name (random_bbox_crop, bbox_paste)
BOX_WORD = re.compile(r"(?<![\w_])box(es)?\b")
NOUN = {"boxes": "boxes", "vertices": "polygons", "keypoints": "keypoints", "masks": "masks"}


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_each_kinds_note_speaks_of_that_kind(name: str) -> None:
    spec = preset_on(name, panel_coco())
    final = next(iter(spec.outputs.values())).node
    seen = 0
    for node_id in image_chain(spec, final)[1:]:
        for kind, state in (overlay_states(spec, node_id) or {}).items():
            if state.reason is None or kind in ("boxes", "names"):
                continue
            assert not BOX_WORD.search(state.reason), (node_id, kind, state.reason)
            seen += 1
    if name == "segmentation":
        states = overlay_states(spec, "crop") or {}
        said = states["keypoints"].reason or ""
        assert "keypoints are not cropped by 'crop'" in said
        assert "coord_transform moves the keypoints" in said, said
        assert seen


@pytest.mark.parametrize("kind", PLACED_KINDS)
@pytest.mark.parametrize(
    "op",
    [
        "crop",
        "slice",
        "pad",
        "transpose",
        "water",
        "sphere",
        "multi_paste",
        "experimental.warp_perspective",
    ],
)
def test_a_note_on_an_operator_with_no_safe_form_names_the_kind_it_left(op: str, kind: str) -> None:
    said = no_safe_form(op, [kind])
    assert said is not None
    if kind != "boxes":
        assert not BOX_WORD.search(said), said
    if op in ("water", "sphere", "experimental.warp_perspective"):
        assert NOUN[kind] in said, said


def test_a_note_on_several_kinds_names_each() -> None:
    said = no_safe_form("water", ["boxes", "keypoints"])
    assert said == (
        "no DALI operator moves boxes and keypoints like water's waves; leave it out of "
        "detection graphs"
    )
    assert no_safe_form("flip", ["boxes"]) is None  # it has companions
