"""A draw fed to an argument of another type is refused when the graph is checked, naming the
node, the argument, the draw and the fix: DALI converts no argument input, and fails the
pipeline at run time where the types differ (each case below is run through DALI as well)."""

from __future__ import annotations

import numpy as np
import pytest
from nvidia.dali import fn, pipeline_def, types

from augexplorer import GraphInvalid, Node, Ref, Session
from augexplorer.spec import GraphSpec, Source
from augexplorer.validate import validate


def fed(draw: Node, op: str, argument: str, **args: float) -> GraphSpec:
    nodes = (
        Source("source"),
        Node("decode", "decoders.image", (Ref("source"),), {"output_type": "RGB"}),
        draw,
        Node("node", op, (Ref("decode"),), {argument: Ref(draw.id), **args}),
    )
    return GraphSpec(nodes, {"images": Ref("node"), "labels": Ref("source", 1)}, batch_size=2)


SIZE_INT32 = Node("size", "random.uniform", args={"range": [100.0, 200.0], "dtype": "INT32"})
QUALITY_FLOAT = Node("q", "random.uniform", args={"range": [30.0, 90.0]})
COIN = Node("coin", "random.coin_flip")

REFUSED = {
    "int32 draw into a float": (
        fed(SIZE_INT32, "resize", "resize_x", resize_y=100.0),
        "resize_x",
        "'size' draws INT32 values, and resize_x takes floats",
        "leave dtype out of 'size', or cast the draw to FLOAT",
    ),
    "float draw into an int32": (
        fed(QUALITY_FLOAT, "jpeg_compression_distortion", "quality"),
        "quality",
        "'q' draws FLOAT values, and quality takes whole numbers (INT32)",
        "give 'q' dtype=INT32, or cast the draw to INT32",
    ),
    "a coin into a float": (
        fed(COIN, "brightness", "brightness"),
        "brightness",
        "'coin' draws INT32 values, and brightness takes floats",
        "give 'coin' dtype=FLOAT, or cast the draw to FLOAT",
    ),
}


@pytest.mark.parametrize("case", REFUSED, ids=list(REFUSED))
def test_a_draw_of_another_type_is_refused_at_the_edge(case: str) -> None:
    spec, argument, said, fix = REFUSED[case]
    with pytest.raises(GraphInvalid) as refused:
        validate(spec)
    (problem,) = refused.value.problems
    assert (problem.node, problem.argument) == ("node", argument)
    assert said in problem.message and problem.fix == fix


def test_draws_of_the_arguments_own_type_pass_and_run() -> None:
    quality = Node("q", "random.uniform", args={"range": [30.0, 90.0], "dtype": "INT32"})
    angle = Node("angle", "random.uniform", args={"range": [-10.0, 10.0]})
    for spec in (
        fed(quality, "jpeg_compression_distortion", "quality"),
        fed(angle, "rotate", "angle"),
        fed(COIN, "flip", "horizontal"),
    ):
        Session(spec).run()


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def _dali_fed(case: str):  # type: ignore[no-untyped-def]
    images = fn.external_source(
        source=lambda: [np.zeros((8, 8, 3), np.uint8)] * 2, batch=True, layout="HWC"
    )
    if case == "int32 draw into a float":
        size = fn.random.uniform(range=[100, 200], dtype=types.INT32)
        return fn.resize(images, resize_x=size, resize_y=100.0)
    if case == "float draw into an int32":
        return fn.jpeg_compression_distortion(images, quality=fn.random.uniform(range=[30, 90]))
    return fn.brightness(images, brightness=fn.random.coin_flip())


@pytest.mark.parametrize("case", REFUSED, ids=list(REFUSED))
def test_dali_itself_refuses_each_refused_case(case: str) -> None:
    pipe = _dali_fed(case)
    pipe.build()
    with pytest.raises(RuntimeError, match=r"data where .* is expected|does not match"):
        pipe.run()
