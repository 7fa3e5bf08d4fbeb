"""A kind of annotation the graph leaves behind is a warning on the overlay's row only where the
graph reads it (a node moves it, or an output gives it); a kind no node reads (the segmentation
preset's boxes, which its COCO source reads whatever the graph uses) is only not drawn, said on
hover, as the export says nothing of it."""

from __future__ import annotations

from augexplorer.annotations.drawable import overlay_states, read_in
from augexplorer.annotations.tracks import tracks_at
from augexplorer.export.annotations_note import left_behind as export_left_behind
from augexplorer.presets import preset
from augexplorer.render.overlay_data import left_behind
from augexplorer.spec import Node, Ref


def test_boxes_no_node_reads_are_not_a_warning() -> None:
    spec = preset("segmentation")
    states = overlay_states(spec, "rotate")
    assert states is not None
    assert states["boxes"].left_behind and not states["boxes"].drawable
    assert not states["boxes"].used and states["masks"].used
    assert left_behind(states) == {}  # nothing orange on the preset as shipped
    assert export_left_behind(spec) == []  # as the export has nothing to say of them


def test_boxes_the_graph_outputs_are_still_a_warning() -> None:
    spec = preset("ssd_detection")
    rotate = Node("rotate", "rotate", inputs=(Ref("resize"),), args={"angle": 10.0})
    spec = spec.insert_after("resize", rotate)
    states = overlay_states(spec, spec.outputs["images"].node)
    assert states is not None and states["boxes"].used
    said = left_behind(states)
    assert list(said) == ["boxes"] and "not rotated by 'rotate'" in said["boxes"]
    assert export_left_behind(spec)  # the export warns of the same boxes


def test_what_the_graph_reads() -> None:
    spec = preset("segmentation")
    read = read_in(spec)
    at_source = tracks_at(spec, "source")
    assert at_source is not None
    assert Ref("source", 0) in read and Ref("angle") in read
    assert at_source.refs["masks"] in read
    assert at_source.refs["boxes"] not in read  # read by no node
