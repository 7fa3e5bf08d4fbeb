"""A parameter without a default, read from the one call the file makes: ``build(CFG)`` for
``def build(cfg)``, ``Preset(base_size=520, crop_size=480)`` for ``Preset.__init__``. Where the
file calls the function once, that call is what runs; where it calls it several times (or
never), which one the pipeline comes from is not known, and the parameter stays unknown.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from dataclasses import dataclass

_Function = ast.FunctionDef | ast.AsyncFunctionDef


@dataclass(frozen=True)
class GivenArgument:
    """What the one call gives a parameter, and where (for the port's note)."""

    value: ast.expr
    call: ast.Call

    def note(self, parameter: str, found: object) -> str:
        written = ast.unparse(self.call)
        shown = written if len(written) <= 60 else ast.unparse(self.call.func) + "(...)"
        return (
            f"{parameter}={found!r}, as the file's one call {shown} (line {self.call.lineno}) "
            f"gives it; --param {parameter}=VALUE to use another"
        )


def given_by_only_call(
    tree: ast.Module, parents: Mapping[ast.AST, ast.AST], function: ast.AST, parameter: str
) -> GivenArgument | None:
    """The argument the file's only call of `function` gives `parameter`, else None. A method
    other than ``__init__`` is left alone (its calls go through objects the reading does not
    follow); ``__init__`` is called by its class's name, `self` not given."""
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
    if len(calls) != 1:
        return None
    (call,) = calls
    if any(isinstance(a, ast.Starred) for a in call.args) or any(
        k.arg is None for k in call.keywords
    ):
        return None  # *args, **kwargs: what each parameter gets is known only when it runs
    arguments = function.args
    positional = [a.arg for a in [*arguments.posonlyargs, *arguments.args]][skipped:]
    for name, value in zip(positional, call.args, strict=False):
        if name == parameter:
            return GivenArgument(value, call)
    for keyword in call.keywords:
        if keyword.arg == parameter:
            return GivenArgument(keyword.value, call)
    return None


__all__ = ["GivenArgument", "given_by_only_call"]
