"""An ``auto_aug`` policy step as an exported module writes it: the import of DALI's policy
module and the call a DALI user writes, ``rand_augment.rand_augment(images, n=2, m=9, seed=...)``
(the same call :mod:`augexplorer.auto_aug_calls` makes for the explorer). A policy DALI does not
have (torchvision's AutoAugment lists) is carried: the module holds the source of
:mod:`augexplorer.auto_aug_torchvision`'s functions and calls them by name."""

from __future__ import annotations

import inspect
from collections.abc import Iterable, Sequence

from ..catalog.auto_aug import (
    INDEPENDENT_DRAWS,
    POLICIES,
    draws_apart,
    is_auto_aug,
)
from ..plan import Step
from .carried import seed_source
from .literals import identifier, literal

# What a module that carries a policy defines and imports beyond the template's names (the
# functions and constants of augexplorer.auto_aug_torchvision.CARRIED*, checked by the tests;
# listed here so that naming a module's variables does not import DALI).
CARRIED_NAMES = frozenset(
    {
        "TORCHVISION_POLICIES",
        "_whole_pixels",
        "_image_size",
        "torchvision_translate_x",
        "torchvision_translate_y",
        "torchvision_operations",
        "torchvision_policy",
        "torchvision_auto_augment",
        "independent_draws",
        "POLICY_DEFINITION",
        "augmentations",
        "augmentation",
        "Policy",
        "DataNode",
        "Any",
        "warnings",
        "threading",
    }
)


def policy_source(step: Step, data: str, keywords: Sequence[tuple[str, str]]) -> str:
    """The call from the input's variable and each argument's source text (a variable or a
    checked literal); the seed last. A DALI policy whose draws are seeded apart is called
    through :func:`augexplorer.policy_seeds.independent_draws`, which the module carries."""
    arguments = [
        data,
        *(
            f"{identifier(name)}={text}"
            for name, text in keywords
            if name != INDEPENDENT_DRAWS.name
        ),
    ]
    if step.seed is not None:
        arguments.append(f"seed={seed_source(step.seed)}")
    function = POLICIES[step.op].call
    if _seeded_apart(step):
        return f"independent_draws({function}, {', '.join(arguments)})"
    return f"{function}({', '.join(arguments)})"


def _seeded_apart(step: Step) -> bool:
    # without a seed the wrapper has nothing to spread: the plain call reads the same
    return step.seed is not None and draws_apart(step.op, step.args)


def carries_seeds(steps: Iterable[Step]) -> bool:
    """Whether a module of `steps` calls :func:`augexplorer.policy_seeds.independent_draws`."""
    return any(_seeded_apart(step) for step in steps)


def carries_policy(ops: Iterable[str]) -> bool:
    """Whether a graph of `ops` calls a policy the module must define itself."""
    return any(is_auto_aug(op) and POLICIES[op].carried for op in ops)


def policy_imports(ops: Iterable[str]) -> str:
    """The import lines for the policies `ops` call ("" when they call none)."""
    ops = list(ops)
    modules = {POLICIES[op].module for op in ops if is_auto_aug(op) and not POLICIES[op].carried}
    carried = carries_policy(ops)
    if carried:  # what auto_aug_torchvision imports from DALI beyond fn, math and types
        modules |= {"augmentations", "auto_augment"}
    lines = f"from nvidia.dali.auto_aug import {', '.join(sorted(modules))}\n" if modules else ""
    if carried:
        lines += "from nvidia.dali.auto_aug.core import Policy, augmentation\n"
        lines += "from nvidia.dali.data_node import DataNode\n"
    return lines


def with_carried_imports(imports: str, policy: bool) -> str:
    """The module's standard-library import block with what the carried seeding (and, with
    `policy`, the carried torchvision policy) needs, sorted as the rest (``import`` lines
    first, then ``from ... import`` lines)."""
    added = "import threading\nimport time\n" + ("import warnings\n" if policy else "")
    imports = imports.replace("import time\n", added)
    block_end = imports.index("\n\n@@numpy_import@@")
    return imports[:block_end] + "\nfrom typing import Any" + imports[block_end:]


def carried_policy_source(policy: bool) -> str:
    """:data:`augexplorer.policy_seeds.CARRIED` and, with `policy`,
    :data:`augexplorer.auto_aug_torchvision.CARRIED` and its constants, as module text."""
    from .. import auto_aug_torchvision, policy_seeds

    text = "# A policy's random draws seeded apart (augexplorer.policy_seeds).\n"
    text += "POLICY_DEFINITION = threading.RLock()  # one policy defined at a time\n\n\n"
    text += "\n\n".join(inspect.getsource(function) for function in policy_seeds.CARRIED)
    text += "\n\n"
    if not policy:
        return text
    constants = "".join(
        f"{name} = {literal(getattr(auto_aug_torchvision, name))}\n"
        for name in auto_aug_torchvision.CARRIED_CONSTANTS
    )
    # an @augmentation function is an Augmentation object: its source is its wrapped function's
    functions = "\n\n".join(
        inspect.getsource(getattr(function, "op", function))
        for function in auto_aug_torchvision.CARRIED
    )
    header = "# torchvision's AutoAugment policies (augexplorer.auto_aug_torchvision).\n"
    return f"{text}\n{header}{constants}\n\n{functions}\n\n"
