"""Schedules over epochs: the curves, their JSON, their checks, and the live engine at an epoch."""

from __future__ import annotations

import dataclasses
import json
import math

import numpy as np
import pytest

from augexplorer import Session
from augexplorer.errors import EpochError, GraphInvalid, SpecFormatError
from augexplorer.presets import preset
from augexplorer.schedules import at_epoch, schedulable, values_over_run
from augexplorer.spec import Clause, GraphSpec, Node, Ref, Schedule, ScheduleTarget, dumps, loads

EPOCHS = 10


def test_curves_give_their_values_at_each_epoch() -> None:
    assert Schedule.constant(3).value_at(7, EPOCHS) == 3.0
    ramp = Schedule.linear(0, 90)
    assert [ramp.value_at(e, EPOCHS) for e in (0, 3, 9)] == [0.0, 30.0, 90.0]
    late = Schedule.linear(1, 2, begin=4, finish=6)
    assert [late.value_at(e, EPOCHS) for e in (0, 4, 5, 6, 9)] == [1.0, 1.0, 1.5, 2.0, 2.0]
    cosine = Schedule.cosine(0, 1)
    assert cosine.value_at(0, 11) == 0.0
    assert cosine.value_at(5, 11) == pytest.approx(0.5)
    assert cosine.value_at(2, 11) == pytest.approx((1 - math.cos(math.pi * 0.2)) / 2)
    warm = Schedule.warmup(0, 30, epochs=3)
    assert [warm.value_at(e, EPOCHS) for e in (0, 1, 3, 8)] == [0.0, 10.0, 30.0, 30.0]
    steps = Schedule.steps([(5, 0.5), (0, 0.1)])  # given out of order
    assert [steps.value_at(e, EPOCHS) for e in (0, 4, 5, 9)] == [0.1, 0.1, 0.5, 0.5]
    table = Schedule.table([(0, 0.0), (4, 8.0), (8, 0.0)])
    assert [table.value_at(e, EPOCHS) for e in (0, 2, 4, 6, 9)] == [0.0, 4.0, 8.0, 4.0, 0.0]


def test_turning_epochs_hold_each_curves_extremes() -> None:
    for schedule in (
        Schedule.linear(1, 2, begin=4, finish=6),
        Schedule.cosine(5, -5),
        Schedule.warmup(0, 1, epochs=4),
        Schedule.table([(0, 0.0), (4, 8.0), (8, 0.0)]),
    ):
        values = [schedule.value_at(e, EPOCHS) for e in range(EPOCHS)]
        turning = [schedule.value_at(e, EPOCHS) for e in schedule.turning_epochs(EPOCHS)]
        assert min(turning) == min(values) and max(turning) == max(values), schedule


def scheduled() -> GraphSpec:
    return (
        preset("basic")
        .with_epochs(EPOCHS)
        .with_schedule("rotate.angle.high", Schedule.linear(5, 40))
        .with_schedule("rotate.angle.low", Schedule.linear(-5, -40))
        .with_schedule("flip.apply", Schedule.steps([(0, 0.0), (5, 1.0)]))
    )


def test_schedules_round_trip_through_json_and_a_graph_without_keeps_its_json() -> None:
    spec = scheduled().with_schedule("resize.resize_shorter", Schedule.warmup(200, 256, 3))
    assert loads(dumps(spec)) == spec
    assert '"schedules"' not in dumps(preset("basic"))


@pytest.mark.parametrize(
    ("schedules", "named"),
    [
        ({"rotate.angle.middle": {"curve": "linear"}}, "not a schedule target"),
        ({"rotate.angle.high": {"curve": "exponential"}}, "schedules.rotate.angle.high.curve"),
        ({"rotate.angle.high": {"curve": "steps", "points": [[-1, 0.2]]}}, "points"),
    ],
)
def test_a_bad_schedule_in_json_is_named(schedules: dict, named: str) -> None:
    text = dumps(preset("basic")).rstrip().rstrip("}") + f', "schedules": {_json(schedules)}}}'
    with pytest.raises(SpecFormatError, match=named.replace(".", r"\.")):
        loads(text)


def _json(value: object) -> str:
    import json

    return json.dumps(value)


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda s: s.with_epochs(None), "no run length"),
        (lambda s: s.with_schedule("twirl.angle", Schedule.constant(1)), "does not have"),
        (lambda s: s.with_schedule("rotate.angle", Schedule.constant(1)), "drawn at random"),
        (
            lambda s: s.with_schedule("resize.resize_shorter.high", Schedule.constant(1)),
            "not drawn",
        ),
        (lambda s: s.with_schedule("rotate.angle.mean", Schedule.constant(1)), "no parameter"),
        (lambda s: s.with_schedule("flip.apply", Schedule.steps([])), "no (epoch, value)"),
    ],
)
def test_a_schedule_that_points_at_nothing_it_can_drive_is_named(edit, message: str) -> None:
    with pytest.raises(GraphInvalid, match=message.replace("(", r"\(").replace(")", r"\)")):
        Session(edit(scheduled()), device_id=None)


