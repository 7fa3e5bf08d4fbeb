"""A random draw bound to an argument is held to the argument's range as a constant is: DALI
checks each drawn value only when a batch draws it, so a draw that reaches past the range passes
the first batch and fails a later one, or the training loader."""

from __future__ import annotations

import dataclasses

import pytest

from augexplorer import GraphInvalid, GraphSpec, Node, Random, Ref, Source, chain, preset, validate
from augexplorer.errors import Problem
from augexplorer.spec import Schedule


def only(spec: GraphSpec) -> Problem:
    with pytest.raises(GraphInvalid) as error:
        validate(spec)
    (problem,) = error.value.problems
    return problem


BASIC = preset("basic")


def drawn(op: str, args: dict[str, object]) -> GraphSpec:
    """The bundled samples decoded, resized and given to `op` with `args`."""
    return chain(
        Source("source"),
        ("decode", "decoders.image", {"output_type": "RGB"}),
        ("resize", "resize", {"resize_x": 160.0, "resize_y": 160.0}),
        (op, op, args),
        batch_size=4,
    )


@pytest.mark.parametrize(
    ("draw", "named"),
    [
        (Random.uniform(0, 1.5), "the uniform draw's high 1.5 is out of range [0, 1]"),
        (Random.uniform(-0.5, 0.5), "the uniform draw's low -0.5 is out of range [0, 1]"),
        (
            Random.uniform(-0.5, 1.5),
            "the uniform draw's low -0.5 and high 1.5 are out of range [0, 1]",
        ),
    ],
)
def test_a_uniform_draw_past_the_range_is_refused_as_the_constant_is(
    draw: Random, named: str
) -> None:
    problem = only(BASIC.set_arg("crop", "crop_pos_y", draw))
    assert (problem.node, problem.argument) == ("crop", "crop_pos_y")
    assert problem.message == named
    # the fix: the draw's range cut to the argument's
    low, high = max(draw.low, 0), min(draw.high, 1)
    assert problem.fix == f"draw from a range inside [0, 1]: Random.uniform({low:g}, {high:g})"


def test_a_uniform_draw_from_the_range_ends_is_taken_as_constants_at_them_are() -> None:
    # DALI draws from [low, high): high itself is never drawn, and 1.0 is a valid constant
    validate(BASIC.set_arg("crop", "crop_pos_y", Random.uniform(0.0, 1.0)))
    validate(BASIC.set_arg("crop", "crop_pos_y", Random.choice([0.0, 0.5, 1.0])))


def test_a_vector_draw_is_checked_and_its_fix_keeps_the_shape() -> None:
    problem = only(BASIC.set_arg("crop", "crop", Random.uniform(100, 20000, shape=2)))
    assert problem.message == "the uniform draw's high 20000 is out of range [0, 16384]"
    assert problem.fix is not None and "Random.uniform(100, 16384, shape=2)" in problem.fix
    spec = drawn("slice", {"rel_start": Random.uniform(0.2, 1.2, shape=2), "rel_shape": [0.5, 0.5]})
    problem = only(spec)
    assert (problem.node, problem.argument) == ("slice", "rel_start")
    assert "high 1.2 is out of range [0, 1]" in problem.message


def test_choice_values_out_of_range_are_named() -> None:
    problem = only(BASIC.set_arg("crop", "crop_pos_x", Random.choice([0.2, 1.5, -1.0])))
    assert problem.message == "the choice's values 1.5, -1 are out of range [0, 1]"
    assert problem.fix == "choose among values inside [0, 1]: change or drop 1.5, -1"


def test_an_integer_argument_is_held_to_its_range_whatever_the_draw() -> None:
    def quality(draw: Random) -> GraphSpec:
        return drawn("jpeg_compression_distortion", {"quality": draw})

    validate(quality(Random.uniform(1, 100)))
    problem = only(quality(Random.uniform(0, 100)))
    assert problem.message == "the uniform draw's low 0 is out of range [1, 100]"
    problem = only(quality(Random.choice([50, 101])))
    assert "value 101 is out of range [1, 100]" in problem.message
    problem = only(quality(Random.coin_flip(0.5)))  # it draws 0 or 1
    assert "the coin flip's value 0 is out of range [1, 100]" in problem.message


