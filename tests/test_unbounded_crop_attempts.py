"""random_bbox_crop(allow_no_crop=False) with no total_num_attempts and every threshold above 0:
DALI may search for its window forever (measured on the bundled photos with thresholds=[0.9]:
no return in 20 s), on threads nothing can stop; so it does, whatever the thresholds, where no
window's width over height that scaling gives is in aspect_ratio. The graph check refuses it, naming the node,
the argument and a bound to set; an edit that makes it keeps the user's graph and the last good
result; the bounded crop runs. DALI code written so imports as written and says the risk."""

from __future__ import annotations

import time
import warnings
from pathlib import Path
from typing import Any

import pytest

from augexplorer import Session
from augexplorer.catalog import load_catalog
from augexplorer.crop_search import EndlessCropSearch
from augexplorer.data import sample_annotations, samples_dir
from augexplorer.errors import GraphInvalid
from augexplorer.export.importer import import_graph
from augexplorer.spec import GraphSpec, Node, Ref, Source
from augexplorer.validate import validate

CATALOG = load_catalog(gpu=False)
# thresholds that no window meets on some bundled photo, with every box needed (the default)
UNMET = {"thresholds": [0.9], "scaling": [0.3, 1.0], "aspect_ratio": [0.5, 2.0]}


def cropped(crop_args: dict[str, Any]) -> GraphSpec:
    nodes = (
        Source("source", "coco", seed=12, reader_args={"ltrb": True, "ratio": True}),
        Node("decode", "decoders.image", (Ref("source"),), {"output_type": "RGB"}),
        Node(
            "box_crop",
            "random_bbox_crop",
            (Ref("source", 1), Ref("source", 2)),
            {"bbox_layout": "xyXY", **crop_args},
            seed=21,
        ),
        Node("crop", "slice", (Ref("decode"), Ref("box_crop", 0), Ref("box_crop", 1))),
    )
    outputs = {"images": Ref("crop"), "boxes": Ref("box_crop", 2), "labels": Ref("box_crop", 3)}
    return GraphSpec(nodes=nodes, outputs=outputs, batch_size=8)


@pytest.mark.parametrize(
    "crop_args",
    [
        {**UNMET, "allow_no_crop": False},
        {**UNMET, "allow_no_crop": False, "total_num_attempts": -1},
        {"thresholds": [0.1, 0.5], "allow_no_crop": False, "num_attempts": 50},
    ],
    ids=["unset", "-1", "ssd-like without 0"],
)
def test_a_crop_that_may_search_forever_is_refused_with_a_bound(crop_args: dict[str, Any]) -> None:
    with pytest.raises(GraphInvalid) as refused:
        validate(cropped(crop_args), CATALOG)
    problems = refused.value.for_node("box_crop")
    assert len(problems) == 1
    problem = problems[0]
    assert problem.argument == "total_num_attempts"
    assert "allow_no_crop=False" in problem.message and "never returns" in problem.message
    assert problem.fix is not None and "set total_num_attempts=" in problem.fix
    assert "allow_no_crop=True" in problem.fix and "add 0.0 to thresholds" in problem.fix


@pytest.mark.parametrize(
    "shapes",
    [
        {"scaling": [1.0, 1.0], "aspect_ratio": [2.0, 3.0]},
        {"scaling": [0.5, 1.0], "aspect_ratio": [2.5, 3.0]},
    ],
    ids=["whole windows", "half to whole"],
)
def test_a_crop_no_window_shape_of_which_is_taken_is_refused(shapes: dict[str, Any]) -> None:
    """Each side drawn from scaling alone gives widths over heights that aspect_ratio never
    takes: DALI draws again forever, whatever the thresholds, so a bound finds no window."""
    with pytest.raises(GraphInvalid) as refused:
        validate(cropped({**shapes, "allow_no_crop": False}), CATALOG)
    (problem,) = refused.value.for_node("box_crop")
    assert problem.argument == "aspect_ratio" and "never returns" in problem.message
    assert problem.fix is not None and "total_num_attempts" not in problem.fix


