"""The statement where a file stopped for want of a GPU, and the pipeline made inside it.

A training script often makes its pipeline inside the call that first needs the GPU
(``DALIGenericIterator([get_pipeline(batch_size=16)], ...)``): no name holds it, and the import
builds the pipeline from its definition. The values that call writes for it (its batch size
above all: DALI draws by a sample's place in its batch) are read from the call itself.
"""

from __future__ import annotations

import ast
import inspect
import re
from collections.abc import Mapping
from typing import Any

SHOWN_LENGTH = 80  # characters of a statement a message quotes before " …"

# Values read from a call as the code would pass them: Python's plain data. A name bound to
# anything else (a Namespace, a function) is left to --param.
_PLAIN = (str, int, float, bool, type(None))


def statements_at(tree: ast.Module, line: int) -> list[ast.stmt]:
    """The innermost statements of `tree` spanning `line`, in the file's order: several where
    the line holds several (``n = 4; it = Iterator([...])``)."""
    spanning = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.stmt) and node.lineno <= line <= (node.end_lineno or node.lineno)
    ]
    if not spanning:
        return []
    span = min((node.end_lineno or node.lineno) - node.lineno for node in spanning)
    innermost = [n for n in spanning if (n.end_lineno or n.lineno) - n.lineno == span]
    return sorted(innermost, key=lambda node: node.col_offset)


def statement_at(tree: ast.Module, line: int) -> ast.stmt | None:
    """The first innermost statement of `tree` spanning `line`, or None."""
    found = statements_at(tree, line)
    return found[0] if found else None


def shown_statement(text: str, tree: ast.Module, line: int) -> str:
    """The statement at `line` as a message quotes it: on one line, whole where it is short,
    else cut at a word and ended with " …" (never a multi-line call's first line alone, whose
    open bracket reads as a call of nothing)."""
    statement = statement_at(tree, line)
    source = ast.get_source_segment(text, statement) if statement is not None else None
    if not source:
        lines = text.splitlines()
        source = lines[line - 1] if 0 < line <= len(lines) else ""
    one_line = " ".join(part.strip() for part in source.splitlines() if part.strip())
    # the line breaks joined: no space inside brackets, no trailing comma before a closing one
    one_line = re.sub(r"([(\[{]) ", r"\1", one_line)
    one_line = re.sub(r",? ([)\]}])", r"\1", one_line)
    if len(one_line) <= SHOWN_LENGTH:
        return one_line
    return f"{_cut(one_line, SHOWN_LENGTH)} …"


def _cut(text: str, limit: int) -> str:
    """`text` (longer than `limit`) cut at its last space within `limit`, or where no space
    comes late enough (a long path or string), at the last edge of a word."""
    head = text[: limit + 1]
    space = head.rfind(" ")
    if space >= limit // 2:
        return text[:space].rstrip()
    for end in range(limit, limit // 2, -1):
        if _in_word(head[end - 1]) != _in_word(head[end]):
            return text[:end]
    return text[:limit]


def _in_word(character: str) -> bool:
    return character.isalnum() or character == "_"


def values_in_call(
    tree: ast.Module, line: int, name: str, definition: Any, namespace: Mapping[str, Any]
) -> dict[str, Any]:
    """The values the statement at `line` passes to `name` (the file's ``@pipeline_def``
    function or Pipeline subclass, `definition`) where it calls it once: arguments written as
    literals, and at the file's top level names it had bound to plain values (``images_dir=
    images_dir``). Empty where the statement makes no such call, or several. ``device_id`` is
    left to the import, which builds for this machine."""
    calls = [
        (statement, node)
        for statement in statements_at(tree, line)
        for node in ast.walk(statement)
        if isinstance(node, ast.Call) and callee_name(node.func) == name
    ]
    if len(calls) != 1:
        return {}
    statement, call = calls[0]
    top_level = any(statement is s for s in tree.body)
    values: dict[str, Any] = {}
    for parameter, expression in arguments_of(call, definition):
        found, value = plain_value(expression, namespace if top_level else {})
        if found and parameter != "device_id":
            values[parameter] = value
    return values


def callee_name(function: ast.expr) -> str:
    if isinstance(function, ast.Attribute):
        return function.attr
    return function.id if isinstance(function, ast.Name) else ""


def arguments_of(call: ast.Call, definition: Any) -> list[tuple[str, ast.expr]]:
    """(parameter name, expression) for each argument of `call` that names its parameter:
    every keyword, and positional ones before any ``*args`` by the definition's signature."""
    pairs = [(k.arg, k.value) for k in call.keywords if k.arg is not None]
    try:
        parameters = list(inspect.signature(definition).parameters.values())
    except (TypeError, ValueError):
        return pairs
    by_position = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    for parameter, expression in zip(parameters, call.args, strict=False):
        if isinstance(expression, ast.Starred) or parameter.kind not in by_position:
            break
        pairs.append((parameter.name, expression))
    return pairs


def plain_value(expression: ast.expr, names: Mapping[str, Any]) -> tuple[bool, Any]:
    """(True, the value) of a literal, or of a name `names` binds to plain data; else
    (False, None)."""
    try:
        return True, ast.literal_eval(expression)
    except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
        pass
    if isinstance(expression, ast.Name) and expression.id in names:
        value = names[expression.id]
        items = value if isinstance(value, (list, tuple)) else (value,)
        if all(isinstance(item, _PLAIN) for item in items):
            return True, value
    return False, None
