"""Which call of a function reaches each of its returns, where each test on the way is one of
a parameter against a literal or its truth:

    def get_transforms(train=True):
        if train:
            return A.Compose([...])      # get_transforms(train=True)
        return A.Compose([...])          # get_transforms(train=False)

A function with one Compose per branch (training, validation) has its pipelines named by these
calls, and ``train_tf = get_transforms(mode="val")`` names the one that call returns.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping
from typing import Any

_Function = ast.FunctionDef | ast.AsyncFunctionDef
# (parameter, a test of it alone on a value, what the test must give on the way)
_Condition = tuple[str, Callable[[Any], bool], bool]
_NO_VALUE = object()


def branch_arguments(
    function: _Function, returned: ast.Return, parents: Mapping[ast.AST, ast.AST]
) -> dict[str, Any] | None:
    """The arguments, by parameter, of a call that reaches `returned`: one value per parameter
    tested on the way (the literal it is compared with, True or False for a truth test, its
    default where only ``!=`` tests stand); None where a test is of anything else."""
    found = _conditions(function, returned, parents)
    if not found:
        return None
    conditions, candidates = found
    defaults = _literal_defaults(function)
    arguments: dict[str, Any] = {}
    for parameter in dict.fromkeys(name for name, _, _ in conditions):
        tried = [*candidates.get(parameter, []), defaults.get(parameter, _NO_VALUE)]
        own = [(test, holds) for name, test, holds in conditions if name == parameter]
        chosen = next(
            (v for v in tried if v is not _NO_VALUE and all(t(v) == h for t, h in own)),
            _NO_VALUE,
        )
        if chosen is _NO_VALUE:
            return None
        arguments[parameter] = chosen
    return arguments


def reaches(
    function: _Function,
    returned: ast.Return,
    parents: Mapping[ast.AST, ast.AST],
    arguments: Mapping[str, Any],
) -> bool | None:
    """Whether a call with `arguments` (the others at their defaults) reaches `returned`;
    None where a test on the way is not one of a parameter alone or a value is not known."""
    found = _conditions(function, returned, parents)
    if not found:
        return None
    values = {**_literal_defaults(function), **arguments}
    conditions, _ = found
    if any(name not in values for name, _, _ in conditions):
        return None
    return all(test(values[name]) == holds for name, test, holds in conditions)


def call_arguments(function: _Function, call: ast.Call) -> dict[str, Any] | None:
    """A call's literal arguments by parameter name; None where the call does not fit the
    function's parameters. An argument that is no literal (``IMG``, ``cfg``) is left out:
    the reading takes it where every call of the function writes it alike
    (:mod:`.call_sites`), so that ``get_transform(IMG, train=True)`` is the pipeline of
    ``get_transform(train=True)``."""
    positional = [a.arg for a in (*function.args.posonlyargs, *function.args.args)]
    if len(call.args) > len(positional) or any(isinstance(a, ast.Starred) for a in call.args):
        return None
    written = [*zip(positional, call.args, strict=False)]
    written += [(k.arg, k.value) for k in call.keywords if k.arg is not None]
    if any(k.arg is None for k in call.keywords):
        return None
    found = {}
    for name, value in written:
        try:
            found[name] = ast.literal_eval(value)
        except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
            continue
    return found


def call_name(function: str, arguments: Mapping[str, Any]) -> str:
    """``get_transforms(mode='train')``: the name a branch's pipeline is known by."""
    shown = ", ".join(f"{name}={value!r}" for name, value in arguments.items())
    return f"{function}({shown})"


def _conditions(
    function: _Function, returned: ast.Return, parents: Mapping[ast.AST, ast.AST]
) -> tuple[list[_Condition], dict[str, list[Any]]] | None:
    """The tests `returned` is reached under and the literals they name per parameter."""
    names = _parameters(function)
    conditions: list[_Condition] = []
    candidates: dict[str, list[Any]] = {}
    child: ast.AST = returned
    parent = parents.get(child)
    while parent is not None:
        # an earlier `if TEST: return ...` in the same block: reached only where TEST failed
        block = _block_of(parent, child)
        for earlier in block[: block.index(child)] if child in block else []:
            if isinstance(earlier, ast.If) and _always_returns(earlier.body) and not earlier.orelse:
                conditions.append((*_test(earlier.test, names, candidates), False))
        if parent is function:
            break
        if isinstance(parent, ast.If):
            if child is parent.test:
                return None
            conditions.append((*_test(parent.test, names, candidates), child in parent.body))
        elif not isinstance(parent, ast.With | ast.Try):
            return None  # a loop, a nested function: not read
        child, parent = parent, parents.get(parent)
    if parent is None or any(c[0] == "" for c in conditions):
        return None
    return (conditions, candidates) if conditions else None


def _test(test: ast.expr, names: set[str], candidates: dict[str, list[Any]]) -> _Test:
    """(parameter, the test as a function of its value); ("", ...) where it is another test."""
    if isinstance(test, ast.Name) and test.id in names:
        candidates.setdefault(test.id, []).extend([True, False])
        return test.id, bool
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        name, inner = _test(test.operand, names, candidates)
        return name, lambda value: not inner(value)
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        left, op, right = test.left, test.ops[0], test.comparators[0]
        if isinstance(right, ast.Name) and isinstance(op, ast.Eq | ast.NotEq):
            left, right = right, left
        if isinstance(left, ast.Name) and left.id in names:
            try:
                literal = ast.literal_eval(right)
            except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
                return "", bool
            return _compared(left.id, op, literal, candidates)
    return "", bool


_Test = tuple[str, Callable[[Any], bool]]


def _compared(name: str, op: ast.cmpop, literal: Any, candidates: dict[str, list[Any]]) -> _Test:
    if isinstance(op, ast.Eq | ast.NotEq):
        candidates.setdefault(name, []).append(literal)
        equal = isinstance(op, ast.Eq)
        return name, lambda value: (value == literal) == equal
    if isinstance(op, ast.In | ast.NotIn) and isinstance(literal, tuple | list | set):
        candidates.setdefault(name, []).extend(literal)
        inside = isinstance(op, ast.In)
        return name, lambda value: (value in literal) == inside
    return "", bool


def _parameters(function: _Function) -> set[str]:
    arguments = function.args
    return {a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)}


def _literal_defaults(function: _Function) -> dict[str, Any]:
    arguments = function.args
    positional = [*arguments.posonlyargs, *arguments.args]
    defaulted = positional[len(positional) - len(arguments.defaults) :]
    pairs = [*zip(defaulted, arguments.defaults, strict=True)]
    pairs += [(a, d) for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True) if d]
    found = {}
    for argument, default in pairs:
        try:
            found[argument.arg] = ast.literal_eval(default)
        except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
            continue
    return found


def _block_of(parent: ast.AST, child: ast.AST) -> list[ast.stmt]:
    """The statement list of `parent` that holds `child`."""
    for field in ("body", "orelse", "finalbody"):
        block = getattr(parent, field, None)
        if isinstance(block, list) and child in block:
            return block
    return []


def _always_returns(block: list[ast.stmt]) -> bool:
    return bool(block) and isinstance(block[-1], ast.Return | ast.Raise)
