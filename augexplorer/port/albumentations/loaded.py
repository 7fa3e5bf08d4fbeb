"""A file that loads its albumentations pipeline from albumentations' saved form.

``train_tf = A.load("aug.yaml", data_format="yaml")``, or ``A.from_dict(json.load(f))`` with
``f = open("aug.json")``, writes no Compose: the saved file is the pipeline. Found in the
file's source (never run), it is ported as ``augexplorer import aug.yaml`` ports it; the saved
file is looked for beside the file, where the script is usually run.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

SAVED_SUFFIXES = (".json", ".yaml", ".yml")


@dataclass(frozen=True)
class Loaded:
    """One ``A.load`` or ``A.from_dict`` call: what it is assigned to, its line, the call as
    written and the saved file it reads, where a string literal names it."""

    target: str
    line: int
    call: str
    saved: str | None


def _albumentations_names(tree: ast.Module) -> tuple[set[str], set[str]]:
    """The names albumentations goes by in the file (``A``), and load/from_dict imported from
    it by name."""
    modules, functions = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "albumentations":
                    modules.add(alias.asname or alias.name.split(".")[0])
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("albumentations"):
            functions |= {a.asname or a.name for a in node.names if a.name in ("load", "from_dict")}
    return modules, functions


def _function(call: ast.Call, modules: set[str], functions: set[str]) -> str | None:
    func = call.func
    if (
        isinstance(func, ast.Attribute)
        and func.attr in ("load", "from_dict")
        and isinstance(func.value, ast.Name)
        and func.value.id in modules
    ):
        return func.attr
    if isinstance(func, ast.Name) and func.id in functions:
        return func.id
    return None


def _saved_literals(tree: ast.Module) -> list[str]:
    """String literals naming a saved file (.json, .yaml, .yml) anywhere in the file."""
    return [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and node.value.lower().endswith(SAVED_SUFFIXES)
    ]


def loaded_pipelines(text: str) -> list[Loaded]:
    """Each module-level assignment of ``A.load(...)`` or ``A.from_dict(...)`` in `text`."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    modules, functions = _albumentations_names(tree)
    literals = _saved_literals(tree)
    found = []
    for node in tree.body:
        if not (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)):
            continue
        name = _function(node.value, modules, functions)
        if name is None or not isinstance(node.targets[0], ast.Name):
            continue
        first = node.value.args[0] if node.value.args else None
        given = next((k.value for k in node.value.keywords if k.arg == "filepath"), first)
        if name == "load" and isinstance(given, ast.Constant) and isinstance(given.value, str):
            saved: str | None = given.value
        else:  # from_dict of what json or yaml read: the one saved file the file names
            saved = literals[0] if len(set(literals)) == 1 else None
        found.append(Loaded(node.targets[0].id, node.lineno, ast.unparse(node.value), saved))
    return found


def saved_path(loaded: Loaded, beside: Path) -> Path:
    """The saved file `loaded` reads, beside the file that loads it; refused where it is not
    there or not named by a literal, with the fix."""
    from ..reading import ReadRefused

    where = f"line {loaded.line}: {loaded.target} = {loaded.call}"
    if loaded.saved is None:
        raise ReadRefused(
            f"{where} loads an albumentations pipeline saved elsewhere, and the file names no "
            "one saved file (.json, .yaml) it reads (fix: augexplorer import the saved file "
            "itself, as A.save wrote it)"
        )
    path = (beside / loaded.saved).resolve()
    if not path.is_file():
        raise ReadRefused(
            f"{where} loads its pipeline from {loaded.saved!r}, which is not beside the file "
            f"({path}) (fix: augexplorer import that saved file itself, where it is)"
        )
    return path
