"""A policy node's random draws seeded apart (augexplorer.policy_seeds): DALI's policies give all
their draws the call's one seed, which ties the operation picked to its sign and magnitude; the
nodes draw apart unless told to keep DALI's own draws (an imported call)."""

from __future__ import annotations

import dataclasses
from collections import defaultdict

import numpy as np
from nvidia.dali import fn, pipeline_def, types
from nvidia.dali.auto_aug import trivial_augment

from augexplorer import Ref, Session
from augexplorer.engine import policy_draws
from augexplorer.export import generate
from augexplorer.presets import preset

DRAWS = 400


def test_dali_draws_the_same_numbers_for_one_seed() -> None:
    """Why the seeds go apart: two of DALI's random operators with one seed (as a policy makes
    its operation and sign draws) draw the same underlying numbers."""

    @pipeline_def(batch_size=DRAWS, num_threads=1, device_id=None)
    def draws():  # type: ignore[no-untyped-def]
        operation = fn.random.uniform(values=list(range(14)), dtype=types.INT32, seed=7)
        sign = fn.random.uniform(values=[0, 1], dtype=types.INT32, seed=7)
        return operation, sign

    pipe = draws()
    pipe.build()
    operation, sign = (np.array([int(np.asarray(o[i])) for i in range(DRAWS)]) for o in pipe.run())
    # the first half of the operations always gets one sign, the second half the other
    assert np.corrcoef(operation, sign)[0, 1] > 0.8


def rotations(independent: bool) -> list[float]:
    """The rotation angles TrivialAugment Wide's node drew over DRAWS images."""
    spec = preset("trivial_augment_wide")
    spec = spec.set_arg("augment", "independent_draws", independent)
    step = Session(spec, device_id=None).plan.node_step("augment")
    probe = policy_draws.PolicyProbe(step, DRAWS)
    image = np.random.default_rng(0).integers(0, 255, (16, 16, 3), dtype=np.uint8)
    _pixels, calls = probe.run([image] * DRAWS)
    angles = []
    for said in probe.describe(calls):
        name, *magnitude = said.split(" ")
        if name == "rotate" and magnitude:
            angles.append(float(magnitude[0]))
    return angles


def test_the_node_rotates_both_ways_by_every_angle_where_dalis_seed_ties_them() -> None:
    apart = rotations(independent=True)
    assert min(apart) < -30 and max(apart) > 30  # both ways
    assert len({round(abs(a)) for a in apart}) > 10  # small and large angles alike
    tied = rotations(independent=False)  # DALI's call with the node's seed
    assert len(tied) > 10
    assert all(a > 0 for a in tied) or all(a < 0 for a in tied)  # one way only
    assert max(abs(a) for a in tied) - min(abs(a) for a in tied) < 10  # one narrow band


def test_without_independent_draws_the_node_draws_what_dalis_own_call_draws() -> None:
    spec = preset("trivial_augment_wide")
    spec = dataclasses.replace(spec.set_arg("augment", "independent_draws", False), batch_size=4)
    session = Session(spec, device_id=None)
    result = session.run()
    step = session.plan.node_step("augment")
    before = [np.array(a) for a in result.arrays(step.inputs[0])]
    got = [np.array(a) for a in result.arrays(Ref("augment"))]

    @pipeline_def(batch_size=4, num_threads=1, device_id=None, enable_conditionals=True)
    def by_hand():  # type: ignore[no-untyped-def]
        images = fn.external_source(source=lambda: before, batch=True, layout="HWC")
        return trivial_augment.trivial_augment_wide(images, seed=step.seed)

    pipe = by_hand()
    pipe.build()
    (want,) = pipe.run()
    for index, image in enumerate(got):
        np.testing.assert_array_equal(image, np.array(want.at(index)))


def test_the_export_calls_dalis_policy_plainly_only_when_told_to() -> None:
    spec = preset("dali_rand_augment")
    apart = generate(spec)
    flat = " ".join(apart.split()).replace("( ", "(")
    assert "augment = independent_draws(rand_augment.rand_augment, resize, n=2, m=9," in flat
    assert "def independent_draws(" in apart
    plain = generate(spec.set_arg("augment", "independent_draws", False))
    assert "def independent_draws(" not in plain and "independent_draws(" not in plain
    flat = " ".join(plain.split()).replace("( ", "(")
    assert "augment = rand_augment.rand_augment(resize, n=2, m=9," in flat


def test_a_policy_of_many_draws_gets_a_seed_for_each() -> None:
    """The seeds a RandAugment node's draws were given, recorded as DALI defines them."""
    spec = preset("dali_rand_augment")
    step = Session(spec, device_id=None).plan.node_step("augment")
    probe = policy_draws.PolicyProbe(step, 2)
    seeds: defaultdict[int, int] = defaultdict(int)
    for kwargs in probe._calls:
        seeds[kwargs["seed"]] += 1
    assert step.seed is not None
    assert sorted(seeds) == [step.seed + k for k in range(len(seeds))]
    assert set(seeds.values()) == {1}
