"""The project's own modules a file imports (``import moco.loader``, ``import utils``,
``from .transforms import build_transforms``), found and parsed, never run.

A name is looked for as Python would find it for the file: an absolute import in the file's
folder (a script run from its folder), then in its parents up to the project's root (a folder
with ``.git``, ``pyproject.toml``, ``setup.py`` or ``setup.cfg``, at most :data:`MAX_UP` folders
up: a package run with ``python -m``); a relative import from the file's package. Nothing under
``site-packages`` is read, nor any module of the libraries the port knows: those are the
library's, not the project's. At most :data:`MAX_FILES` files are read for one file's reading
(a guard against cycles and huge trees), shared by every module followed from it.
"""

from __future__ import annotations

import ast
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

MAX_FILES = 40  # files read for one reading, its own modules' modules included
MAX_UP = 3  # parents of the file's folder searched for an absolute import's module
MAX_BYTES = 2_000_000  # a module larger than this is no transform file: left unread
_ROOT_MARKERS = (".git", "pyproject.toml", "setup.py", "setup.cfg")
# never the project's own, whatever a folder next to the file is called
_LIBRARIES = frozenset(
    {"torch", "torchvision", "albumentations", "PIL", "numpy", "cv2", "timm", "nvidia"}
)
_Defined = ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef


@dataclass(frozen=True)
class Definition:
    """A class or function defined in one of the project's other files."""

    node: _Defined
    path: Path
    tree: ast.Module
    shown: str  # the file as the user knows it, relative to the file read ("moco/loader.py")
    # the budget of files its own reading may still read (the same one, shared)
    modules: LocalModules

    @property
    def where(self) -> str:
        return f"{self.shown}, line {self.node.lineno}"


@dataclass(frozen=True)
class Missing:
    """A module of the project's the file imports that was not found or not read: why."""

    said: str


@dataclass
class _Budget:
    """Files read so far for one reading (every module followed from it), by path."""

    home: Path  # the folder of the file read first: every file is shown relative to it
    read: dict[Path, ast.Module | None] = field(default_factory=dict)
    exhausted: bool = False
    # (folder, level, module) -> its file and the places tried: each looked for once
    files: dict[tuple[Path, int, tuple[str, ...]], tuple[Path | None, list[Path]]] = field(
        default_factory=dict
    )
    # the files whose pipelines are being read, outermost first: a builder of one of them
    # called from another is not read again (an import cycle)
    reading: list[Path] = field(default_factory=list)


