"""Which output of a ``readers.coco`` a value in DALI's serialized pipeline comes from, followed
back through the operators that pass it on unchanged for the question asked (box operators for
boxes, moves that keep int32 for masks, a conditional's split and merge)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .protobuf import OpRecord, Port

Made = dict[str, tuple[OpRecord, int]]
# one step back: the operator's fn name, the output read, its data inputs -> the output it
# passes on, or None where it does not pass the value on
StepBack = Callable[[str, int, Sequence[Port]], str | None]


def made_by(ops: Sequence[OpRecord]) -> Made:
    """Each output's name -> the operator that makes it and its index among that one's outputs."""
    return {port.name: (op, index) for op in ops for index, port in enumerate(op.outputs)}


def coco_output_of(
    output: str, made: Made, name_of: Callable[[OpRecord], str], step_back: StepBack
) -> tuple[OpRecord, int] | None:
    """The ``readers.coco`` and the index of its output that `output` holds, followed back by
    `step_back`; None where the chain stops before a reader (or loops)."""
    seen: set[str] = set()
    while output in made and output not in seen:
        seen.add(output)
        op, index = made[output]
        name = name_of(op)
        if name == "readers.coco":
            return op, index
        back = step_back(name, index, [port for port in op.inputs if not port.is_argument])
        if back is None:
            return None
        output = back
    return None
