"""A later batch in the explorer is the training pipeline's later batch, draws included.

DALI's random operators carry their generators' state from one batch to the next, so batch 3 of
training draws other values than batch 1. "Next batch", edits made there and new seeds must all
show batch 3 as the exported pipeline (and DALI itself) makes it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from nvidia.dali import fn, pipeline_def, types

import augexplorer.engine.session as session_module
from augexplorer import (
    GraphSpec,
    Node,
    PythonCode,
    Random,
    Ref,
    RunError,
    RunResult,
    Session,
    Source,
)
from augexplorer.builder import build_pipeline
from augexplorer.engine.training_draws import TrainingDraws

BATCH = 4


def fused_batch(result: RunResult, batch_index: int) -> list[list[np.ndarray]]:
    """Batch `batch_index` of `result`'s plan as one fused pipeline, the way export writes it."""
    pipe = build_pipeline(result.plan, result.sources, num_threads=1)
    pipe.build()
    for _ in range(batch_index):
        pipe.run()
    return [[np.array(out.at(i)) for i in range(len(out))] for out in pipe.run()]


def assert_outputs(result: RunResult, expected: list[list[np.ndarray]], what: str) -> None:
    refs = list(result.plan.outputs.values())
    assert len(refs) == len(expected)
    for ref, want in zip(refs, expected, strict=True):
        got = result.arrays(ref)
        assert len(got) == len(want), what
        for index, (x, y) in enumerate(zip(got, want, strict=True)):
            assert x.dtype == y.dtype and x.shape == y.shape, f"{what}: {ref} #{index}"
            np.testing.assert_array_equal(x, y, err_msg=f"{what}: {ref} #{index}")


def noisy_arrays_graph() -> GraphSpec:
    """Noise on in-memory images of different sizes: how many values the noise draws depends on
    each batch's images, so batch 3's draws need batches 1 and 2 run first."""
    nodes = (
        Source("source", "arrays"),
        Node("noise", "noise.gaussian", (Ref("source"),), {"stddev": Random.uniform(5.0, 40.0)}),
    )
    return GraphSpec(nodes, {"images": Ref("noise"), "labels": Ref("source", 1)}, batch_size=BATCH)


def sample_arrays() -> tuple[list[np.ndarray], list[int]]:
    rng = np.random.default_rng(11)
    images = [rng.integers(0, 256, (20 + 6 * i, 30 + 4 * i, 3), dtype=np.uint8) for i in range(7)]
    return images, list(range(7))