class LocalModules:
    """The modules of the project a file imports, by the names it binds."""

    def __init__(self, origin: Path, tree: ast.Module, budget: _Budget | None = None) -> None:
        self.origin = origin.resolve()
        self.base = self.origin.parent
        # the file read first: shown from, and not read again through a cycle
        self.budget = budget or _Budget(self.base, reading=[self.origin])
        self.budget.read.setdefault(self.origin, tree)  # the file itself: no cycle through it
        self.roots = _roots(self.base)
        # a name the file binds -> (import level, the module's dotted parts, attribute or "")
        self.bound: dict[str, tuple[int, tuple[str, ...], str]] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    parts = tuple(alias.name.split("."))
                    if alias.asname:
                        self.bound[alias.asname] = (0, parts, "")
                    else:  # `import moco.loader` binds `moco`; moco.loader.X is read whole
                        self.bound[parts[0]] = (0, parts[:1], "")
            elif isinstance(node, ast.ImportFrom):
                module = tuple(node.module.split(".")) if node.module else ()
                for alias in node.names:
                    if alias.name != "*":
                        self.bound[alias.asname or alias.name] = (node.level, module, alias.name)

    def definition(self, func: ast.expr) -> Definition | Missing | None:
        """What a call's function (``moco.loader.GaussianBlur``, ``utils.Solarization``,
        ``build_transforms``) is, where it names a module of the project's: its class or
        function, or why it was not read; None where it names no such module."""
        written = _written(func)
        if not written or written[0] not in self.bound:
            return None
        level, module, attribute = self.bound[written[0]]
        if (
            not level
            and module[:1]
            and (module[0] in _LIBRARIES or module[0] in sys.stdlib_module_names)
        ):
            return None  # os.path.join, random.random: Python's or a library's, never read
        dotted = [*module, *([attribute] if attribute else []), *written[1:]]
        return self._find(level, dotted, depth=0)

    def _find(self, level: int, dotted: list[str], depth: int) -> Definition | Missing | None:
        """The definition `dotted` names: the longest leading part that is a module file, the
        name after it defined (or imported) there."""
        if depth > 8:
            return Missing("it is imported through more than 8 modules, which are not followed")
        looked: list[Path] = []  # where the module itself (all but the last name) was sought
        for cut in range(len(dotted) - 1, 0, -1):
            path, tried = self._module_file(level, dotted[:cut])
            looked = looked or tried
            if path is None:
                continue
            tree = self._parse(path)
            if tree is None:
                return Missing(self._unread(path))
            name, rest = dotted[cut], dotted[cut + 1 :]
            found = _defined(tree, name)
            other = LocalModules(path, tree, self.budget)
            if found is not None and not rest:
                shown = _shown(path, self.budget.home)
                return Definition(found, path, tree, shown, other)
            if found is not None and rest:  # an attribute of a class: not followed
                return None
            if found is None and name in other.bound:  # re-exported: `from .loader import X`
                level, module, attribute = other.bound[name]
                again = [*module, *([attribute] if attribute else []), *rest]
                return other._find(level, again, depth + 1)
            if path.name != "__init__.py" or cut == len(dotted) - 1:
                shown = _shown(path, self.budget.home)
                return Missing(f"{name} is not a class or function defined in {shown}")
            break  # `data.missing.Thing`: no module data/missing.py beside data/__init__.py
        if not looked:  # `utils(...)`: a module called, no class or function of it
            return None
        if self.budget.exhausted:
            return Missing(f"not read: the reading stops after {MAX_FILES} files of the project")
        places = ", ".join(_shown(p, self.budget.home) for p in looked)
        return Missing(
            f"its module {'.'.join(dotted[:-1])} is not among the project's files: looked for "
            f"{places}"
        )

    def _module_file(self, level: int, parts: list[str]) -> tuple[Path | None, list[Path]]:
        """The file of module `parts` (``a/b.py`` or ``a/b/__init__.py``) and the places tried."""
        key = (self.base, level, tuple(parts))
        if key not in self.budget.files:
            self.budget.files[key] = self._look_for(level, parts)
        return self.budget.files[key]

    def _look_for(self, level: int, parts: list[str]) -> tuple[Path | None, list[Path]]:
        if level:
            start = self.base
            for _ in range(level - 1):
                start = start.parent
            folders = [start]
        else:
            folders = list(self.roots)
        tried: list[Path] = []
        for folder in folders:
            for candidate in (
                folder.joinpath(*parts).with_suffix(".py"),
                folder.joinpath(*parts, "__init__.py"),
            ):
                tried.append(candidate)
                if candidate.is_file() and not _installed(candidate):
                    return candidate, tried
        return None, tried

    def _parse(self, path: Path) -> ast.Module | None:
        """The module's tree (read once per reading), None where it cannot be read."""
        key = path.resolve()
        if key in self.budget.read:
            return self.budget.read[key]
        if len(self.budget.read) >= MAX_FILES:
            self.budget.exhausted = True
            return None
        tree: ast.Module | None = None
        try:
            if path.stat().st_size <= MAX_BYTES:
                tree = ast.parse(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, SyntaxError, ValueError, RecursionError):
            tree = None
        self.budget.read[key] = tree
        return tree

    def _unread(self, path: Path) -> str:
        if self.budget.exhausted:
            return (
                f"{_shown(path, self.budget.home)} was not read: the reading stops after {MAX_FILES} "
                "files of the project"
            )
        return f"{_shown(path, self.budget.home)} could not be read as Python"


def _roots(base: Path) -> tuple[Path, ...]:
    """The file's folder, then its parents up to the project's root (see the module)."""
    found = [base]
    folder = base
    for _ in range(MAX_UP):
        if any((folder / marker).exists() for marker in _ROOT_MARKERS):
            break
        if folder.parent == folder or folder.parent == Path.home():
            break
        folder = folder.parent
        found.append(folder)
    return tuple(found)


def _installed(path: Path) -> bool:
    """Whether `path` is an installed library's (never the project's own)."""
    return any(part in ("site-packages", "dist-packages") for part in path.parts)


def _written(func: ast.expr) -> list[str]:
    """``moco.loader.GaussianBlur`` as its names; [] for anything but names and attributes."""
    if isinstance(func, ast.Name):
        return [func.id]
    if isinstance(func, ast.Attribute):
        head = _written(func.value)
        return [*head, func.attr] if head else []
    return []


def _defined(tree: ast.Module, name: str) -> _Defined | None:
    """The module-level class or function `name` of `tree` (its last definition)."""
    found = [
        node
        for node in tree.body
        if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.name == name
    ]
    return found[-1] if found else None


def _shown(path: Path, base: Path) -> str:
    """`path` relative to the folder of the file read, as the user knows it."""
    try:
        return Path(os.path.relpath(path, base)).as_posix()
    except ValueError:  # another drive
        return path.as_posix()


__all__ = ["MAX_FILES", "Definition", "LocalModules", "Missing"]
