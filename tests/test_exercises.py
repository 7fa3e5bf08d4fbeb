"""The exercise checks of the teaching notebooks: a right answer passes, the usual mistakes get
their hint, and the placeholder the notebooks ship with passes with a note."""

from __future__ import annotations

import numpy as np
import pytest

from augexplorer.exercises import (
    WrongAnswer,
    check_boxes_in_pixels,
    check_clean_crop_side,
    check_fade_after_hold,
    check_inflated_box,
    check_last_batch,
    check_no_black_corners,
    check_normalized_once,
    check_seed_per_rank,
    check_widest_rotation,
    clean_crop_side,
    fill_passed_on,
    rotated_box,
)
from augexplorer.spec import Schedule
from augexplorer.spec.seeds import rank_seed

CHECKS_WITH_PLACEHOLDER = [
    lambda: check_seed_per_rank(None),
    lambda: check_boxes_in_pixels(None),
    lambda: check_inflated_box(None),
    lambda: check_no_black_corners(None, (8, 8)),
    lambda: check_last_batch(None, 19, 8),
    lambda: check_normalized_once(None),
    lambda: check_clean_crop_side(None),
    lambda: check_fade_after_hold(None, 5),
    lambda: check_widest_rotation(None),
]


@pytest.mark.parametrize("check", CHECKS_WITH_PLACEHOLDER)
def test_the_placeholder_is_not_attempted_yet(check) -> None:  # type: ignore[no-untyped-def]
    assert check().startswith("Not attempted yet")


def test_seed_per_rank() -> None:
    assert "rank_seed" in check_seed_per_rank(lambda rank: rank_seed(42, rank))
    with pytest.raises(WrongAnswer, match="share a seed"):
        check_seed_per_rank(lambda rank: 42)
    with pytest.raises(WrongAnswer, match="rank 0"):
        check_seed_per_rank(lambda rank: 42 + rank + 1)


def test_boxes_in_pixels() -> None:
    scale = np.array([640, 480, 640, 480])
    assert check_boxes_in_pixels(lambda boxes, w, h: boxes * scale).startswith("Right")
    with pytest.raises(WrongAnswer, match="still fractions"):
        check_boxes_in_pixels(lambda boxes, w, h: boxes)
    with pytest.raises(WrongAnswer, match="swapped"):
        check_boxes_in_pixels(lambda boxes, w, h: boxes * np.array([h, w, h, w]))


def test_inflated_box() -> None:
    assert rotated_box([0, 0, 100, 100], 90, (50, 50)) == pytest.approx([0, 0, 100, 100])
    assert check_inflated_box(2.0).startswith("Right")
    with pytest.raises(WrongAnswer, match="keeps its area"):
        check_inflated_box(1.0)
    with pytest.raises(WrongAnswer, match="not quite"):
        check_inflated_box(1.41)


def test_no_black_corners() -> None:
    bright = np.full((8, 8, 3), 200, np.uint8)
    assert check_no_black_corners([bright], (8, 8)).startswith("Right")
    cornered = bright.copy()
    cornered[:4, :4] = 0
    with pytest.raises(WrongAnswer, match="black corner"):
        check_no_black_corners([cornered], (8, 8))
    with pytest.raises(WrongAnswer, match="keep_size"):
        check_no_black_corners([np.full((10, 9, 3), 200, np.uint8)], (8, 8))


def test_last_batch() -> None:
    assert check_last_batch([8, 8, 3], 19, 8).startswith("Right")
    with pytest.raises(WrongAnswer, match="partial"):
        check_last_batch([8, 8, 8], 19, 8)
    with pytest.raises(WrongAnswer, match="expected"):
        check_last_batch([8, 8], 19, 8)


def test_normalized_once() -> None:
    once = np.random.default_rng(0).normal(0.0, 1.0, (2, 3, 8, 8))
    assert check_normalized_once(once).startswith("Right")
    with pytest.raises(WrongAnswer, match="normalized twice"):
        check_normalized_once((once - 0.485 * 255) / (0.229 * 255))
    with pytest.raises(WrongAnswer, match="0-255"):
        check_normalized_once(once * 60 + 120)
    # given the loader's batch, the answers a spread cannot tell apart are caught: torchvision's
    # Normalize again (spread 4.4), the notebook's own MEAN and STD again (spread 0.13)
    assert check_normalized_once(once, once).startswith("Right")
    mean = np.array([0.485, 0.456, 0.406])[None, :, None, None]
    std = np.array([0.229, 0.224, 0.225])[None, :, None, None]
    for again in ((once - mean) / std, (once - mean * 255) / (std * 255) + 2.0):
        with pytest.raises(WrongAnswer, match="normalized again"):
            check_normalized_once(again, once)


