"""Seeds apart for the random draws of an ``auto_aug`` policy.

DALI's policies draw every choice with the call's one seed: RandAugment the operation of each
level and its sign, TrivialAugment the operation, the magnitude bin and the sign, AutoAugment
the sub-policy, each stage's coin and sign. DALI's random operators given the same seed draw
the same numbers, so with a seed these choices come out tied: measured on 400 images,
TrivialAugment Wide rotated every image it rotated by 36-45 degrees, one way, and RandAugment
every rotation one way; AutoAugment ran the first stage of sub-policy k of 25 exactly when
k/25 < p. A policy given no seed is not tied (DALI seeds each operator apart), but then its
draws cannot be replayed.

:func:`independent_draws` calls a policy function with its k-th random draw seeded
``seed + k``: the draws are as independent as DALI's unseeded ones, and replayable. The explorer
calls every policy node through it and an exported module carries its source, so a training
script draws what the explorer showed.
"""

import threading
from typing import Any

from nvidia.dali import fn

# One policy is defined at a time: DALI's draw operator is swapped while it is (whoever else
# swaps it, as augexplorer's record of a policy's draws does, holds this too).
POLICY_DEFINITION = threading.RLock()


def independent_draws(policy_function: Any, *args: Any, seed: Any = None, **kwargs: Any) -> Any:
    """``policy_function(*args, seed=seed, **kwargs)`` with the k-th random draw it makes seeded
    ``seed + k`` instead of ``seed`` (modulo 2**31, DALI's seed range)."""
    if seed is None:
        return policy_function(*args, **kwargs)
    defining = threading.get_ident()  # another thread's pipeline keeps its own seeds
    made = [0]
    with POLICY_DEFINITION:
        uniform = fn.random.uniform

        def seeded_apart(*draw_args: Any, **draw_kwargs: Any) -> Any:
            given = draw_kwargs.get("seed")
            if given is not None and threading.get_ident() == defining:
                draw_kwargs["seed"] = (given + made[0]) % 2**31
                made[0] += 1
            return uniform(*draw_args, **draw_kwargs)

        fn.random.uniform = seeded_apart
        try:
            return policy_function(*args, seed=seed, **kwargs)
        finally:
            fn.random.uniform = uniform


CARRIED = (independent_draws,)
