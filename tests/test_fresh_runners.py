"""A random step re-run draws what a new build of it draws: its pipeline starts again from its
seeds, loaded from the state kept when it was first built (an auto_aug policy takes about a
second to build and tens of milliseconds to load). Each case edits a node upstream of a random
step and compares every output with a new session's on the edited graph."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest
from graph_blocks import blocks_graph

from augexplorer import Node, Ref, Session, preset
from augexplorer.engine import runners
from augexplorer.spec import GraphSpec


def built_groups(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, ...]]:
    """The steps of every step group built from now on, by id."""
    built: list[tuple[str, ...]] = []
    original = runners.StepGroupRunner.__init__

    def counting(self: runners.StepGroupRunner, steps: Any, **kwargs: Any) -> None:
        built.append(tuple(step.id for step in steps))
        original(self, steps, **kwargs)

    monkeypatch.setattr(runners.StepGroupRunner, "__init__", counting)
    return built


def assert_same_as_a_new_session(session: Session) -> None:
    edited = session.result
    assert edited is not None
    fresh = Session(session.spec, device_id=session.device_id).run()
    for step in session.plan.steps:
        if step.role == "source":
            continue
        for ours, theirs in zip(edited.arrays(step.id), fresh.arrays(step.id), strict=True):
            np.testing.assert_array_equal(ours, theirs, err_msg=step.id)


@pytest.mark.parametrize(
    "policy", ["trivial_augment_wide", "auto_augment_imagenet", "dali_rand_augment"]
)
def test_an_auto_aug_policy_rerun_is_loaded_not_built(
    policy: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    session = Session(dataclasses.replace(preset(policy), batch_size=4))
    session.run()
    built = built_groups(monkeypatch)
    result = session.set_arg("resize", "resize_x", 240.0)
    assert "augment" in result.ran()
    assert built == []  # resize's value is fed; the policy's pipeline is loaded anew
    assert_same_as_a_new_session(session)
    # and again: each run starts from the seeds, not from where the last one left off
    session.set_arg("resize", "resize_x", 224.0)
    assert_same_as_a_new_session(session)


def test_a_random_operator_rerun_draws_as_a_new_build(monkeypatch: pytest.MonkeyPatch) -> None:
    spec = preset("basic").insert_after(
        "crop", Node("zoom", "random_resized_crop", args={"size": [160.0, 160.0]}, seed=7)
    )
    session = Session(dataclasses.replace(spec, batch_size=4))
    session.run()
    built = built_groups(monkeypatch)
    result = session.set_arg("resize", "resize_shorter", 240.0)
    assert "zoom" in result.ran() and ("zoom",) not in built
    assert_same_as_a_new_session(session)


def noisy_blocks_graph() -> GraphSpec:
    """The blocks graph with a random operator (gaussian noise) inside its ``elif`` branch."""
    graph = blocks_graph(batch_size=4)
    brighten = graph.node("brighten")
    assert isinstance(brighten, Node)
    noise = Node(
        "noise",
        "noise.gaussian",
        inputs=(Ref("brighten"),),
        args={"stddev": 20.0},
        when=brighten.when,
        seed=11,
    )
    return graph.insert_after("brighten", noise)


def test_a_block_with_a_random_operator_reruns_as_a_new_build(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    session = Session(noisy_blocks_graph())
    session.run()
    built = built_groups(monkeypatch)
    result = session.set_arg("small", "resize_x", 56.0)
    assert "noise" in result.ran()
    assert not any("noise" in group for group in built)  # the block was loaded, not built
    assert_same_as_a_new_session(session)


def test_new_seeds_replace_the_kept_pipeline_rather_than_pile_up() -> None:
    """Rerolls give every random step new seeds, so a new pipeline each: the one kept for a step
    is replaced, and the pipelines kept for re-use of the other steps stay."""
    session = Session(dataclasses.replace(preset("trivial_augment_wide"), batch_size=4))
    session.run()
    random_steps = {step.id for step in session.plan.steps if step.role == "random"}
    random_steps |= {"decode", "augment"}  # operators that draw: the crop window, the policy
    kept = dict(session._runners)
    for _ in range(5):
        session.reroll()
    assert set(session._built_random) <= random_steps
    assert dict(session._runners) == kept  # no step that draws nothing was pushed out
    assert_same_as_a_new_session(session)
