"""Outputs given in a list or a dict (``return [images, labels]`` or ``return {"images": ...}``
from a ``@pipeline_def`` function, ``pipe.set_outputs([images, labels])``): DALI takes the
list as one output holding them all, and no dict at all, and refuses either when it builds the
pipeline, pointing at a missing ``*``. The refusal names where the file writes them and the
tuple to write instead."""

from __future__ import annotations

import ast
from typing import NamedTuple

from .serialized import ImportRefused

# what DALI's TypeError says of an output that holds other outputs, or of a dict
_NESTED = "contains a nested `DataNode`"
_DICT = "is a `<class 'dict'>`"


class ListedOutputs(ImportRefused):
    """A pipeline whose outputs were given in a list or a dict, which DALI refuses."""


class Listed(NamedTuple):
    line: int
    fix: str  # the statement written with a tuple (``return images, labels``)
    kind: str  # "list" or "dict"


def is_listed(error: BaseException) -> bool:
    return isinstance(error, TypeError) and (_NESTED in str(error) or _DICT in str(error))


def listed_message(
    name: str, error: BaseException, place: str = "", listed: Listed | None = None
) -> str:
    """The refusal of pipeline `name`, whose outputs DALI refused as nested or a dict
    (`error`); `place` (``"line 11 (`return [a, b]`)"``) and `listed` where the file's code was
    read."""
    kind = listed.kind if listed else ("dict" if _DICT in str(error) else "list")
    at = f", at {place}" if place else ""
    takes = (
        "DALI takes a list as one output holding them all"
        if kind == "list"
        else "DALI takes no dict of outputs (its outputs are numbered, not named)"
    )
    written = (
        f"`{listed.fix}`"
        if listed
        else "return them as a tuple (`return images, labels`), or unpack a list "
        "(`pipe.set_outputs(*outputs)`)"
    )
    return (
        f"pipeline {name!r} gives its outputs in a {kind}{at}: {takes}, and refuses it when it "
        f"builds the pipeline (DALI: {type(error).__name__}: {error}) (fix: {written})"
    )


def listed_outputs(tree: ast.Module) -> list[Listed]:
    """Where the code gives a pipeline's outputs in a list or a dict: a ``return [...]`` or
    ``return {...}`` in a ``@pipeline_def`` function, a ``set_outputs([...])`` call."""
    found: list[Listed] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and any(map(names_pipeline_def, node.decorator_list)):
            for inner in ast.walk(node):
                if not isinstance(inner, ast.Return):
                    continue
                if isinstance(inner.value, ast.List):
                    found.append(Listed(inner.lineno, f"return {_items(inner.value)}", "list"))
                elif isinstance(inner.value, ast.Dict):
                    found.append(Listed(inner.lineno, _dict_fix(inner.value), "dict"))
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "set_outputs"
            and len(node.args) == 1
            and isinstance(node.args[0], ast.List)
            and not node.keywords
        ):
            call = f"{ast.unparse(node.func)}({_items(node.args[0])})"
            found.append(Listed(node.lineno, call, "list"))
    return sorted(found)


def _items(listed: ast.List) -> str:
    return ", ".join(ast.unparse(item) for item in listed.elts)


def _dict_fix(written: ast.Dict) -> str:
    """``return a, b``, and the names the dict gave, for the loader (DALI's PyTorch iterators
    name a pipeline's outputs by ``output_map``)."""
    values = ", ".join(ast.unparse(value) for value in written.values)
    keys = [k.value for k in written.keys if isinstance(k, ast.Constant)]
    if len(keys) != len(written.keys) or not all(isinstance(k, str) for k in keys):
        return f"return {values}"
    return f"return {values}`, and name them in the loader: `output_map={keys!r}"


def names_pipeline_def(decorator: ast.expr) -> bool:
    """Whether `decorator` is ``@pipeline_def``, bare, called or as an attribute."""
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
    return name == "pipeline_def"
