"""Annotations over the tiles and in the large view, through the traits the page reads; the
COCO source in the panel's toolbar."""

from __future__ import annotations

import html
import io
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from annotated_graphs import coco_source, flipped_graph, plain_graph, write_coco
from augexplorer_widgets import Explorer
from augexplorer_widgets.source_switch import switched_source
from PIL import Image

from augexplorer.annotations import SampleAnnotations
from augexplorer.catalog import Catalog
from augexplorer.data import samples_dir
from augexplorer.render.overlay_data import keypoint_overlay
from augexplorer.render.palette import class_colour, class_rgb
from augexplorer.spec import Ref, Source, chain


@pytest.fixture
def coco(tmp_path: Path) -> Path:
    return write_coco(tmp_path)


def open_panel(spec: Any, tmp_path: Path, catalog: Catalog) -> Explorer:
    panel = Explorer(spec, autosave=tmp_path / "autosave.json", catalog=catalog)
    panel.flush()
    return panel


def drawn(panel: Explorer, picture: int = 0) -> list[dict[str, Any]]:
    """The overlay sent for picture `picture` of every tile."""
    return [tile[picture] for tile in panel.grid.tiles.overlays]


def test_overlays_sent_are_the_selected_nodes_annotations(
    coco: Path, tmp_path: Path, catalog: Catalog
) -> None:
    panel = open_panel(flipped_graph(coco), tmp_path, catalog)
    result = panel.result
    assert result is not None
    by_node = {}
    for node in ("flip", "decode"):
        panel.select(node)
        expected = [a.to_json() for a in result.annotations(node)]
        overlays = drawn(panel)
        assert len(overlays) == len(panel.grid.tiles.tiles) == 4
        for overlay, want, array in zip(overlays, expected, result.arrays(Ref(node)), strict=True):
            for key in ("boxes", "labels", "names", "polygons", "polygon_masks"):
                assert overlay[key] == want[key], (node, key)
            assert (overlay["height"], overlay["width"]) == array.shape[:2]
            assert overlay["colors"] == [class_colour(x) for x in want["labels"]]
        by_node[node] = [o["boxes"] for o in overlays]
    # the coin flipped some images: the flip's boxes are not the decoder's
    assert by_node["flip"] != by_node["decode"]
    names = [name for o in drawn(panel) for name in o["names"]]
    assert names == ["cat", "cup", "person", "person", "rocket"]


def test_toggles_switch_kinds_without_resending(
    coco: Path, tmp_path: Path, catalog: Catalog
) -> None:
    panel = open_panel(flipped_graph(coco), tmp_path, catalog)
    toggles = panel.grid.overlay_toggles
    assert toggles.layout.display == ""
    sent = panel.grid.tiles.overlays
    assert panel.grid.tiles.overlay_kinds == ["boxes", "names", "polygons"]
    # this source reads no keypoints (keypoints=False), and polygons, not pixel masks
    keypoints = toggles.buttons["keypoints"]
    assert keypoints.disabled and "keypoints=True" in keypoints.tooltip
    assert "keypoints" in toggles.note.value
    assert (
        toggles.buttons["masks"].disabled and "pixelwise_masks" in toggles.buttons["masks"].tooltip
    )
    toggles.buttons["boxes"].value = False
    assert panel.grid.tiles.overlay_kinds == ["names", "polygons"]
    toggles.buttons["polygons"].value = False
    assert panel.grid.tiles.overlay_kinds == ["names"]
    assert panel.grid.tiles.overlays is sent  # nothing sent again: the page hides them
    # a kind switched off stays off across new results
    panel.set_arg("coin", "probability", 1.0)
    assert panel.grid.tiles.overlay_kinds == ["names"]


def test_graph_without_annotations_sends_none(tmp_path: Path, catalog: Catalog) -> None:
    panel = open_panel(plain_graph(), tmp_path, catalog)
    assert panel.grid.tiles.overlays == []
    assert panel.grid.overlay_toggles.layout.display == "none"
    panel.grid.tiles.opened = 0
    assert all(pane["overlay"] is None for pane in panel.grid.tiles.large["panes"])


def test_source_node_has_no_overlay(coco: Path, tmp_path: Path, catalog: Catalog) -> None:
    # The source's images are encoded files: nothing to draw over (their tiles show values).
    panel = open_panel(flipped_graph(coco), tmp_path, catalog)
    panel.select("source")
    assert panel.grid.tiles.overlays == []
    assert panel.grid.overlay_toggles.layout.display == "none"


