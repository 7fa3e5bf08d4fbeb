"""An ``auto_aug`` policy step as an exported module writes it: the import of DALI's policy
module and the call a DALI user writes, ``rand_augment.rand_augment(images, n=2, m=9, seed=...)``
(the same call :mod:`augexplorer.auto_aug_calls` makes for the explorer)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..catalog.auto_aug import POLICIES, is_auto_aug
from ..plan import Step
from .carried import seed_source
from .literals import identifier


def policy_source(step: Step, data: str, keywords: Sequence[tuple[str, str]]) -> str:
    """The call from the input's variable and each argument's source text (a variable or a
    checked literal); the seed last."""
    arguments = [data, *(f"{identifier(name)}={text}" for name, text in keywords)]
    if step.seed is not None:
        arguments.append(f"seed={seed_source(step.seed)}")
    return f"{POLICIES[step.op].call}({', '.join(arguments)})"


def policy_imports(ops: Iterable[str]) -> str:
    """The import line for the policies `ops` call ("" when they call none)."""
    modules = sorted({POLICIES[op].module for op in ops if is_auto_aug(op)})
    if not modules:
        return ""
    return f"from nvidia.dali.auto_aug import {', '.join(modules)}\n"