def test_a_value_that_leaves_its_range_late_in_the_run_is_named_with_its_epoch() -> None:
    spec = scheduled().with_schedule("flip.apply", Schedule.linear(0.2, 1.8))
    with pytest.raises(GraphInvalid) as raised:
        Session(spec, device_id=None)
    problem = raised.value.problems[0]
    assert "at epoch 9 of 0..9" in problem.message and problem.node == "flip"


def test_moving_the_epoch_changes_only_what_the_schedules_drive() -> None:
    session = Session(scheduled(), device_id=None)
    first = session.run()
    angles = {
        e: np.asarray(session.set_epoch(e).draws("rotate")["rotate"]["angle"]) for e in (0, 9)
    }
    # the same draws, stretched from U(-5, 5) to U(-40, 40): the seeds stay, the bounds move
    np.testing.assert_allclose(angles[9], angles[0] * 8, rtol=1e-5)
    assert session.result is not None and session.epoch == 9
    batch = len(first.arrays("flip"))
    assert session.result.draws("flip")["flip"]["apply"] == [True] * batch
    assert first.draws("flip")["flip"]["apply"] == [False] * batch
    again = session.set_epoch(0)
    for back, before in zip(again.arrays("flip"), first.arrays("flip"), strict=True):
        np.testing.assert_array_equal(back, before)


def test_an_epoch_the_run_does_not_have_changes_nothing() -> None:
    session = Session(scheduled(), device_id=None)
    session.set_epoch(3)
    for bad in (-1, EPOCHS, 2.5, True):
        with pytest.raises(EpochError, match=r"epochs 0\.\.9"):
            session.set_epoch(bad)  # type: ignore[arg-type]
    assert session.epoch == 3


def test_editing_a_scheduled_constant_leaves_the_schedule_in_charge() -> None:
    spec = preset("basic").with_epochs(EPOCHS)
    spec = spec.with_schedule("resize.resize_shorter", Schedule.linear(240, 256))
    session = Session(spec, device_id=None)
    session.run()
    session.set_arg("resize", "resize_shorter", 100.0)
    assert session.plan.node_step("resize").args["resize_shorter"] == 240.0


def test_renaming_or_removing_a_node_takes_its_schedules_along() -> None:
    spec = scheduled()
    renamed = spec.rename("rotate", "twist")
    assert ScheduleTarget("twist", "angle", "high") in renamed.schedules
    assert all(t.node != "rotate" for t in renamed.schedules)
    assert all(t.node != "flip" for t in spec.remove("flip").schedules)


def test_values_over_the_run_and_at_an_epoch_agree() -> None:
    spec = scheduled()
    over = values_over_run(spec)
    high = over[ScheduleTarget("rotate", "angle", "high")]
    assert len(high) == EPOCHS and high[0] == 5.0 and high[-1] == 40.0
    resolved = at_epoch(spec, 4)
    assert resolved.node("rotate").args["angle"].high == pytest.approx(high[4])


def test_a_reroll_at_a_later_epoch_keeps_the_values_as_written() -> None:
    spec = scheduled().with_schedule("crop.apply", Schedule.linear(1.0, 0.5))
    session = Session(spec, device_id=None)
    before = session.set_epoch(EPOCHS - 1).draws("rotate")["rotate"]["angle"]
    session.reroll()
    rotate, flip, crop = (session.spec.node(n) for n in ("rotate", "flip", "crop"))
    # the numbers as the graph holds them, not epoch 9's values (40, -40, 1, 0.5)
    assert (rotate.args["angle"].low, rotate.args["angle"].high) == (-20.0, 20.0)
    assert flip.probability is None or flip.probability.p == 1.0
    assert crop.probability is not None and crop.probability.p == 1.0
    assert session.spec.schedules == spec.schedules
    after = session.result.draws("rotate")["rotate"]["angle"]  # type: ignore[union-attr]
    assert after != before and max(map(abs, after)) > 20  # new draws, still epoch 9's range
    session.set_epoch(0)
    assert max(map(abs, session.result.draws("rotate")["rotate"]["angle"])) <= 5  # type: ignore[union-attr]


