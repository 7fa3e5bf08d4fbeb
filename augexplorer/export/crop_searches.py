"""Calls of ``random_bbox_crop`` in DALI code whose search may never end
(:mod:`augexplorer.crop_search`), said at import with the line and the fix."""

from __future__ import annotations

from collections.abc import Callable

from ..crop_search import endless_search
from .protobuf import OpRecord
from .written_name import made_with, written_name


def endless_searches(
    ops: list[OpRecord], name_of: Callable[[OpRecord], str], where: Callable[[OpRecord], str]
) -> list[str]:
    """What to say of each ``random_bbox_crop`` in `ops` whose search may never end; `name_of`
    gives an operator's fn name, `where` its place in the user's code."""
    said = []
    for op in ops:
        if name_of(op) != "random_bbox_crop":
            continue
        args = {name: argument.value() for name, argument in op.args.items()}
        endless = endless_search(args)
        if endless is not None:
            said.append(
                f"{written_name(op, 'random_bbox_crop')}{where(op)}: {endless.message}; imported "
                f"as written, the explorer does not run it until its {endless.argument} is "
                f"changed (fix{made_with(op)}: {endless.fix})"
            )
    return said
