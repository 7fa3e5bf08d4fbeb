"""How the original side builds the pipeline the port read: the function (or the class, for a
pipeline built in ``__init__``, ``self.transforms``) whose code makes the Compose, and what each
of its parameters without a default is given, as the reading took it.

- The file's one call of the function gives it (``build(CFG)``, ``Preset(base_size=520,
  crop_size=480)``), or every call writes the same expression for it (``build(IMG,
  train=True)``, ``build(IMG, train=False)``; :mod:`.call_sites`): the argument as written,
  evaluated where the file ran.
- A parameter holding the parsed command line (``def build(args)``, :mod:`.argparse_defaults`):
  the options' defaults, as ``python FILE`` with no options gives them, where the call's own
  argument exists only inside code the file does not run (``if __name__ == "__main__":``).

A parameter with a default takes it on both sides; one given with ``params`` takes that value.
The runner (:mod:`augexplorer.bench.original_runner`) does the calling; this module only reads.
"""

from __future__ import annotations

import ast
from typing import Any

from .argparse_defaults import ArgparseDefaults
from .call_sites import given_by_calls

_Function = ast.FunctionDef | ast.AsyncFunctionDef


def builder_of(source: str, line: int | None) -> dict[str, Any] | None:
    """The builder of the Compose written at `line`, as the runner's job takes it:
    ``{"kind": "function" | "class", "name", "arguments": {parameter: {"expression", "line",
    "options"}}}``; None where that Compose is not built in a module-level function or in the
    ``__init__`` of a module-level class."""
    if line is None:
        return None
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    function = _innermost_function(tree, line)
    if function is None:
        return None
    owner = parents.get(function)
    if isinstance(owner, ast.ClassDef) and function.name == "__init__":
        if parents.get(owner) is not tree:
            return None
        kind, name, skipped = "class", owner.name, 1
    elif owner is tree:
        kind, name, skipped = "function", function.name, 0
    else:
        return None
    options = ArgparseDefaults(tree)
    arguments: dict[str, dict[str, Any]] = {}
    for parameter in _without_default(function, skipped):
        entry: dict[str, Any] = {}
        given = given_by_calls(tree, parents, function, parameter)
        if given is not None:
            entry["expression"] = ast.unparse(given.value)
            entry["line"] = given.call.lineno
            assigned = _assigned_once(tree, given.value)
            if assigned is not None:  # `cfg = Config()` under `if __name__ == "__main__":`
                entry["assigned"] = ast.unparse(assigned)
        if parameter in options.namespaces:
            entry["options"] = _option_defaults(options)
        if entry:
            arguments[parameter] = entry
    return {"kind": kind, "name": name, "arguments": arguments}


def _assigned_once(tree: ast.Module, argument: ast.expr) -> ast.expr | None:
    """What a name given as an argument is assigned, where the file assigns it once, to a
    settings object it builds (``Config()``, ``SimpleNamespace(size=64)``), a literal or a name:
    made again where the file runs no code that makes it (a ``__main__`` block, a function).
    Any other call (``load_model()``) is not made again: it may do much more than the file's
    transforms need."""
    if not isinstance(argument, ast.Name):
        return None
    values = [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign)
        and len(node.targets) == 1
        and isinstance(node.targets[0], ast.Name)
        and node.targets[0].id == argument.id
    ]
    if len(values) != 1:
        return None
    (value,) = values
    classes = {node.name for node in ast.walk(tree) if isinstance(node, ast.ClassDef)}
    for node in ast.walk(value):
        if isinstance(node, ast.Call):
            called = ast.unparse(node.func)
            if called not in classes and called.split(".")[-1] not in _SETTINGS:
                return None
    return value


# the calls that build a settings object from their keywords (config_objects' namespaces)
_SETTINGS = frozenset({"SimpleNamespace", "Namespace", "EasyDict", "Dict", "Munch", "ConfigDict"})


def _innermost_function(tree: ast.Module, line: int) -> _Function | None:
    """The innermost function whose body holds `line`."""
    around = [
        node
        for node in ast.walk(tree)
        if isinstance(node, _Function)
        and node.body
        and node.body[0].lineno <= line <= (node.end_lineno or node.lineno)
    ]
    return max(around, key=lambda node: node.lineno, default=None)


def _without_default(function: _Function, skipped: int) -> list[str]:
    """The parameters without a default, in order, the first `skipped` (``self``) left out."""
    arguments = function.args
    positional = [*arguments.posonlyargs, *arguments.args]
    first_defaulted = len(positional) - len(arguments.defaults)
    names = [a.arg for i, a in enumerate(positional) if skipped <= i < first_defaulted]
    names += [
        a.arg
        for a, default in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True)
        if default is None
    ]
    return names


def _option_defaults(options: ArgparseDefaults) -> dict[str, Any]:
    """Each option's default as a JSON value (argparse's None where the file gives none or it
    is not a literal)."""
    found: dict[str, Any] = {}
    for dest, option in options.options.items():
        value: Any = None
        if option is not None:
            try:
                value = ast.literal_eval(option.value)
            except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
                value = None
        found[dest] = value
    return found


__all__ = ["builder_of"]
