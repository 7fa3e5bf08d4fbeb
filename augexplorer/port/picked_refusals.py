"""What a refused transform inside a group that picks one (albumentations' ``OneOf`` and
``SomeOf(n=1)``, torchvision's ``RandomChoice``) costs: the port keeps the pick, so where it
falls on the refused transform the group does nothing, while the library would apply it; the
refusal says so, and how often."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from .build import PortContext
from .model import TransformCall


def note_picks_doing_nothing(
    group: TransformCall,
    context: PortContext,
    weights: Sequence[float],
    refused_from: int,
    *,
    own_p: bool = False,
) -> None:
    """Add the effect to each refusal, made since `refused_from`, of one of `group`'s children
    (picked by `weights`): "in 1 of 3 picks the OneOf does nothing where albumentations would
    apply MyOwn". `own_p`: a picked child applies with its own p (SomeOf), said beside it."""
    total = float(sum(weights))
    if total <= 0:
        return
    equal = len(set(weights)) == 1
    for index in range(refused_from, len(context.refusals)):
        refusal = context.refusals[index]
        at = next((i for i, c in enumerate(group.children) if c is refusal.call), None)
        if at is None or refusal.part:
            continue
        share = (
            f"in 1 of {len(weights)} picks"
            if equal
            else f"in {weights[at] / total:.0%} of the picks"
        )
        with_p = " with its own p" if own_p else ""
        effect = (
            f"; {share} the {group.name} does nothing where {group.library} would apply "
            f"{refusal.call.name}{with_p}"
        )
        context.refusals[index] = dataclasses.replace(refusal, reason=refusal.reason + effect)