def test_large_view_draws_each_panes_annotations(
    coco: Path, tmp_path: Path, catalog: Catalog
) -> None:
    panel = open_panel(flipped_graph(coco), tmp_path, catalog)
    panel.select("flip")
    result = panel.result
    assert result is not None
    panel.grid.tiles.opened = 2
    panes = {p["role"]: p for p in panel.grid.tiles.large["panes"]}
    assert set(panes) == {"after", "before"}  # the decoder is both the input and the original
    for role, node in (("after", "flip"), ("before", "decode")):
        overlay = panes[role]["overlay"]
        want = result.annotations(node)[2].to_json()
        assert overlay["boxes"] == want["boxes"] and overlay["polygons"] == want["polygons"]
        assert (overlay["width"], overlay["height"]) == (
            panes[role]["width"],
            panes[role]["height"],
        )


def test_ab_draws_on_the_now_picture(coco: Path, tmp_path: Path, catalog: Catalog) -> None:
    panel = open_panel(flipped_graph(coco), tmp_path, catalog)
    panel.select("flip")
    panel.set_arg("coin", "probability", 1.0)
    panel.grid.mode.value = "A/B"
    tiles = panel.grid.tiles
    assert all(len(t["pictures"]) == 2 for t in tiles.tiles)
    assert all(before is None and now is not None for before, now in tiles.overlays)
    result = panel.result
    assert result is not None
    assert [now["boxes"] for _, now in tiles.overlays] == [
        a.to_json()["boxes"] for a in result.annotations("flip")
    ]


def test_pixel_masks_travel_as_class_coloured_pngs(
    coco: Path, tmp_path: Path, catalog: Catalog
) -> None:
    source = coco_source(coco, polygon_masks=False, pixelwise_masks=True)
    spec = chain(source, ("decode", "decoders.image", {"output_type": "RGB"}), batch_size=4)
    panel = open_panel(spec, tmp_path, catalog)
    toggles = panel.grid.overlay_toggles
    assert not toggles.buttons["masks"].disabled and toggles.buttons["polygons"].disabled
    overlay = drawn(panel)[0]  # the cat: one box, label 1
    mask = Image.open(io.BytesIO(overlay["mask"]))
    size = panel.grid.size.value
    assert mask.mode == "RGBA" and max(mask.size) == size  # shrunk to the tile, not sent whole
    pixels = np.asarray(mask)
    left, top, right, bottom = overlay["boxes"][0]
    scale = mask.size[0] / overlay["width"]
    centre = pixels[int((top + bottom) / 2 * scale), int((left + right) / 2 * scale)]
    assert tuple(centre[:3]) == class_rgb(1) and 0 < centre[3] < 255
    assert pixels[1, 1, 3] == 0  # outside every object: see-through


def test_keypoints_are_drawn_where_annotations_carry_them(tmp_path: Path, catalog: Catalog) -> None:
    source = Source(
        "source", "coco", None, shuffle=False, keypoints=True, reader_args={"ratio": True}
    )
    panel = open_panel(chain(source, ("decode", "decoders.image", {})), tmp_path, catalog)
    result = panel.result
    assert result is not None
    panel.select("decode")
    annotations = result.annotations("decode")
    assert annotations is not None
    seen = 0
    for overlay, sample in zip(drawn(panel), annotations, strict=True):
        assert sample.keypoints is not None
        labelled = [points for points in sample.keypoints if (points[:, 2] > 0).any()]
        assert len(overlay["keypoints"]) == len(labelled)
        for drawn_object, points, pairs in zip(
            overlay["keypoints"], labelled, sample.skeletons, strict=True
        ):
            np.testing.assert_allclose(drawn_object["points"], points, atol=0.01)
            assert drawn_object["edges"] == [[a - 1, b - 1] for a, b in pairs]  # 0-based
            seen += 1
    assert seen > 0, "the bundled samples' first batch has keypoints"
    assert not panel.grid.overlay_toggles.buttons["keypoints"].disabled
    assert keypoint_overlay(SampleAnnotations()) == []


# ---- the COCO source in the toolbar -------------------------------------------------------------


