"""The pieces of an exported module shown on their own (`pipeline_source`, `node_source`): the
same text as in the module, for the teaching notebooks and reviews."""

from __future__ import annotations

import pytest

from augexplorer import GraphSpec, Node, Random, Source, chain
from augexplorer.export import ExportError, generate, node_source, pipeline_source


def _rotating(angle: object) -> GraphSpec:
    reading = chain(
        Source("source", shuffle=True, seed=1234),
        ("decode", "decoders.image", {"output_type": "RGB"}),
        name="read_and_decode",
    )
    return reading.insert_after("decode", Node("rotate", "rotate", args={"angle": angle}))


def test_pipeline_source_is_the_modules_pipeline_function() -> None:
    spec = _rotating(10.0)
    text = pipeline_source(spec)
    assert text.startswith("@pipeline_def\ndef read_and_decode_pipeline(")
    assert text.rstrip().endswith("return rotate, source_labels")
    assert text in generate(spec)


def test_node_source_writes_a_random_argument_as_its_draw_then_the_call() -> None:
    text = node_source(_rotating(Random.uniform(-10, 10)), "rotate")
    draw, call = text.index("fn.random.uniform("), text.index("fn.rotate(")
    assert draw < call
    assert "range=[-10.0, 10.0]" in text
    assert "angle=rotate_angle" in text
    assert "device=device" in text  # one module serves device="cpu" and device="gpu"


def test_node_source_of_a_decoder_names_its_mixed_placement() -> None:
    text = node_source(_rotating(10.0), "decode")
    assert text == (
        "decode = fn.decoders.image(source, device=decoder_device, "
        "output_type=types.DALIImageType.RGB)\n"
    )


def test_node_source_refuses_an_unknown_node_naming_the_known_ones() -> None:
    with pytest.raises(ExportError, match=r"no node 'rotat'.*'rotate'"):
        node_source(_rotating(10.0), "rotat")
