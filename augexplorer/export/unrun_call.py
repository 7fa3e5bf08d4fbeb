"""The one call of a pipeline's definition that importing the file does not run.

Training scripts make their pipeline under ``if __name__ == "__main__":``, from the command
line's values (``train_pipe(data_dir=args.data, batch_size=args.batch_size,
seed=9, num_threads=1)``). An import runs the file as a module, never as ``__main__``, so it
builds the pipeline from its definition: the values that call writes as literals (its seed and
batch size above all: DALI draws by them) are read from the call itself, and what only running
gives (``args.data``) is named for ``--param``.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .stopped_call import arguments_of, callee_name, plain_value


class ReadFromCall(UserWarning):
    """The pipeline was built from its definition with the values its one call in the file
    writes, a call the import did not run."""


@dataclass(frozen=True)
class UnrunCall:
    line: int  # of the call, in the file's code
    values: dict[str, Any]  # parameter -> the value the call writes
    unread: tuple[str, ...]  # ``parameter=source`` for what only running the file gives


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def unrun_call(
    tree: ast.Module, name: str, definition: Any, namespace: Mapping[str, Any]
) -> UnrunCall | None:
    """The call of `name` (the file's ``@pipeline_def`` function or ``Pipeline`` subclass,
    `definition`) in module scope under ``if __name__ == "__main__":``, where the file writes
    exactly one call of it: several, as a train and a validation pipeline, leave nothing to
    choose by; one in a function (``main()``) is given its values by ``--param``, as a class
    built there is; one the run made was read as made. A name bound at module level to plain
    data is read; ``device_id`` is left to the import, which builds for this machine."""
    found: list[tuple[ast.Call, bool]] = []
    _calls(tree, name, under_main=False, found=found)
    if len(found) != 1 or not found[0][1]:
        return None
    call = found[0][0]
    values: dict[str, Any] = {}
    unread: list[str] = []
    for parameter, expression in arguments_of(call, definition):
        if parameter == "device_id":
            continue
        known, value = plain_value(expression, namespace)
        if known:
            values[parameter] = value
        else:
            unread.append(f"{parameter}={ast.unparse(expression)}")
    return UnrunCall(call.lineno, values, tuple(unread))


def _calls(
    node: ast.AST, name: str, *, under_main: bool, found: list[tuple[ast.Call, bool]]
) -> None:
    """Each call of `name` under `node`, and whether it is in module scope under ``if __name__
    == "__main__":`` (which the import's run, as a module of another name, skips)."""
    if isinstance(node, ast.Module):  # its `if __name__ == "__main__":` bodies, not their else
        for statement in node.body:
            if isinstance(statement, ast.If) and _tests_main(statement.test):
                for inner in statement.body:
                    _calls_in(inner, name, under_main=True, found=found)
                for inner in statement.orelse:
                    _calls_in(inner, name, under_main=False, found=found)
            else:
                _calls_in(statement, name, under_main=False, found=found)
        return
    for child in ast.iter_child_nodes(node):
        _calls_in(child, name, under_main=under_main, found=found)


def _calls_in(
    node: ast.AST, name: str, *, under_main: bool, found: list[tuple[ast.Call, bool]]
) -> None:
    if isinstance(node, ast.Call) and callee_name(node.func) == name:
        found.append((node, under_main))
    _calls(node, name, under_main=under_main and not isinstance(node, _SCOPES), found=found)


def _tests_main(test: ast.expr) -> bool:
    """``__name__ == "__main__"``, either way round."""
    if not (
        isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)
    ):
        return False
    sides = [test.left, test.comparators[0]]
    named = any(isinstance(side, ast.Name) and side.id == "__name__" for side in sides)
    return named and any(
        isinstance(side, ast.Constant) and side.value == "__main__" for side in sides
    )


def read_from_call_message(name: str, where: str, shown: str, unrun: UnrunCall) -> str:
    """What the import says of a pipeline built with the values of a call it did not run."""
    values = ", ".join(f"{key}={value!r}" for key, value in unrun.values.items())
    unread = ", ".join(unrun.unread)
    if not values:
        built = f"it is built from its definition, and what that call writes ({unread}) only "
        built += "running the file gives: --param NAME=VALUE gives it"
    else:
        built = (
            f"it is built from its definition with the values that call writes ({values}; "
            "--param NAME=VALUE gives another)"
        )
        if unread:
            built += (
                f"; what it writes that only running the file gives is left to --param ({unread})"
            )
    return (
        f"{name!r} is made at {where} (`{shown}`), which an import does not run (the file runs "
        f"as a module, not as __main__): {built}"
    )
