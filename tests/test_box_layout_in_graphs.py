"""Boxes read by a box operator in another layout than their COCO source gives them, in a graph
built in Python or the panel (an imported DALI file is said at import: test_import_wild_6.py).
DALI runs such a graph without an error and its boxes come out off their objects, so the graph
runs as written and the check says it: a warning on the plan naming both nodes and arguments and
the fix, said by the run's annotation warnings (as boxes left behind by an image operator are),
the boxes' overlay off with that reason (the panel's row of switches says it), the export
warned. A consistent graph, the presets included, gets no word."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from augexplorer import Session
from augexplorer.catalog import load_catalog
from augexplorer.checks.box_layouts import box_layout_warnings
from augexplorer.export import export
from augexplorer.export.annotations_note import AnnotationsLeftBehind
from augexplorer.presets import PRESETS, preset, preset_on
from augexplorer.render.overlay_data import left_behind
from augexplorer.spec import GraphSpec, Node, Ref, Source
from augexplorer.validate import validate

CATALOG = load_catalog(gpu=False)


def flipped(reader_args: dict[str, Any], flip_args: dict[str, Any]) -> GraphSpec:
    """The bundled annotated photos, flipped with their boxes on one setting."""
    nodes = (
        Source("source", "coco", seed=12, reader_args=reader_args),
        Node("decode", "decoders.image", (Ref("source"),), {"output_type": "RGB"}),
        Node("flip", "flip", (Ref("decode"),), {"horizontal": 1}),
        Node("flip_boxes", "bb_flip", (Ref("source", 1),), {"horizontal": 1, **flip_args}),
    )
    outputs = {"images": Ref("flip"), "boxes": Ref("flip_boxes"), "labels": Ref("source", 2)}
    return GraphSpec(nodes=nodes, outputs=outputs, batch_size=4)


def cropped(reader_args: dict[str, Any], crop_args: dict[str, Any]) -> GraphSpec:
    """The bundled annotated photos cropped by random_bbox_crop, its boxes the graph's."""
    nodes = (
        Source("source", "coco", seed=12, reader_args=reader_args),
        Node("decode", "decoders.image", (Ref("source"),), {"output_type": "RGB"}),
        Node("box_crop", "random_bbox_crop", (Ref("source", 1), Ref("source", 2)), crop_args),
        Node("crop", "slice", (Ref("decode"), Ref("box_crop", 0), Ref("box_crop", 1))),
    )
    outputs = {"images": Ref("crop"), "boxes": Ref("box_crop", 2), "labels": Ref("box_crop", 3)}
    return GraphSpec(nodes=nodes, outputs=outputs, batch_size=4)


# graph, the box node, its argument said, words of the message, the fix, the image node after it
MISREAD = {
    "x, y, width, height flipped as ltrb": (
        flipped({"ratio": True}, {"ltrb": True}),
        "flip_boxes",
        "ltrb",
        "it reads the boxes with ltrb=True as left, top, right, bottom, but source 'source' "
        "(reader_args.ltrb=False) gives them as x, y, width, height, so the boxes it gives are "
        "off their objects",
        "set reader_args.ltrb=True on 'source', or ltrb=False on 'flip_boxes'",
        "flip",
    ),
    "boxes in pixels flipped": (
        flipped({"ltrb": True}, {"ltrb": True}),
        "flip_boxes",
        None,
        "it reads boxes in 0-1 units of the image, but source 'source' gives them in pixels (no "
        "ratio=True), so the boxes it gives are off their objects (a box [0, 0, 398, 300] "
        "flipped comes out [-397, 0, 1, 300])",
        "set reader_args.ratio=True on 'source'",
        "flip",
    ),
    "x, y, width, height cropped with the crop's default": (
        cropped({"ratio": True}, {}),
        "box_crop",
        "bbox_layout",
        "it reads the boxes with ltrb=True (its default) as left, top, right, bottom, but "
        "source 'source' (reader_args.ltrb=False) gives them as x, y, width, height",
        "set reader_args.ltrb=True on 'source', or bbox_layout=\"xyWH\" on 'box_crop'",
        "crop",
    ),
}