def test_the_bound_named_covers_every_threshold_a_few_times() -> None:
    args = {"thresholds": [0.1, 0.3, 0.5, 0.7, 0.9], "num_attempts": 50, "allow_no_crop": False}
    with pytest.raises(GraphInvalid) as refused:
        validate(cropped(args), CATALOG)
    assert "total_num_attempts=500 " in str(refused.value)


@pytest.mark.parametrize(
    "crop_args",
    [
        {**UNMET, "allow_no_crop": False, "total_num_attempts": 100},
        {**UNMET},  # allow_no_crop is on by default: "no crop" ends the search
        {"allow_no_crop": False},  # DALI's default thresholds, [0.0]: any window meets it
        {**UNMET, "thresholds": [0.0, 0.9], "allow_no_crop": False},
        # one ratio: DALI makes each window's sides give it
        {"scaling": [1.0, 1.0], "aspect_ratio": [2.0, 2.0], "allow_no_crop": False},
    ],
    ids=["bounded", "no crop allowed", "default thresholds", "0.0 among them", "one ratio"],
)
def test_a_crop_whose_search_ends_is_not_refused(crop_args: dict[str, Any]) -> None:
    validate(cropped(crop_args), CATALOG)


def test_an_edit_that_would_hang_is_refused_keeping_the_graph_and_the_grid() -> None:
    session = Session(cropped(UNMET), device_id=None)
    shown = session.run()
    # first without running it: where the check let it through, the run below would not return
    with pytest.raises(GraphInvalid):
        validate(session.spec.set_arg("box_crop", "allow_no_crop", False), CATALOG)
    with pytest.raises(GraphInvalid, match="total_num_attempts"):
        session.set_arg("box_crop", "allow_no_crop", False)
    assert session.spec.node("box_crop").args["allow_no_crop"] is False  # nothing typed lost
    assert session.result is shown  # the last good grid stays
    # the fix named runs, and returns: DALI takes the best window where none meets 0.9
    started = time.monotonic()
    result = session.set_arg("box_crop", "total_num_attempts", 100)
    assert time.monotonic() - started < 30
    assert len(result.arrays(Ref("box_crop", 2))) == 8


UNBOUNDED_FILE = """
import nvidia.dali.fn as fn
from nvidia.dali import pipeline_def


@pipeline_def(seed=53)
def unbounded_pipe(file_root, annotations_file):
    jpegs, bboxes, labels = fn.readers.coco(
        file_root=file_root, annotations_file=annotations_file, ltrb=True, ratio=True)
    crop_begin, crop_size, bboxes, labels = fn.random_bbox_crop(
        bboxes, labels, bbox_layout="xyXY", thresholds=[0.9], allow_no_crop=False)
    images = fn.decoders.image_slice(jpegs, crop_begin, crop_size)
    return images, bboxes, labels


pipe = unbounded_pipe({root!r}, {annotations!r}, batch_size=3, num_threads=1, device_id=None)
"""


def test_dali_code_with_such_a_crop_imports_as_written_and_says_the_risk(tmp_path: Path) -> None:
    path = tmp_path / "unbounded.py"
    path.write_text(
        UNBOUNDED_FILE.format(root=str(samples_dir()), annotations=str(sample_annotations()))
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        graph = import_graph(path, run_file=True)
    said = [str(w.message) for w in caught if w.category is EndlessCropSearch]
    assert len(said) == 1
    assert said[0].startswith(f"fn.random_bbox_crop at line 10 of {path} in unbounded_pipe()")
    assert "imported as written" in said[0] and "set total_num_attempts=100" in said[0]
    crop = next(node for node in graph.operators() if node.op == "random_bbox_crop")
    assert crop.args["allow_no_crop"] is False and "total_num_attempts" not in crop.args
    with pytest.raises(GraphInvalid) as refused:
        validate(graph, CATALOG)
    assert [p.argument for p in refused.value.for_node(crop.id)] == ["total_num_attempts"]
