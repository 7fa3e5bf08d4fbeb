"""Imported DALI code draws an argument with a node of its own (``fn.random.uniform`` feeding
``angle=``): scheduling a bound of that argument takes the draw into it, with the same draws
bit for bit, so the headline schedule (``rotate.angle.high``) works on imported code too. A
draw node that other nodes also read is left alone, and the schedule refused with the fix.
Real DALI on the CPU."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from nvidia.dali import fn, pipeline_def, types

from augexplorer import Random, Session
from augexplorer.data import samples_dir
from augexplorer.errors import GraphInvalid
from augexplorer.export.importer import import_pipeline
from augexplorer.schedules.targets import held_value, schedulable
from augexplorer.spec import GraphSpec, Node, Ref, Schedule, ScheduleTarget
from augexplorer.spec.draw_inlining import draw_of, inline_draw
from augexplorer.validate import validate

ROOT = str(samples_dir())


@pipeline_def(batch_size=4)
def drawn_by_nodes():  # type: ignore[no-untyped-def]
    jpegs, labels = fn.readers.file(file_root=ROOT, random_shuffle=True, seed=7, name="reader")
    images = fn.decoders.image(jpegs, output_type=types.RGB)
    images = fn.resize(images, resize_x=96, resize_y=96)
    angle = fn.random.uniform(range=[-20.0, 20.0], seed=3)
    images = fn.rotate(images, angle=angle, keep_size=True, fill_value=0)
    images = fn.brightness(images, brightness=fn.random.normal(mean=1.0, stddev=0.2, seed=9))
    images = fn.flip(images, horizontal=fn.random.coin_flip(probability=0.3, seed=5))
    return images, labels


@pipeline_def(batch_size=4)
def one_draw_read_twice():  # type: ignore[no-untyped-def]
    jpegs, labels = fn.readers.file(file_root=ROOT, random_shuffle=True, seed=7, name="reader")
    images = fn.decoders.image(jpegs, output_type=types.RGB)
    angle = fn.random.uniform(range=[-20.0, 20.0], seed=3)
    images = fn.rotate(images, angle=angle, keep_size=True, fill_value=0)
    images = fn.rotate(images, angle=angle, keep_size=True, fill_value=0)
    return images, labels


@pipeline_def(batch_size=4)
def unseeded_and_unplain():  # type: ignore[no-untyped-def]
    jpegs, labels = fn.readers.file(file_root=ROOT, random_shuffle=True, seed=7, name="reader")
    images = fn.decoders.image(jpegs, output_type=types.RGB)
    images = fn.resize(images, resize_x=96, resize_y=96)
    images = fn.rotate(images, angle=fn.random.uniform(range=[-20.0, 20.0]), keep_size=True)
    shift = fn.random.uniform(range=[0.0, 0.2], seed=4)
    level = fn.random.normal(mean=shift, stddev=0.1, seed=9)  # a parameter fed by a node
    images = fn.brightness(images, brightness=level)
    return images, labels


@pytest.fixture(scope="module")
def imported() -> GraphSpec:
    return import_pipeline(drawn_by_nodes, name="drawn")


def _reads(spec: GraphSpec, node: str, arg: str) -> str:
    value = spec.node(node).args[arg]  # type: ignore[union-attr]
    return str(getattr(value, "node", ""))


def batches(spec: GraphSpec, count: int = 3) -> list[list[np.ndarray]]:
    session = Session(spec, batch_size=4)
    runs = [session.run()] + [session.next_batch() for _ in range(count - 1)]
    return [r.arrays(r.final) for r in runs]


def same(a: list[list[np.ndarray]], b: list[list[np.ndarray]]) -> bool:
    return all(
        np.array_equal(x, y) for p, q in zip(a, b, strict=True) for x, y in zip(p, q, strict=True)
    )


def test_each_plain_draw_node_is_the_arguments_own_draw(imported: GraphSpec) -> None:
    arguments = {("rotate", "angle"): "uniform", ("brightness", "brightness"): "normal"}
    arguments[("flip", "horizontal")] = "coin_flip"
    inlined = imported
    for (node, arg), dist in arguments.items():
        drawer = _reads(imported, node, arg)
        assert drawer, (node, arg)  # imported as a node of its own
        draw = draw_of(imported, node, arg)
        assert draw is not None and draw.dist == dist
        assert draw.seed == imported.node(drawer).seed
        inlined = inline_draw(inlined, node, arg)
        assert drawer not in inlined
    assert draw_of(imported, "rotate", "angle") == Random.uniform(-20, 20, seed=3)
    validate(inlined)
    # DALI draws the same values: the same pictures, batch after batch
    assert same(batches(imported), batches(inlined))


def test_a_bound_of_an_imported_draw_can_be_scheduled(imported: GraphSpec) -> None:
    offered = {str(t) for t in schedulable(imported, "rotate")}
    assert {"rotate.angle.low", "rotate.angle.high"} <= offered
    assert held_value(imported, ScheduleTarget.parse("rotate.angle.high")) == 20.0
    scheduled = imported.with_epochs(10).with_schedule("rotate.angle.high", Schedule.linear(20, 45))
    assert isinstance(scheduled.node("rotate").args["angle"], Random)  # type: ignore[union-attr]
    validate(scheduled)
    # epoch 0 holds the value the code had: the imported pictures; the last epoch another
    assert same(batches(imported, 1), batches(scheduled, 1))
    late = Session(scheduled, batch_size=4).set_epoch(9)
    assert not same(batches(imported, 1), [late.arrays(late.final)])


def test_a_draw_other_nodes_read_stays_and_the_schedule_says_why() -> None:
    spec = import_pipeline(one_draw_read_twice, name="twice")
    first = next(n.id for n in spec.operators() if n.op == "rotate")
    assert draw_of(spec, first, "angle") is None
    assert not {str(t) for t in schedulable(spec, first)} & {f"{first}.angle.high"}
    scheduled = spec.with_epochs(5).with_schedule(f"{first}.angle.high", Schedule.linear(20, 40))
    assert scheduled.node(first).args["angle"] == spec.node(first).args["angle"]  # type: ignore[union-attr]
    with pytest.raises(GraphInvalid) as raised:
        validate(scheduled)
    said = str(raised.value)
    assert "is not a plain draw that only this argument reads" in said
    assert "a draw of its own" in said and "drawn apart from" in said


def test_an_unseeded_draw_is_inlined_with_the_seed_lowering_gives_it() -> None:
    spec = import_pipeline(unseeded_and_unplain, name="unplain")
    rotate = next(n.id for n in spec.operators() if n.op == "rotate")
    drawer = _reads(spec, rotate, "angle")
    if spec.node(drawer).seed is not None:  # type: ignore[union-attr]
        pytest.skip("this DALI writes the seeds it derived into the serialized pipeline")
    draw = draw_of(spec, rotate, "angle")
    assert draw is not None and draw.seed is not None
    inlined = inline_draw(spec, rotate, "angle")
    assert same(batches(spec, 2), batches(inlined, 2))


def test_draws_that_are_not_plain_are_left_alone() -> None:
    spec = import_pipeline(unseeded_and_unplain, name="unplain")
    brightness = next(n.id for n in spec.operators() if n.op == "brightness")
    assert spec.node(_reads(spec, brightness, "brightness")).op == "random.normal"  # type: ignore[union-attr]
    assert draw_of(spec, brightness, "brightness") is None  # its mean is fed by a node
    for node in spec.operators():
        schedulable(spec, node.id)  # offered or not, never an error
    # a coin drawn as INT32 where the argument's own draw would be a float
    rotate = next(n.id for n in spec.operators() if n.op == "rotate")
    coin = Node("coin", "random.coin_flip", seed=6)
    with_coin = dataclasses.replace(spec, nodes=(*spec.nodes, coin))
    assert draw_of(with_coin.set_arg(rotate, "angle", Ref("coin")), rotate, "angle") is None


def test_a_draw_node_with_schedules_of_its_own_is_not_inlined(imported: GraphSpec) -> None:
    drawer = _reads(imported, "brightness", "brightness")
    spec = imported.with_epochs(4)
    # a schedule on the draw node itself would vanish with the node
    spec = dataclasses.replace(
        spec, schedules={ScheduleTarget(drawer, "stddev"): Schedule.linear(0.2, 0.4)}
    )
    assert draw_of(spec, "brightness", "brightness") is None
