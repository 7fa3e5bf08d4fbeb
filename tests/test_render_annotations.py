"""The static grid (the render command, a notebook's static display) draws an annotated graph's
boxes, names and polygons over its images."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from annotated_graphs import flipped_graph, plain_graph, write_coco

from augexplorer.engine import Session
from augexplorer.render import render_node
from augexplorer.render.palette import class_rgb

CELL = 200
PAD = 4  # grid.py's margin around each cell


def test_boxes_are_drawn_in_class_colours_where_the_annotations_say(tmp_path: Path) -> None:
    result = Session(flipped_graph(write_coco(tmp_path)), device_id=None).run()
    drawn = np.asarray(render_node(result, cell=CELL, columns=4, captions=False))
    clean = np.asarray(render_node(result, cell=CELL, columns=4, captions=False, annotations=False))
    assert drawn.shape == clean.shape
    images = result.arrays("flip")
    annotations = result.annotations("flip")
    assert annotations is not None
    for index, sample in enumerate(annotations):
        height, width = images[index].shape[:2]
        scale = min(CELL / width, CELL / height)
        tile_w, tile_h = round(width * scale), round(height * scale)
        x0 = PAD + index * (CELL + PAD) + (CELL - tile_w) // 2
        y0 = PAD + (CELL - tile_h) // 2
        for box, label in zip(sample.boxes, sample.labels, strict=True):
            left, top, right, bottom = (float(v) * scale for v in box)
            # the middle of the box's left and right edges, in the box's class colour
            y = y0 + round((top + bottom) / 2)
            for x in (x0 + round(left), x0 + round(right)):
                patch = drawn[y - 1 : y + 2, x - 1 : x + 2].reshape(-1, 3).astype(int)
                distance = np.abs(patch - np.array(class_rgb(int(label)))).sum(axis=1)
                assert distance.min() < 30, (index, label, x, patch)
    assert not np.array_equal(drawn, clean)


def test_graph_without_annotations_draws_nothing_extra(tmp_path: Path) -> None:
    result = Session(plain_graph(), device_id=None).run()
    assert result.annotations() is None
    drawn = np.asarray(render_node(result, cell=120))
    clean = np.asarray(render_node(result, cell=120, annotations=False))
    assert np.array_equal(drawn, clean)


def test_captions_name_the_boxes_a_node_holds() -> None:
    """The SSD crop keeps some of a photo's boxes: a tile after it is captioned with the boxes
    it shows ("galaxy"), not those the reader gave ("galaxy x3")."""
    from augexplorer import Session

    result = Session("ssd_detection", batch_size=8).run()
    read = result.captions()
    assert result.captions(node_id="decode") == read
    cropped = result.captions(node_id="normalize")
    held = result.annotations("normalize")
    assert held is not None
    source = result.sources[result.plan.spec.sources()[0].id]
    assert cropped == [source.box_caption([int(x) for x in s.labels]) for s in held]
    assert cropped != read  # a crop in this batch dropped boxes
