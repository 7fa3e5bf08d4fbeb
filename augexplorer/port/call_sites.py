"""A parameter without a default, read from the calls the file makes: ``build(CFG)`` for
``def build(cfg)``, ``Preset(base_size=520, crop_size=480)`` for ``Preset.__init__``. Where the
file calls the function once, that call is what runs. Where it calls it several times, each
giving the parameter the same expression (``get_transform(IMG, train=True)`` and
``get_transform(IMG, train=False)``: only the flag differs), that expression is what runs too,
whichever call made the pipeline (the reading checks that it has one value at every call).
Where the calls give it different expressions, or the file never calls the function, which
value the pipeline comes from is not known, and the parameter stays unknown.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from dataclasses import dataclass

_Function = ast.FunctionDef | ast.AsyncFunctionDef


@dataclass(frozen=True)
class GivenArgument:
    """What the calls give a parameter, and where (for the port's note): `value` and `call`
    the first call's, `others` the same expression as each later call writes it."""

    value: ast.expr
    call: ast.Call
    others: tuple[ast.expr, ...] = ()
    other_calls: tuple[ast.Call, ...] = ()

    def every_value(self) -> tuple[ast.expr, ...]:
        """The expression as each call writes it (each read where that call stands)."""
        return (self.value, *self.others)

    def note(self, parameter: str, found: object) -> str:
        return f"{parameter}={found!r}, {self.said()}; --param {parameter}=VALUE to use another"

    def said(self) -> str:
        """``as the file's one call build(CFG) (line 9) gives it``, or for several calls
        ``as each of the file's 2 calls of build gives it (lines 9, 10)``."""
        if not self.other_calls:
            written = ast.unparse(self.call)
            shown = written if len(written) <= 60 else ast.unparse(self.call.func) + "(...)"
            return f"as the file's one call {shown} (line {self.call.lineno}) gives it"
        calls = (self.call, *self.other_calls)
        lines = ", ".join(str(call.lineno) for call in calls)
        return (
            f"as each of the file's {len(calls)} calls of {ast.unparse(self.call.func)} gives "
            f"it (lines {lines})"
        )


def given_by_calls(
    tree: ast.Module, parents: Mapping[ast.AST, ast.AST], function: ast.AST, parameter: str
) -> GivenArgument | None:
    """The argument the file's calls of `function` give `parameter`: its only call's, or the
    one expression every call writes for it; else None. A method other than ``__init__`` is
    left alone (its calls go through objects the reading does not follow); ``__init__`` is
    called by its class's name, `self` not given."""
    if not isinstance(function, _Function):
        return None
    owner = parents.get(function)
    if isinstance(owner, ast.ClassDef):
        if function.name != "__init__":
            return None
        called, skipped = owner.name, 1
    elif isinstance(owner, ast.Module):
        called, skipped = function.name, 0
    else:
        return None
    calls = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == called
    ]
    given = [_given_in(call, function, skipped, parameter) for call in calls]
    if not given or any(value is None for value in given):
        return None  # no call, or one that leaves it to a default, *args or **kwargs
    values = [value for value in given if value is not None]
    first = ast.dump(values[0])
    if any(ast.dump(value) != first for value in values[1:]):
        return None  # the calls give it different values: which one made the pipeline?
    return GivenArgument(values[0], calls[0], tuple(values[1:]), tuple(calls[1:]))


def _given_in(call: ast.Call, function: _Function, skipped: int, parameter: str) -> ast.expr | None:
    if any(isinstance(a, ast.Starred) for a in call.args) or any(
        k.arg is None for k in call.keywords
    ):
        return None  # *args, **kwargs: what each parameter gets is known only when it runs
    arguments = function.args
    positional = [a.arg for a in [*arguments.posonlyargs, *arguments.args]][skipped:]
    for name, value in zip(positional, call.args, strict=False):
        if name == parameter:
            return value
    for keyword in call.keywords:
        if keyword.arg == parameter:
            return keyword.value
    return None


__all__ = ["GivenArgument", "given_by_calls"]
