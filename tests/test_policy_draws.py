"""What DALI's auto_aug policies chose per sample: their operations and magnitudes, recovered by
running the policy again with the node's seed, claimed only where that run gives the node's very
pixels, and shown in the large view; elsewhere the policy "draws internally"."""

from __future__ import annotations

import dataclasses
import re

import numpy as np
import pytest
from nvidia.dali import fn, pipeline_def, types
from nvidia.dali.auto_aug import trivial_augment

from augexplorer.engine import Session
from augexplorer.engine import policy_draws as policy
from augexplorer.render.sample_view import sample_view

BATCH = 6


def policy_step(session: Session):  # type: ignore[no-untyped-def]
    result = session.result
    assert result is not None
    return next(s for s in result.plan.steps if s.op.startswith("auto_aug."))


def drawn_by_dali(seed: int, values: int, batch: int) -> list[int]:
    """What ``fn.random.uniform(values=range(values), seed=seed)`` draws per sample: the call
    TrivialAugment makes for its operation (read in DALI's source), made here on its own."""

    @pipeline_def(batch_size=batch, num_threads=1, device_id=None)
    def draws():  # type: ignore[no-untyped-def]
        return fn.random.uniform(values=list(range(values)), seed=seed, dtype=types.INT32)

    pipe = draws()
    pipe.build()
    (out,) = pipe.run()
    return [int(np.asarray(out[i]).reshape(-1)[0]) for i in range(batch)]


def test_trivial_augment_choices_are_the_operations_dali_drew() -> None:
    session = Session("trivial_augment_wide", batch_size=BATCH, device_id=None)
    result = session.run()
    step = policy_step(session)
    chosen = policy.policy_draws(result, step)
    assert chosen is not None and chosen.known == BATCH
    suite = trivial_augment.get_trivial_augment_wide_suite()
    assert step.seed is not None
    # TrivialAugment draws a magnitude bin, a sign, then the operation: the node seeds its
    # draws apart (augexplorer.policy_seeds), so the operation's is the third seed
    expected = [suite[i].name for i in drawn_by_dali(step.seed + 2, len(suite), BATCH)]
    names = [str(c).split(" ")[0] for c in chosen.choices]
    assert names == expected
    inputs, outputs = result.arrays(step.inputs[0]), result.arrays(step.id)
    for choice, before, after in zip(chosen.choices, inputs, outputs, strict=True):
        if choice == "identity":
            assert np.array_equal(before, after)
    # shown in the large view, as this sample's draw
    view = sample_view(result, "augment", 2)
    assert view.draws["augment"]["chose"] == chosen.choices[2]
    assert view.draws_note == ""


@pytest.mark.slow
@pytest.mark.parametrize("preset", ["dali_rand_augment", "auto_augment_imagenet"])
def test_every_policys_choices_are_known_and_worded(preset: str) -> None:
    session = Session(preset, batch_size=BATCH, device_id=None)
    result = session.run()
    step = policy_step(session)
    chosen = policy.policy_draws(result, step)
    assert chosen is not None and chosen.known == BATCH
    inputs, outputs = result.arrays(step.inputs[0]), result.arrays(step.id)
    for choice, before, after in zip(chosen.choices, inputs, outputs, strict=True):
        assert choice
        if preset == "dali_rand_augment":
            assert len(choice.split(", ")) == 2, "n=2 operations each"
            assert re.fullmatch(r"[a-z_]+( -?[0-9.e+-]+)?(, [a-z_]+( -?[0-9.e+-]+)?)", choice)
        else:
            assert re.match(r"sub-policy \d+: ", choice)
            if all(stage.startswith("not ") for stage in choice.split(": ")[1].split(", ")):
                assert np.array_equal(before, after), "no stage ran: the image is unchanged"


def test_choices_are_claimed_only_where_they_give_the_nodes_pixels(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    session = Session("trivial_augment_wide", batch_size=BATCH, device_id=None)
    result = session.run()
    step = policy_step(session)
    real = policy._run_policy

    def other_seed(step, images, batch_size):  # type: ignore[no-untyped-def]
        return real(dataclasses.replace(step, seed=(step.seed or 0) + 1), images, batch_size)

    monkeypatch.setattr(policy, "_run_policy", other_seed)
    policy._known.clear()
    assert policy.policy_draws(result, step) is None
    view = sample_view(result, "augment", 0)
    assert "chose" not in view.draws.get("augment", {})
    assert view.draws_note == "augment draws internally: DALI does not return what was drawn"
    policy._known.clear()


@pytest.mark.slow
def test_a_later_batch_says_the_policy_draws_internally() -> None:
    session = Session("trivial_augment_wide", batch_size=BATCH, device_id=None)
    session.run()
    later = session.next_batch()
    assert later.batch_index == 1
    view = sample_view(later, "augment", 0)
    # the decoder's random window too: both generators moved on since their first draws
    said = "decode, augment draw internally: DALI does not return what was drawn"
    assert view.draws_note == said


@pytest.mark.slow
def test_statistics_count_the_operations_a_policy_applied() -> None:
    from augexplorer.stats import collect_stats

    stats = collect_stats("trivial_augment_wide", batches=2, batch_size=4, device_id=None)
    (counted,) = stats.policies
    assert (counted.node, counted.samples, counted.unknown) == ("augment", 8, 0)
    assert sum(counted.operations.values()) == 8, "TrivialAugment applies one operation each"
    suite = {aug.name for aug in trivial_augment.get_trivial_augment_wide_suite()}
    assert set(counted.operations) <= suite
    assert (
        "operations augment applied (DALI's policy run again, each checked on pixels: 8 of 8)"
        in (stats.summary())
    )
    assert stats.to_json()["policies"][0]["samples"] == 8