def test_toolbar_switches_to_a_coco_file_and_back(
    coco: Path, tmp_path: Path, catalog: Catalog
) -> None:
    panel = Explorer("basic", batch_size=4, autosave=tmp_path / "autosave.json", catalog=catalog)
    panel.flush()
    bar = panel.toolbar
    assert ("COCO annotations", "coco") in bar.source.options
    bar.source.value = "coco"
    assert bar.file_root.layout.display == "" and bar.path.layout.display == ""
    assert "empty: bundled" in bar.path.placeholder
    assert "bundled annotated samples" in bar.path.tooltip  # the whole of it on hover
    bar.file_root.value = str(samples_dir())
    bar.path.value = str(coco)
    panel.flush()
    source = panel.spec.sources()[0]
    assert (source.kind, source.path, source.file_root) == ("coco", str(coco), str(samples_dir()))
    assert source.reader_args == {"ltrb": True, "ratio": True, "polygon_masks": True}
    assert panel.spec.outputs["labels"] == Ref("source", 2)  # the labels, not the boxes
    assert panel.state.failure is None, panel.state.failure
    # the preset shuffles: the captions name each image's box classes, in some order
    labels = sorted(t["label"] for t in panel.grid.tiles.tiles)
    assert labels == ["cat", "cup, person", "person", "rocket"]
    # the basic preset's decoder shows the file's boxes
    panel.select("decode")
    names = sorted(o["names"] for o in drawn(panel))
    assert names == [["cat"], ["cup", "person"], ["person"], ["rocket"]]
    # and back: the folder reader gets its own arguments, the labels their old output
    bar.source.value = "samples"
    panel.flush()
    source = panel.spec.sources()[0]
    assert (source.kind, source.file_root, dict(source.reader_args)) == ("samples", None, {})
    assert panel.spec.outputs["labels"] == Ref("source", 1)
    assert panel.state.failure is None
    assert bar.file_root.layout.display == "none"
    assert panel.grid.tiles.overlays == []


def test_undo_brings_back_the_coco_fields(coco: Path, tmp_path: Path, catalog: Catalog) -> None:
    panel = open_panel(flipped_graph(coco), tmp_path, catalog)
    bar = panel.toolbar
    assert bar.source.value == "coco" and bar.path.value == str(coco)
    assert bar.file_root.value == str(samples_dir())
    bar.source.value = "samples"
    panel.flush()
    assert bar.file_root.layout.display == "none"
    panel.undo()
    assert bar.source.value == "coco" and bar.file_root.value == str(samples_dir())
    assert bar.file_root.layout.display == ""


def test_switching_keeps_outputs_that_read_other_nodes(coco: Path) -> None:
    spec = switched_source(flipped_graph(coco), "samples", None)
    assert spec.outputs["images"] == Ref("flip")
    assert spec.outputs["boxes"] == Ref("bb_flip")  # not the source's: kept as it is
    assert spec.outputs["labels"] == Ref("source", 1)


def test_variety_of_an_annotated_image_keeps_its_boxes_and_labels(
    coco: Path, tmp_path: Path, catalog: Catalog
) -> None:
    panel = open_panel(flipped_graph(coco), tmp_path, catalog)
    result = panel.result
    assert result is not None
    varied = panel.variety.run(result.plan.spec, result, sample=1)
    assert varied.files() == [result.files()[1]] * panel.variety.copies
    assert varied.labels() == [result.labels()[1]] * panel.variety.copies
    before = result.annotations("decode")
    after = varied.annotations("decode")
    assert before is not None and after is not None
    for sample in after:
        np.testing.assert_allclose(sample.boxes, before[1].boxes)