def test_a_normal_draw_on_a_range_dali_enforces_is_refused_with_a_uniform_or_a_clamp() -> None:
    problem = only(BASIC.set_arg("crop", "crop_pos_y", Random.normal(0.5, 0.2)))
    assert (problem.node, problem.argument) == ("crop", "crop_pos_y")
    assert "a normal draw has no bounds: N(0.5, 0.2) leaves range [0, 1]" in problem.message
    assert "on 1.2% of samples" in problem.message
    assert problem.fix is not None
    assert "Random.uniform(0.1, 0.9)" in problem.fix and "math.clamp(draw, 0, 1)" in problem.fix
    # however far its tails reach past the range: a long run draws there
    problem = only(BASIC.set_arg("crop", "crop_pos_y", Random.normal(0.5, 0.05)))
    assert "1 in " in problem.message
    # a normal with no spread draws its mean: held to the range as a constant
    validate(BASIC.set_arg("crop", "crop_pos_y", Random.normal(0.5, 0.0)))
    problem = only(BASIC.set_arg("crop", "crop_pos_y", Random.normal(1.5, 0.0)))
    assert problem.message == "the normal draw's mean 1.5 is out of range [0, 1]"


def test_a_normal_draw_where_dali_takes_values_past_the_range_stays() -> None:
    # brightness jittered by a normal, as DALI's examples and imported code do; DALI takes a
    # brightness past [0, 1000] (it is a range for sensible constants)
    validate(drawn("brightness", {"brightness": Random.normal(1.0, 0.2)}))
    problem = only(drawn("brightness", {"brightness": Random.uniform(-0.5, 1.5)}))
    assert "low -0.5 is out of range [0, 1000]" in problem.message


def test_a_draw_node_only_the_argument_reads_is_checked_and_named() -> None:
    spec = drawn("crop", {"crop": [128.0, 128.0], "crop_pos_y": Ref("pos")})
    draw = Node("pos", "random.uniform", args={"range": [0.0, 1.5]}, seed=3)
    spec = dataclasses.replace(spec, nodes=(spec.nodes[0], draw, *spec.nodes[1:]))
    problem = only(spec)
    assert (problem.node, problem.argument) == ("crop", "crop_pos_y")
    assert problem.message == (
        "node 'pos' draws it: the uniform draw's high 1.5 is out of range [0, 1]"
    )
    assert problem.fix == "give 'pos' a range inside [0, 1]: range=[0, 1]"


@pytest.mark.parametrize(
    ("ramp", "epoch", "named"),
    [
        (Schedule.linear(1.0, 1.5), 9, "high 1.5"),
        (Schedule.linear(1.5, 1.0), 0, "high 1.5"),
        (Schedule.steps([(0, 1.0), (4, 1.2), (7, 1.0)]), 4, "high 1.2"),
    ],
)
def test_a_scheduled_draw_bound_is_checked_at_every_epoch_it_reaches(
    ramp: Schedule, epoch: int, named: str
) -> None:
    spec = BASIC.set_arg("crop", "crop_pos_y", Random.uniform(0.0, 1.0)).with_epochs(10)
    spec = spec.with_schedule("crop.crop_pos_y.high", ramp)
    problem = only(spec)
    assert (problem.node, problem.argument) == ("crop", "crop_pos_y")
    assert problem.message == (
        f"at epoch {epoch} of 0..9, as the schedule crop.crop_pos_y.high set it: the uniform "
        f"draw's {named} is out of range [0, 1]"
    )
    assert problem.fix is not None and "change the schedule" in problem.fix
    # a ramp that stays in range is taken
    validate(spec.with_schedule("crop.crop_pos_y.high", Schedule.linear(0.5, 1.0)))
