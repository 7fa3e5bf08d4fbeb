"""Expression and constant steps as the source text of an exported module.

The text is written from the checked expression (:mod:`augexplorer.expressions.syntax`), with
the module's variable names and the numbers as edited: plain DataNode arithmetic, the same
calls the builder makes (:mod:`augexplorer.expressions.lowering`), never DALI's internal
operator names.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable

from ..expressions import CONSTANT, EXPRESSION
from ..expressions.nodes import TEXT, constants, parsed
from ..expressions.syntax import math_function, render
from ..plan import Step
from ..spec import Ref
from .literals import enum_member, identifier, literal


def source(step: Step, variable: Callable[[Ref], str]) -> str:
    """The right-hand side the exported module writes for an expression or constant step;
    `variable` names the module's variable of a step output."""
    if step.op == CONSTANT:
        layout = step.args.get("layout")
        return (
            f"types.Constant({literal(list(step.args['values']))}, "
            f"dtype={enum_member('DATA_TYPE', step.args['dtype'])}, "
            f"shape={literal(list(step.args['shape']))}"
            + (f", layout={literal(layout)}" if layout else "")
            + ")"
        )
    checked = parsed(step.args[TEXT])
    names = {
        name: identifier(variable(ref))
        for name, ref in zip(checked.names, step.inputs, strict=True)
    }
    numbers = constants(checked, step.args)
    for number in numbers:
        literal(number)  # refuses anything but a finite number
    return render(checked, names, numbers)


def math_import(steps: Iterable[Step]) -> str:
    """``", math"`` for the module's ``from nvidia.dali import fn, pipeline_def, types`` line
    where an expression calls a function of ``nvidia.dali.math`` (written ``math.clamp(...)``);
    "" otherwise, so other modules read as before."""
    for step in steps:
        if step.op == EXPRESSION and any(
            math_function(part) is not None for part in ast.walk(parsed(step.args[TEXT]).tree)
        ):
            return ", math"
    return ""
