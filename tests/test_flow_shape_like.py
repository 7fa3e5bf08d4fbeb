"""A random draw given data as its input draws one value per element of it (DALI's
``shape_like``): ``fn.random.normal(images, stddev=4)`` is noise shaped like the images. The
checks took its input for a number it must read, and refused a graph DALI runs."""

from __future__ import annotations

import dataclasses

import numpy as np

from augexplorer import Session
from augexplorer.catalog import Catalog
from augexplorer.catalog.flow import input_problems
from augexplorer.expressions.nodes import expression
from augexplorer.presets import preset
from augexplorer.spec import Node, Ref
from augexplorer.validate import validate


def test_a_draw_shaped_like_the_images_is_a_graph_that_runs(catalog: Catalog) -> None:
    spec = dataclasses.replace(preset("basic"), batch_size=2)
    end = spec.outputs["images"].node
    noise = Node("noise", "random.normal", args={"stddev": 4.0}, inputs=(Ref(end),))
    noisy = expression("noisy", f"math.clamp({end} + noise, 0, 255)")
    spec = dataclasses.replace(
        spec,
        nodes=(*spec.nodes, noise, noisy),
        outputs={**spec.outputs, "images": Ref("noisy")},
    )
    assert input_problems(spec, catalog, certain_only=True) == {}
    validate(spec)
    images = Session(spec, device_id=None).run().arrays(spec.outputs["images"])
    assert images[0].shape[-1] == 3 and float(np.std(images[0])) > 0


def test_a_cast_reads_labels_and_draws_but_not_encoded_files(catalog: Catalog) -> None:
    """cast converts any data (labels to INT64 for PyTorch), but a cast of the reader's encoded
    files is a decoder's place mistaken: still refused, with the fix to move it."""
    spec = preset("basic")
    cast = Node("label_int64", "cast", (Ref("source", 1),), {"dtype": "INT64"})
    labels = dataclasses.replace(
        spec, nodes=(*spec.nodes, cast), outputs={**spec.outputs, "labels": Ref("label_int64")}
    )
    assert input_problems(labels, catalog) == {}
    result = Session(labels, device_id=None).run()
    assert result.arrays(Ref("label_int64"))[0].dtype == np.int64
    encoded = spec.insert_after("source", Node("to_float", "cast", args={"dtype": "FLOAT"}))
    problems = input_problems(encoded, catalog)
    assert "cast takes" in problems["to_float"] and "encoded image files" in problems["to_float"]
