"""Changes a file makes to a list of transforms after building it, read without running it.

A training script often grows its list step by step (``augs.append(...)`` under a flag,
``augs += [T.ToTensor(), normalize]``) or edits a built pipeline (``t.transforms.insert(2,
...)``, ``t.transforms[1] = ...``). Reading only the list's first assignment would port part of
the pipeline, or another one, in silence. Each change is found here and followed where the
file settles it without running: an ``append``, ``extend``, ``+=``, ``insert`` or item
assignment at a known place, under ``if`` tests whose values the file gives as literals.
Anything else (a loop, an unknown test, a ``remove``) makes :class:`Unfollowable` say where,
and the reader refuses the pipeline with the fix: port the object the file builds.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Mapping, Set
from dataclasses import dataclass
from typing import Any

from .model import Unknown

# statements that run their body zero or many times, or not at all on an exception
_REPEATED_OR_GUARDED = (
    ast.For,
    ast.AsyncFor,
    ast.While,
    ast.Try,
    ast.Match,
    ast.With,
    ast.AsyncWith,
)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Module, ast.Lambda)
_FOLLOWED = {"append", "extend", "insert"}


class Unfollowable(Exception):
    """A change the reader cannot follow: `line` and `why`, in words for the refusal."""

    def __init__(self, line: int, text: str, why: str, fix: str = "") -> None:
        super().__init__(f"line {line}: {text} {why}")
        self.line = line
        self.fix = fix  # the fix in the file itself, said first where there is one


def attribute_changes(tree: ast.Module) -> dict[str, list[ast.stmt]]:
    """Every statement setting (or deleting) an attribute of a transform held by a name
    (``flip.p = 0.0``, ``setattr(flip, "p", 0.0)``) by that name, or of a list's item
    (``augs[1].p = 0.0``, ``t.transforms[1].p = 0.0``) by :func:`list_key` with ``[]`` after
    it; in line order. The object a pipeline holds is the one changed, so the change is what
    runs."""
    found: dict[str, list[ast.stmt]] = {}
    for statement in ast.walk(tree):
        targets: list[ast.expr] = []
        if isinstance(statement, ast.Assign | ast.Delete):
            targets = list(statement.targets)
        elif isinstance(statement, ast.AugAssign | ast.AnnAssign):
            targets = [statement.target]
        elif (
            isinstance(statement, ast.Expr)
            and isinstance(statement.value, ast.Call)
            and isinstance(statement.value.func, ast.Name)
            and statement.value.func.id in ("setattr", "delattr")
            and statement.value.args
        ):
            targets = [ast.Attribute(statement.value.args[0], "?", ast.Store())]
        for target in targets:
            if not isinstance(target, ast.Attribute):
                continue
            held = target.value
            key = held.id if isinstance(held, ast.Name) else None
            if isinstance(held, ast.Subscript) and (listed := list_key(held.value)):
                key = f"{listed}[]"
            if key is not None:
                found.setdefault(key, []).append(statement)  # type: ignore[arg-type]
    for statements in found.values():
        statements.sort(key=lambda statement: statement.lineno)
    return found


@dataclass(frozen=True)
class Change:
    """One statement changing a list: ``kind`` is append, extend, insert, replace, or other
    (anything else: remove, pop, sort, ``*=``, a whole new ``.transforms``)."""

    statement: ast.stmt
    kind: str
    index: ast.expr | None = None
    value: ast.expr | None = None

    @property
    def line(self) -> int:
        return self.statement.lineno

    @property
    def text(self) -> str:
        return ast.unparse(self.statement)


def list_key(node: ast.expr) -> str | None:
    """``augs`` for a list name, ``t.transforms`` for a pipeline's list; None otherwise."""
    if isinstance(node, ast.Name):
        return node.id
    if (
        isinstance(node, ast.Attribute)
        and node.attr == "transforms"
        and isinstance(node.value, ast.Name)
    ):
        return f"{node.value.id}.transforms"
    return None


def find_changes(tree: ast.Module) -> dict[str, list[Change]]:
    """Every statement of the file that changes a list in place, by :func:`list_key`, in
    line order."""
    found: dict[str, list[Change]] = {}
    for statement in ast.walk(tree):
        for key, change in _changes(statement):
            found.setdefault(key, []).append(change)
    for changes in found.values():
        changes.sort(key=lambda change: change.line)
    return found


