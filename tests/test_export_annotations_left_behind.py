"""A graph whose boxes an image node left behind (a rotate inserted with no bbox_rotate) is
exported with a warning, loudly in the module's header too: training on it would put boxes off
their objects. Carried through the node, the same graph exports without one."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest
from augexplorer_widgets import Explorer
from test_widgets_panel import browser_update

from augexplorer import Node, Random, preset
from augexplorer.annotations.drawable import carry_all
from augexplorer.catalog import Catalog
from augexplorer.export import export, generate
from augexplorer.export.annotations_note import AnnotationsLeftBehind, left_behind
from augexplorer.spec import GraphSpec, Ref


def rotated() -> GraphSpec:
    rotate = Node("rot", "rotate", args={"angle": Random.uniform(-30, 30), "keep_size": True})
    return preset("ssd_detection").insert_after("resize", rotate)


def test_boxes_left_behind_are_said_on_export_and_in_the_header(tmp_path: Path) -> None:
    spec = rotated()
    assert left_behind(spec) == ["the boxes no longer match the images after 'rot' (rotate)"]
    with pytest.warns(AnnotationsLeftBehind, match="boxes no longer match the images after 'rot'"):
        export(spec, tmp_path / "rotated.py")
    header = (tmp_path / "rotated.py").read_text().split('"""')[1]
    assert "WARNING: ANNOTATIONS DO NOT MATCH THE IMAGES" in header
    assert "add_operator" in header  # the fix


def test_carried_boxes_and_graphs_without_annotations_export_quietly(tmp_path: Path) -> None:
    carried = carry_all(rotated())
    assert left_behind(carried) == []
    assert left_behind(preset("ssd_detection")) == []
    assert left_behind(preset("basic")) == []
    with warnings.catch_warnings():
        warnings.simplefilter("error", AnnotationsLeftBehind)
        export(carried, tmp_path / "carried.py")
    assert "ANNOTATIONS DO NOT MATCH" not in generate(carried)


def test_the_panel_says_it_beside_the_file_written(catalog: Catalog, tmp_path: Path) -> None:
    explorer = Explorer(
        rotated(), batch_size=4, autosave=tmp_path / "autosave.json", catalog=catalog
    )
    target = tmp_path / "rotated.py"
    browser_update(explorer.export_view.path, value=str(target))
    explorer.export_view.button.click()
    said = explorer.export_view.message.value
    assert "Wrote" in said and target.is_file()
    assert "boxes no longer match the images after &#x27;rot&#x27;" in said


def test_the_command_line_says_it_as_a_warning_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from augexplorer.cli import main
    from augexplorer.spec import dumps

    graph = tmp_path / "rotated.json"
    graph.write_text(dumps(rotated()))
    assert main(["export", str(graph), "-o", str(tmp_path / "rotated.py")]) == 0
    err = capsys.readouterr().err
    assert err.startswith("warning: ") and "boxes no longer match the images after 'rot'" in err


def test_the_images_need_not_be_the_first_output() -> None:
    spec = rotated()
    reordered = dict(reversed(list(spec.outputs.items())))
    assert next(iter(reordered)) != "images"
    moved = GraphSpec(spec.nodes, reordered, batch_size=spec.batch_size, seed=spec.seed)
    assert left_behind(moved) == ["the boxes no longer match the images after 'rot' (rotate)"]


def wired() -> GraphSpec:
    """A COCO graph with a flip and a rotate added as the panel adds them: each with companions
    that read its coin and its angle."""
    from augexplorer import Source, chain
    from augexplorer.annotations.wiring import add_operator
    from augexplorer.catalog import load_catalog

    catalog = load_catalog()
    spec = chain(
        Source("source", "coco", reader_args={"ltrb": True, "ratio": True}, keypoints=True),
        ("decode", "decoders.image", {"output_type": "RGB"}),
        ("resize", "resize", {"resize_x": 256.0, "resize_y": 256.0}),
        batch_size=8,
    )
    spec = add_operator(spec, catalog, "flip", "resize").spec
    return add_operator(spec, catalog, "rotate", "flip").spec


def test_an_edit_of_a_wired_operators_geometry_leaves_its_annotations_behind(
    tmp_path: Path,
) -> None:
    """The companions were made for the flip and the angle as they were: a flip made vertical
    and a rotate given a draw of its own move the images only. The overlay and the export say
    so (both said the boxes matched), and the carry puts companions that follow in their place,
    the images drawn as before."""
    from augexplorer.annotations.drawable import overlay_states
    from augexplorer.engine import Session

    spec = wired()
    assert left_behind(spec) == []
    flip, rotate = spec.node("flip"), spec.node("rotate")
    assert isinstance(flip, Node) and isinstance(rotate, Node)
    session = Session(spec, batch_size=8)
    session.run()
    result = session.set_arg("flip", "vertical", 1)
    states = result.overlay_states("flip")
    assert (
        states is not None and states["boxes"].reason == "boxes are not flipped by 'flip': add them"
    )
    result = session.set_arg("rotate", "angle", Random.uniform(-45, 45))
    edited = session.spec
    with pytest.warns(AnnotationsLeftBehind, match="after 'flip'"):
        export(edited, tmp_path / "edited.py")
    carried = carry_all(edited)
    assert left_behind(carried) == []
    assert all(
        s.drawable
        for k, s in (overlay_states(carried, "rotate") or {}).items()
        if k in ("boxes", "keypoints")
    )
    boxes_flip = [n for n in carried.operators() if n.op == "bb_flip"]
    assert len(boxes_flip) == 1 and boxes_flip[0].args["vertical"] == 1
    angle = carried.node("rotate").args["angle"]  # type: ignore[union-attr]
    turned = [n for n in carried.operators() if n.op == "bbox_rotate"]
    assert isinstance(angle, Ref) and len(turned) == 1 and turned[0].args["angle"] == angle
    after = Session(carried, batch_size=8).run()
    for old, new in zip(result.arrays("rotate"), after.arrays("rotate"), strict=True):
        np.testing.assert_array_equal(old, new)  # the same angles drawn


@pytest.mark.parametrize("name", ["segmentation", "ssd_detection", "random_affine"])
def test_an_annotations_own_chain_is_not_taken_for_images_that_left_it(name: str) -> None:
    """The segmentation preset outputs its masks after their own resize, flip and rotate: read
    as an image chain, those steps left the masks behind (a false warning on every export)."""
    assert left_behind(preset(name)) == []