@pytest.mark.parametrize("case", MISREAD, ids=list(MISREAD))
def test_boxes_read_in_another_layout_run_as_written_and_are_said(case: str) -> None:
    spec, node, argument, words, fix, image = MISREAD[case]
    warned = validate(spec, CATALOG).warnings
    assert len(warned) == 1
    assert (warned[0].node, warned[0].argument, warned[0].fix) == (node, argument, fix)
    assert words in warned[0].message
    # the graph runs as DALI runs it; the run says it, and so does the panel's row of switches
    result = Session(spec, device_id=None).run()
    assert result.plan.warnings == warned
    assert any(str(warned[0]) in said for said in result.annotation_warnings(image))
    states = result.overlay_states(image)
    assert states is not None and not states["boxes"].drawable
    assert str(warned[0]) in left_behind(states)["boxes"]
    drawn = result.drawn_annotations(image)  # not drawn off their objects
    assert drawn is not None and all(len(sample.boxes) == 0 for sample in drawn)


def test_boxes_in_pixels_flipped_come_out_off_the_image() -> None:
    """What the warning says, measured: DALI flips a box in pixels as if in 0-1 units."""
    result = Session(flipped({"ltrb": True}, {"ltrb": True}), device_id=None).run()
    boxes = result.arrays(Ref("flip_boxes"))
    read = result.arrays(Ref("source", 1))
    sample = next(i for i, b in enumerate(read) if len(b))
    x0, y0, x1, y1 = read[sample][0]
    np.testing.assert_allclose(boxes[sample][0], [1 - x1, y0, 1 - x0, y1], rtol=1e-6)
    assert boxes[sample][0][0] < 0  # off the image


@pytest.mark.parametrize(
    "spec",
    [
        flipped({"ltrb": True, "ratio": True}, {"ltrb": True}),
        flipped({"ratio": True}, {}),  # x, y, width, height both
        cropped({"ltrb": True, "ratio": True}, {}),
        cropped({"ratio": True}, {"bbox_layout": "xyWH"}),
    ],
    ids=["ltrb", "xywh", "crop ltrb", "crop xywh"],
)
def test_boxes_read_as_their_source_gives_them_are_not_said(spec: GraphSpec) -> None:
    assert validate(spec, CATALOG).warnings == ()
    result = Session(spec, device_id=None).run()
    image = next(iter(spec.outputs.values())).node
    assert result.annotation_warnings(image) == []
    states = result.overlay_states(image)
    assert states is not None and states["boxes"].drawable
    assert any(len(sample.boxes) for sample in result.drawn_annotations(image) or [])


@pytest.mark.parametrize("name", list(PRESETS))
def test_presets_read_boxes_as_their_source_gives_them(name: str) -> None:
    assert box_layout_warnings(preset(name)) == []
    for reader_args in ({"ratio": True}, {"ltrb": True, "ratio": True}):
        source = Source("source", "coco", seed=12, reader_args=reader_args)
        assert box_layout_warnings(preset_on(name, source)) == [], reader_args


def test_an_edit_half_way_is_said_and_kept_and_the_next_one_ends_it() -> None:
    """Setting the reader's ltrb before the flip's: the graph in between runs and is said (its
    boxes are off their objects, as DALI gives them), nothing typed is lost, and the second
    edit leaves nothing to say."""
    session = Session(flipped({"ratio": True}, {"ltrb": False}), device_id=None)
    session.run()
    half = session.update(session.spec.set_reader_arg("source", "ltrb", True))
    assert session.spec.node("source").reader_args["ltrb"] is True
    assert [p.fix for p in half.plan.warnings] == [
        "set reader_args.ltrb=False on 'source', or ltrb=True on 'flip_boxes'"
    ]
    assert half.annotation_warnings("flip")
    done = session.set_arg("flip_boxes", "ltrb", True)
    assert done.plan.warnings == ()
    states = done.overlay_states("flip")
    assert states is not None and states["boxes"].drawable


def test_an_export_of_boxes_read_in_another_layout_warns(tmp_path: Path) -> None:
    spec = flipped({"ratio": True}, {"ltrb": True})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        written = export(spec, tmp_path / "train_aug.py")
    said = [str(w.message) for w in caught if w.category is AnnotationsLeftBehind]
    assert any(
        s.startswith(f"{written}: node 'flip_boxes', argument 'ltrb'") and "fix:" in s for s in said
    )


def test_both_mistakes_of_one_box_operator_are_said_at_once() -> None:
    """x, y, width, height boxes in pixels flipped as ltrb: the layout and the units, both
    (said one at a time, the fix of one would uncover the other only on the next run)."""
    said = box_layout_warnings(flipped({}, {"ltrb": True}))
    assert [(p.node, p.argument) for p in said] == [("flip_boxes", "ltrb"), ("flip_boxes", None)]
    assert "set reader_args.ltrb=True on 'source'" in said[0].fix
    assert said[1].fix == "set reader_args.ratio=True on 'source'"