def test_the_corner_exercise_of_notebook_03_has_an_answer_that_passes() -> None:
    # the graph of the exercise, and the two edits it asks for, run with real DALI
    from augexplorer import Random, Session, Source, chain

    turning = chain(
        Source("source", seed=3),
        ("decode", "decoders.image", {"output_type": "RGB"}),
        ("resize", "resize", {"resize_x": 256.0, "resize_y": 256.0}),
        ("rotate", "rotate", {"angle": Random.uniform(20, 30), "fill_value": 0.0}),
        batch_size=3,
    )
    with pytest.raises(WrongAnswer, match="keep_size"):
        check_no_black_corners(Session(turning, device_id=None).run().arrays("rotate"), (256, 256))
    kept = turning.set_arg("rotate", "keep_size", True)
    with pytest.raises(WrongAnswer, match="black corner"):
        check_no_black_corners(Session(kept, device_id=None).run().arrays("rotate"), (256, 256))
    answer = kept.unset_arg("rotate", "fill_value")
    images = Session(answer, device_id=None).run().arrays("rotate")
    assert check_no_black_corners(images, (256, 256)).startswith("Right")


RADIANS = "0.0174533"
CLEAN_SIDE = (
    f"256 / (math.abs(math.cos(angle * {RADIANS})) + math.abs(math.sin(angle * {RADIANS})))"
)


def test_clean_crop_side_is_the_square_inside_a_turned_square() -> None:
    assert clean_crop_side(0, 256) == pytest.approx(256)
    assert clean_crop_side(90, 256) == pytest.approx(256)
    assert clean_crop_side(-45, 256) == pytest.approx(256 / np.sqrt(2))


def test_the_arithmetic_exercise_of_notebook_03_runs_the_answer_in_dali() -> None:
    assert check_clean_crop_side(CLEAN_SIDE).startswith("Right")
    grown = CLEAN_SIDE.replace("256 / ", "256 * ")
    with pytest.raises(WrongAnswer, match="don't multiply"):
        check_clean_crop_side(grown)
    with pytest.raises(WrongAnswer, match="radians"):
        check_clean_crop_side(CLEAN_SIDE.replace(f" * {RADIANS}", ""))
    with pytest.raises(WrongAnswer, match="positive angles only"):
        check_clean_crop_side(CLEAN_SIDE.replace("math.abs", ""))
    with pytest.raises(WrongAnswer, match="expected sides"):
        check_clean_crop_side("200 + angle")
    with pytest.raises(WrongAnswer, match="does not run in a graph"):
        check_clean_crop_side("256 /")


def test_fade_after_hold_takes_every_schedule_with_its_values() -> None:
    # notebook 08: 0.5 over epochs 0 and 1, then a straight line to 0 at epoch 4
    assert check_fade_after_hold(Schedule.linear(0.5, 0, begin=1), 5).startswith("Right")
    assert check_fade_after_hold(Schedule.table([(1, 0.5), (4, 0)]), 5).startswith("Right")
    with pytest.raises(WrongAnswer, match="begin=1"):
        check_fade_after_hold(Schedule.linear(0.5, 0), 5)  # falls from epoch 0
    with pytest.raises(WrongAnswer, match="should reach 0"):
        check_fade_after_hold(Schedule.linear(0.5, 0.1, begin=1), 5)
    with pytest.raises(WrongAnswer, match="straight line"):
        check_fade_after_hold(Schedule.cosine(0.5, 0, begin=1), 5)
    with pytest.raises(WrongAnswer, match="expected a Schedule"):
        check_fade_after_hold(0.5, 5)  # type: ignore[arg-type]


def test_widest_rotation_within_the_fill_budget() -> None:
    """The check's answer is found here the long way, degree by degree: the widest range whose
    fill passed on stays within 5%; a narrower one leaves room, a wider one is over."""
    shares = {degrees: fill_passed_on(degrees) for degrees in range(8, 31)}
    within = [degrees for degrees, share in shares.items() if share <= 0.05]
    widest = max(within)
    assert 8 < widest < 30 and within == list(range(8, widest + 1))  # more turn, more corners
    assert check_widest_rotation(widest).startswith("Right")
    with pytest.raises(WrongAnswer, match="room for a wider rotation"):
        check_widest_rotation(widest - 3)
    with pytest.raises(WrongAnswer, match="over the 5% budget"):
        check_widest_rotation(widest + 3)
    for nonsense in ("16", True, 0, 120):
        with pytest.raises(WrongAnswer, match="half-width in degrees"):
            check_widest_rotation(nonsense)  # type: ignore[arg-type]