def _changes(statement: ast.AST) -> Iterable[tuple[str, Change]]:
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
        call = statement.value
        if isinstance(call.func, ast.Attribute):
            key = list_key(call.func.value)
            method = call.func.attr
            if key is not None and method in {*_FOLLOWED, "remove", "pop", "clear", "sort"}:
                yield key, _method_change(statement, method, call)
    elif isinstance(statement, ast.AugAssign):
        key = list_key(statement.target)
        if key is not None:
            kind = "extend" if isinstance(statement.op, ast.Add) else "other"
            yield key, Change(statement, kind, value=statement.value)
    elif isinstance(statement, ast.Assign | ast.Delete):
        for target in statement.targets:
            if isinstance(target, ast.Subscript) and (key := list_key(target.value)):
                kind = "replace" if isinstance(statement, ast.Assign) else "other"
                value = statement.value if isinstance(statement, ast.Assign) else None
                yield key, Change(statement, kind, index=target.slice, value=value)
            elif isinstance(target, ast.Attribute) and target.attr == "transforms":
                key = list_key(target)
                if key is not None:
                    yield key, Change(statement, "other")


def _method_change(statement: ast.stmt, method: str, call: ast.Call) -> Change:
    args = call.args
    if call.keywords or any(isinstance(arg, ast.Starred) for arg in args):
        return Change(statement, "other")
    if method in ("append", "extend") and len(args) == 1:
        return Change(statement, method, value=args[0])
    if method == "insert" and len(args) == 2:
        return Change(statement, "insert", index=args[0], value=args[1])
    return Change(statement, "other")


def scope_of(node: ast.AST, parents: Mapping[ast.AST, ast.AST]) -> ast.AST | None:
    parent = parents.get(node)
    while parent is not None and not isinstance(parent, _SCOPES):
        parent = parents.get(parent)
    return parent


def runs(
    change: Change,
    parents: Mapping[ast.AST, ast.AST],
    value: Callable[[ast.expr], Any],
    *,
    stop: Set[ast.AST] = frozenset(),
) -> bool:
    """Whether `change` runs, as the file settles it: False in an ``if`` branch its test's
    literal value leaves out; raises Unfollowable for a test known only at run time, or a loop
    or ``try`` around it. The walk ends at the scope, or at a statement of `stop` (those
    around the list's own making: a loop around both runs them together)."""
    child: ast.AST = change.statement
    parent = parents.get(child)
    while parent is not None and not isinstance(parent, _SCOPES) and parent not in stop:
        if isinstance(parent, _REPEATED_OR_GUARDED):
            raise Unfollowable(
                change.line, change.text, f"runs inside a {type(parent).__name__.lower()}"
            )
        if isinstance(parent, ast.If):
            test = value(parent.test)
            if isinstance(test, Unknown):
                raise Unfollowable(
                    change.line,
                    change.text,
                    f"runs under `if {ast.unparse(parent.test)}:`, known only when the file runs",
                )
            taken = parent.body if test else parent.orelse
            if child not in taken:
                return False
        child, parent = parent, parents.get(parent)
    return True


def apply(
    items: list[Any],
    changes: Iterable[Change],
    *,
    value: Callable[[ast.expr], Any],
    one: Callable[[ast.expr], Any],
    many: Callable[[ast.expr], list[Any]],
) -> list[Any]:
    """`items` after `changes` (each known to run): `one` reads an appended or inserted
    transform, `many` an extending list, `value` an index."""
    result = list(items)
    for change in changes:
        if change.kind == "append" and change.value is not None:
            result.append(one(change.value))
        elif change.kind == "extend" and change.value is not None:
            result.extend(many(change.value))
        elif change.kind in ("insert", "replace") and change.value is not None:
            index = value(change.index) if change.index is not None else None
            if not isinstance(index, int) or isinstance(index, bool):
                raise Unfollowable(change.line, change.text, "uses a place known only at run time")
            if change.kind == "insert":
                result.insert(index, one(change.value))
            elif -len(result) <= index < len(result):
                result[index] = one(change.value)
            else:
                raise Unfollowable(change.line, change.text, "replaces a transform not there")
        else:
            raise Unfollowable(change.line, change.text, "changes the list in a way not followed")
    return result


__all__ = [
    "Change",
    "Unfollowable",
    "apply",
    "attribute_changes",
    "find_changes",
    "list_key",
    "runs",
    "scope_of",
]