def test_kinds_left_behind_are_off_say_why_and_a_button_carries_them(
    coco: Path, tmp_path: Path, catalog: Catalog
) -> None:
    """A rotate with no companions after the flip: its boxes and polygons are not drawn there,
    their switches are off and disabled, the row says why with a button that wires them; at
    the flip, everything is drawn. The button's edit can be undone."""
    from augexplorer.spec import GraphSpec, Node

    spec = flipped_graph(coco)
    turned = GraphSpec(
        (*spec.nodes, Node("turn", "rotate", (Ref("flip"),), {"angle": 30.0})),
        {**spec.outputs, "images": Ref("turn")},
        batch_size=spec.batch_size,
        name=spec.name,
    )
    panel = open_panel(turned, tmp_path, catalog)
    panel.select("turn")
    toggles = panel.grid.overlay_toggles
    for kind in ("boxes", "names", "polygons"):
        button = toggles.buttons[kind]
        assert button.disabled and not button.value, kind
    assert "not rotated by 'turn'" in toggles.buttons["polygons"].tooltip
    note = html.unescape(toggles.note.value)
    assert "boxes are not rotated by 'turn': add them" in note
    assert "polygons are not rotated by 'turn': add them" in note
    assert "names are drawn" not in note  # said once, for the boxes
    assert list(toggles.fixes) == ["Carry boxes through 'turn'", "Carry polygons through 'turn'"]
    assert toggles.fix_row.layout.display == ""
    assert all(not o["boxes"] and not o["polygons"] for o in drawn(panel))
    assert set(panel.grid.tiles.overlay_kinds) == set()  # masks and keypoints are not read
    panel.select("flip")
    assert not toggles.buttons["boxes"].disabled and toggles.buttons["boxes"].value
    assert "not rotated" not in toggles.note.value and toggles.fix_row.layout.display == "none"
    assert all(o["boxes"] for o in drawn(panel))
    panel.select("turn")
    toggles.fixes["Carry boxes through 'turn'"].click()
    panel.flush()
    assert any(n.op == "bbox_rotate" for n in panel.spec.operators())
    assert panel.state.failure is None
    assert not toggles.buttons["boxes"].disabled and toggles.buttons["boxes"].value
    assert toggles.buttons["polygons"].disabled
    assert list(toggles.fixes) == ["Carry polygons through 'turn'"]
    assert all(o["boxes"] for o in drawn(panel))
    panel.undo()
    panel.flush()
    assert not any(n.op == "bbox_rotate" for n in panel.spec.operators())
    assert toggles.buttons["boxes"].disabled


def test_a_switch_turned_off_by_the_user_stays_off_when_the_kind_comes_back(
    coco: Path, tmp_path: Path, catalog: Catalog
) -> None:
    from augexplorer.spec import GraphSpec, Node

    spec = flipped_graph(coco)
    turned = GraphSpec(
        (*spec.nodes, Node("turn", "rotate", (Ref("flip"),), {"angle": 30.0})),
        {**spec.outputs, "images": Ref("turn")},
        batch_size=spec.batch_size,
        name=spec.name,
    )
    panel = open_panel(turned, tmp_path, catalog)
    toggles = panel.grid.overlay_toggles
    panel.select("flip")
    toggles.buttons["polygons"].value = False  # the user's choice
    panel.select("turn")
    assert not toggles.buttons["boxes"].value and not toggles.buttons["polygons"].value
    panel.select("flip")
    assert toggles.buttons["boxes"].value and not toggles.buttons["polygons"].value
    assert "polygons" not in panel.grid.tiles.overlay_kinds


def test_picking_ssd_detection_on_the_coco_source_draws_every_kind_it_reads(
    tmp_path: Path, catalog: Catalog
) -> None:
    """The bundled COCO photos as the panel reads them (polygons, keypoints) and the SSD preset
    picked: its crop and flip carry them all, so each is drawn over the final images."""
    panel = open_panel(None, tmp_path, catalog)
    panel._now(lambda: panel.controller.set_source("coco", None))
    panel._now(lambda: panel.controller.pick_preset("ssd_detection"))
    panel.flush()
    assert panel.state.failure is None
    toggles = panel.grid.overlay_toggles
    for kind in ("boxes", "names", "polygons", "keypoints"):
        assert toggles.buttons[kind].value and not toggles.buttons[kind].disabled, kind
    assert toggles.buttons["masks"].disabled and not toggles.fixes
    overlays = drawn(panel)
    assert any(o["keypoints"] for o in overlays) and any(o["polygons"] for o in overlays)
    result = panel.result
    assert result is not None
    for overlay, sample in zip(overlays, result.drawn_annotations(), strict=True):
        width, height = overlay["width"], overlay["height"]
        assert overlay["keypoints"] == keypoint_overlay(sample, width, height)
        for x, y, seen in (p for o in overlay["keypoints"] for p in o["points"]):
            assert seen == 0 or (0 <= x <= width and 0 <= y <= height)  # cut off: not drawn