def test_two_values_of_one_node_that_cross_between_turning_epochs_are_named() -> None:
    # low rises in a straight line, high along a cosine: 0.5 apart at both ends, crossed between
    spec = (
        preset("basic")
        .with_epochs(11)
        .with_schedule("rotate.angle.low", Schedule.linear(0, 10))
        .with_schedule("rotate.angle.high", Schedule.cosine(0.5, 10.5))
    )
    with pytest.raises(GraphInvalid) as raised:
        Session(spec, device_id=None)
    problem = raised.value.problems[0]
    assert "at epoch 2 of 0..10" in problem.message and problem.node == "rotate"


def test_a_schedule_for_a_data_source_says_so() -> None:
    with pytest.raises(GraphInvalid, match="is for a data source") as raised:
        Session(scheduled().with_schedule("source.apply", Schedule.linear(0, 1)), device_id=None)
    assert raised.value.problems[0].node == "source"


def test_a_duplicated_node_follows_the_run_as_its_original_does() -> None:
    spec = scheduled().duplicate("rotate")
    (copy,) = {t.node for t in spec.schedules} - {"rotate", "flip"}
    high = spec.schedules[ScheduleTarget(copy, "angle", "high")]
    assert high == spec.schedules[ScheduleTarget("rotate", "angle", "high")]
    assert ScheduleTarget(copy, "angle", "low") in spec.schedules
    assert loads(dumps(spec)) == spec


def test_an_integer_argument_left_out_of_the_graph_gets_whole_numbers() -> None:
    spec = preset("basic").insert_after(
        "rotate", Node("jpeg", "jpeg_compression_distortion", inputs=(Ref("rotate"),)), rewire=True
    )
    spec = spec.with_epochs(5).with_schedule("jpeg.quality", Schedule.linear(30, 90.5))
    session = Session(spec, device_id=None)  # a float such as 45.125 was refused at epoch 1
    session.set_epoch(1)
    quality = session.plan.node_step("jpeg").args["quality"]
    assert quality == 45 and isinstance(quality, int)
    assert len(session.run().arrays("jpeg")) == spec.batch_size  # DALI ran it at epoch 1


def conditioned() -> GraphSpec:
    """Rotate runs where a coin flip of its own says so."""
    coin = Node("coin", "random.coin_flip", args={"dtype": "BOOL", "probability": 0.5}, seed=3)
    spec = preset("basic").replace_node(
        dataclasses.replace(preset("basic").node("rotate"), when=(Clause(Ref("coin")),))
    )
    return dataclasses.replace(spec, nodes=(*spec.nodes[:1], coin, *spec.nodes[1:]))


def test_an_apply_schedule_on_a_node_under_a_condition_names_the_coin_to_schedule() -> None:
    spec = conditioned().with_epochs(EPOCHS)
    assert ScheduleTarget("rotate") not in schedulable(spec, "rotate")  # nothing to offer
    assert ScheduleTarget("coin") not in schedulable(spec, "coin")  # no input: no coin of its own
    assert ScheduleTarget("coin", "probability") in schedulable(spec, "coin")
    with pytest.raises(GraphInvalid) as raised:
        Session(spec.with_schedule("rotate.apply", Schedule.linear(0, 1)), device_id=None)
    (problem,) = raised.value.problems
    assert "the schedule rotate.apply" in problem.message and "coin.probability" in problem.fix
    session = Session(spec.with_schedule("coin.probability", Schedule.linear(0, 1)), device_id=None)
    # the coin's probability follows the run: never at the first epoch, always at the last
    assert not any(bool(c) for c in session.set_epoch(0).arrays("coin"))
    assert all(bool(c) for c in session.set_epoch(EPOCHS - 1).arrays("coin"))


def test_a_value_out_of_range_names_the_schedule_that_set_it_at_any_epoch() -> None:
    for ramp, epoch in ((Schedule.linear(1.5, 0.5), 0), (Schedule.linear(0.2, 1.8), EPOCHS - 1)):
        with pytest.raises(GraphInvalid) as raised:
            Session(scheduled().with_schedule("flip.apply", ramp), device_id=None)
        (problem,) = raised.value.problems
        # the graph holds no apply probability: the schedule's key is the field to change
        assert f"at epoch {epoch} of 0..9, as the schedule flip.apply set it" in problem.message
        assert problem.node == "flip" and "change the schedule" in (problem.fix or "")


def test_a_graph_loaded_with_schedules_but_no_run_length_names_the_json_field() -> None:
    data = json.loads(dumps(scheduled()))
    del data["epochs"]
    with pytest.raises(GraphInvalid) as raised:
        Session(loads(json.dumps(data)), device_id=None)
    assert '"epochs": 90' in (raised.value.problems[0].fix or "")