def hand_written_noise(session: Session, batches: int) -> list[list[list[np.ndarray]]]:
    """The same graph written in DALI directly (no augexplorer code), fed batch after batch."""
    seeds = {step.id: step.seed for step in session.plan.steps if step.seed is not None}
    images, labels = sample_arrays()

    # synchronous: fed one batch, it runs that batch (a pipelined one asks for two first)
    @pipeline_def(batch_size=BATCH, num_threads=1, device_id=None, exec_pipelined=False)
    def hand() -> tuple[Any, ...]:
        pixels = fn.external_source(name="pixels", dtype=types.UINT8, layout="HWC")
        label = fn.external_source(name="label", dtype=types.INT32)
        stddev = fn.random.uniform(range=[5.0, 40.0], dtype=types.FLOAT, seed=seeds["noise_stddev"])
        return fn.noise.gaussian(pixels, stddev=stddev, seed=seeds["noise"]), label

    pipe = hand()
    pipe.build()
    made = []
    per_epoch = -(-len(images) // BATCH)
    for batch in range(batches):
        # every epoch from the first image again, its last batch filled with its last image
        first = batch % per_epoch * BATCH
        picked = [min(first + i, len(images) - 1) for i in range(BATCH)]
        pipe.feed_input("pixels", [images[i] for i in picked])
        pipe.feed_input("label", [np.array([labels[i]], dtype=np.int32) for i in picked])
        made.append([[np.array(out.at(i)) for i in range(len(out))] for out in pipe.run()])
    return made


def test_noise_on_arrays_draws_as_dali_does_batch_after_batch() -> None:
    session = Session(noisy_arrays_graph(), data=sample_arrays(), device_id=None)
    expected = hand_written_noise(session, 3)
    for index, want in enumerate(expected):
        result = session.run() if index == 0 else session.next_batch()
        assert_outputs(result, want, f"batch {index + 1}")
    first, third = expected[0][0], expected[2][0]
    assert not all(np.array_equal(a, b) for a, b in zip(first, third, strict=False))


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many replays of the random steps the session builds."""
    built: list[int] = []

    class Counted(TrainingDraws):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            built.append(1)
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(session_module, "TrainingDraws", Counted)
    return built


def test_edits_at_a_later_batch_show_that_batch_as_trained(counted: list[int]) -> None:
    session = Session("basic", batch_size=BATCH, device_id=None)
    session.run()
    assert not counted  # the first batch draws as it always did: nothing replayed
    session.next_batch()
    third = session.next_batch()
    assert len(counted) == 1  # the replay moved on with "next batch", it was not rebuilt
    assert_outputs(third, fused_batch(third, 2), "batch 3")

    # an edit that no random step reads keeps the replay
    cropped = session.set_arg("crop", "crop", [200.0, 180.0])
    assert len(counted) == 1
    assert_outputs(cropped, fused_batch(cropped, 2), "batch 3, crop edited")

    # a new distribution for the angle replays the draws from the first batch
    narrowed = session.set_arg("rotate", "angle", Random.uniform(-5.0, 5.0))
    assert len(counted) == 2
    assert_outputs(narrowed, fused_batch(narrowed, 2), "batch 3, angle edited")
    angles = narrowed.draws("rotate")["rotate"]["angle"]
    assert all(-5.0 <= angle <= 5.0 for angle in angles)

    rerolled = session.reroll()
    assert_outputs(rerolled, fused_batch(rerolled, 2), "batch 3, new seeds")
    assert rerolled.draws("rotate")["rotate"]["angle"] != angles


def test_the_draws_shown_are_the_ones_applied_on_a_later_batch() -> None:
    session = Session("basic", batch_size=BATCH, device_id=None)
    first = session.run().draws("flip")["flip"]["horizontal"]
    second = session.next_batch()
    flips = second.draws("flip")["flip"]["horizontal"]
    cropped, flipped = second.arrays("crop"), second.arrays("flip")
    for flag, before, after in zip(flips, cropped, flipped, strict=True):
        np.testing.assert_array_equal(after, before[:, ::-1] if flag else before)
    assert len(flips) == len(first) == BATCH


def halve(image):  # type: ignore[no-untyped-def]
    return image // 2


def rotated_arrays_graph(python: bool) -> GraphSpec:
    """Arrays rotated by a drawn angle, then (with `python`) halved by Python code: code the
    random angle does not read, which the replay must leave out (DALI keeps a python_function
    in any pipeline that defines it, and it reads images the replay does not feed)."""
    nodes: list[Source | Node] = [
        Source("source", "arrays"),
        Node("rotate", "rotate", (Ref("source"),), {"angle": Random.uniform(-30.0, 30.0)}),
    ]
    if python:
        code = PythonCode.from_function(halve)
        nodes.append(Node("halve", "python_function", (Ref("rotate"),), {"function": code}))
    last = nodes[-1].id
    return GraphSpec(tuple(nodes), {"images": Ref(last)}, batch_size=BATCH, seed=5)


def test_code_the_draws_do_not_read_stays_out_of_the_replay() -> None:
    with_code = Session(rotated_arrays_graph(True), data=sample_arrays(), device_id=None)
    with_code.trust()
    without = Session(rotated_arrays_graph(False), data=sample_arrays(), device_id=None)
    for session in (with_code, without):
        session.run()
        session.next_batch()
    third, plain = with_code.next_batch(), without.next_batch()
    assert third.draws("rotate") == plain.draws("rotate")
    for rotated, halved in zip(plain.arrays("rotate"), third.arrays("halve"), strict=True):
        np.testing.assert_array_equal(halved, rotated // 2)


def test_a_failed_replay_leaves_no_first_batch_draws_behind(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    session = Session("basic", batch_size=BATCH, device_id=None)
    session.run()

    def broken(self: TrainingDraws, batch_index: int) -> None:
        raise RuntimeError("the replay failed")

    monkeypatch.setattr(TrainingDraws, "at", broken)
    with pytest.raises(RunError, match="the replay failed"):
        session.next_batch()
    monkeypatch.undo()
    again = session.run()  # the steps that ran before the failure are not taken as drawn
    assert_outputs(again, fused_batch(again, 1), "batch 2 after a failed replay")


def cropped_noise_graph(crop: bool) -> GraphSpec:
    """Noise (a random operator that reads the images) after an optional 40 px crop."""
    nodes: list[Source | Node] = [Source("source", "arrays")]
    if crop:
        nodes.append(Node("crop", "crop", (Ref("source"),), {"crop": [40.0, 40.0]}))
    nodes.append(Node("noise", "noise.gaussian", (Ref(nodes[-1].id),), {"stddev": 10.0}))
    return GraphSpec(tuple(nodes), {"images": Ref("noise")}, batch_size=2)


def test_a_replay_failing_on_an_earlier_batch_names_that_node_and_batch() -> None:
    # the second batch holds a 20 px image, the others are 60 px: a 40 px crop added at the third
    # batch runs there, and fails on the second, which the replay of the noise's draws runs
    rng = np.random.default_rng(3)
    images = [rng.integers(0, 256, (s, s, 3), dtype=np.uint8) for s in (60, 60, 60, 20, 60, 60)]
    session = Session(cropped_noise_graph(False), data=(images, [0] * 6), device_id=None)
    session.run()
    session.next_batch()
    shown = session.next_batch()
    with pytest.raises(RunError) as raised:
        session.update(cropped_noise_graph(True))
    error = raised.value
    assert error.node == "crop"  # not the noise, whose replay ran the crop
    assert error.dali_message.startswith("on batch 2, which training reads before this one:")
    assert "out of bounds" in error.dali_message
    assert error.fix is not None and "out_of_bounds_policy" in error.fix
    assert session.result is shown  # the last good result stays
