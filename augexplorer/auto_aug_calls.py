"""How a step of an ``auto_aug`` policy becomes a DALI call (its source text:
:mod:`augexplorer.export.auto_aug_source`).

The live engine, the fused pipeline and the exported module all call DALI's own policy function
(``rand_augment.rand_augment(images, n=2, m=9, seed=...)``), which expands into DALI operators
under conditionals; the node's one seed reaches every random draw of the expansion.
"""

from __future__ import annotations

import functools
import re
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .builder import dali_value
from .catalog.auto_aug import INDEPENDENT_DRAWS, draws_apart, policy_function
from .plan import Step
from .policy_seeds import independent_draws

# DALI's policies call two operators through their deprecated `fn.experimental` aliases; the
# warning is about DALI's own code, which the user cannot change.
_DALI_ALIAS_WARNING = re.compile(r".*nvidia\.dali\.fn\.experimental\.\w+` is now deprecated")


def policy_kwargs(step: Step) -> dict[str, Any]:
    """The constant keyword arguments of a policy step's call, typed as DALI wants them."""
    info = step.info
    kwargs = {
        name: dali_value(info.arg(name) if info else None, value)
        for name, value in step.args.items()
        if name != INDEPENDENT_DRAWS.name  # the node's own, not DALI's
    }
    if step.seed is not None:
        kwargs["seed"] = int(step.seed)
    return kwargs


def call_policy(
    step: Step, inputs: Sequence[Any], arg_inputs: Mapping[str, Any], predicate: Any = None
) -> list[Any]:
    """The policy call of `step` inside a pipeline being defined (with conditionals enabled).

    `arg_inputs` (a `shape` fed from a node) are DataNodes; with a `predicate` the policy runs
    only on the samples where it is true, the others pass through unchanged.
    """
    function = policy_function(step.op)
    if draws_apart(step.op, step.args):
        function = functools.partial(independent_draws, function)
    kwargs = {**policy_kwargs(step), **arg_inputs}
    # DALI shows its deprecation warnings whatever the filters say; recording them is the way
    # to drop these (any other warning is passed on).
    with warnings.catch_warnings(record=True) as caught:
        if predicate is None:
            output = function(inputs[0], **kwargs)
        else:
            output = _apply_policy_if(predicate, function, inputs[0], kwargs)
    for warning in caught:
        if not _DALI_ALIAS_WARNING.match(str(warning.message)):
            warnings.warn_explicit(
                warning.message, warning.category, warning.filename, warning.lineno
            )
    return [output]


def _apply_policy_if(
    predicate: Any, function: Callable[..., Any], data: Any, kwargs: dict[str, Any]
) -> Any:
    # An `if` statement on a DataNode: DALI's autograph turns it into a per-sample split/merge.
    output = data
    if predicate:
        output = function(data, **kwargs)
    return output
