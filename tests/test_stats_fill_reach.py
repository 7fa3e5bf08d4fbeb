"""Fill is judged where the graph passes it on: a rotation that grows its canvas fills its
corners, and a centre crop after it may cut nearly all of them away. The statistics count the
fill that reaches the end of the pixel-moving chain after the filling node, and warn on that,
not on the corners the crop drops (which told people to narrow a rotation that was fine)."""

from __future__ import annotations

import numpy as np

from augexplorer import Session, preset
from augexplorer.spec import GraphSpec, Random, Source, chain
from augexplorer.stats import collect_stats
from augexplorer.stats.fill import fill_reach
from augexplorer.validate import validate

GREY = 128  # no pixel of the test images is 0: every 0 after the rotation is its fill


def grey_images(count: int = 4) -> list[np.ndarray]:
    return [np.full((120, 160, 3), GREY, dtype=np.uint8) for _ in range(count)]


def rotate_then_crop(angle: float, crop: float) -> GraphSpec:
    return chain(
        Source("source", "arrays"),
        ("rotate", "rotate", {"angle": angle, "fill_value": 0.0}),  # the canvas grows
        ("crop", "crop", {"crop": [crop, crop]}),
        ("flip", "flip", {"horizontal": 1}),
        batch_size=4,
    )


def test_the_fill_is_counted_where_the_chain_of_moves_ends() -> None:
    spec = rotate_then_crop(45.0, 100.0)
    images = grey_images()
    stats = collect_stats(spec, images, batches=1, device_id=None)
    fill = stats.fill("rotate")
    assert fill is not None and fill.reaches == "flip"
    # measured apart: the zeros in the explorer's own flip output are the fill, nothing else
    flipped = Session(spec, images).run().output("flip")
    shares = [float((np.asarray(sample) == 0).all(axis=-1).mean()) for sample in flipped]
    assert abs(fill.reached_mean_share - np.mean(shares)) < 0.01
    assert fill.mean_share > 0.3  # the grown canvas is mostly corners...
    assert fill.reached_mean_share < 0.05  # ...which the crop of its centre leaves out
    assert not stats.warnings
    reached = stats.to_json()["fill"][0]["reaches"]
    assert reached["node"] == "flip" and reached["samples"] == 4


def test_a_crop_that_keeps_the_corners_keeps_the_warning_and_names_both_nodes() -> None:
    spec = rotate_then_crop(45.0, 190.0)  # nearly the whole 198 px canvas: the corners stay
    stats = collect_stats(spec, grey_images(), batches=1, device_id=None)
    fill = stats.fill("rotate")
    assert fill is not None and fill.reached_mean_share > 0.35
    (warning,) = [w for w in stats.warnings if w.node == "rotate"]
    assert "at `flip` (the fill of `rotate`)" in warning.message
    assert warning.argument == "angle"


def test_the_basic_preset_s_wide_rotation_is_no_longer_called_too_much_fill() -> None:
    """The bundled photos, the basic graph, a rotation of up to 45 degrees: over a third of the
    rotation's canvas is fill, 2-3% of what its centre crop passes on (measured)."""
    spec = preset("basic").set_arg("rotate", "angle", Random.uniform(-45, 45))
    stats = collect_stats(spec, batches=4, device_id=None)
    fill = stats.fill("rotate")
    assert fill is not None and fill.reaches == "flip"
    assert fill.mean_share > 0.3 and fill.reached_mean_share < 0.06
    assert not [w for w in stats.warnings if w.node == "rotate"]
    assert "at flip, where the graph passes it on" in stats.summary()


def test_the_chain_stops_at_a_node_that_changes_values_reads_twice_or_fills_too() -> None:
    def reach(*steps: tuple[str, str, dict]) -> str | None:
        spec = chain(Source("source", "arrays"), *steps, batch_size=2)
        plan = validate(spec)
        found = fill_reach(plan, plan.node_step("rotate"))
        return None if found is None else found.origin

    rotate = ("rotate", "rotate", {"angle": 10.0, "fill_value": 0.0})
    crop = ("crop", "crop", {"crop": [32.0, 32.0]})
    assert reach(rotate, crop) == "crop"
    assert reach(rotate) is None
    assert reach(rotate, ("bright", "brightness", {"brightness": 1.5}), crop) is None
    padded = ("pad_crop", "crop", {"crop": [300.0, 300.0], "out_of_bounds_policy": "pad"})
    assert reach(rotate, crop, padded) == "crop"  # its own fill would count with the rotation's
