"""Running a user's file for import as ``python FILE`` runs it; a notebook, as its code cells.

While the file runs, ``sys.argv`` is ``[FILE]`` (a top-level ``parser.parse_args()`` sees no
augexplorer arguments) and ``sys.path[0]`` is its folder (``import aug_config`` finds a sibling
module); both are restored afterwards, whatever happens, and the sibling modules it imported are
forgotten (a later import of another folder's ``aug_config`` gets its own, as a new ``python``
would). It runs as a module named :data:`.code_pipelines.RUN_NAME`, never ``__main__``.

A failure keeps what the file had made before it (:class:`RunFailed`): the importer reads a
pipeline made before a line that needs a GPU this machine lacks (DALI's Getting Started code
builds and runs its pipeline with ``device_id=0`` at module level).

A notebook's code cells run one after another; IPython lines (``%matplotlib inline``, ``!pip``,
``files = !ls``) and cell magics other than timing ones are left out, as lines, so that each line
keeps its number and an error names its cell.
"""

from __future__ import annotations

import builtins
import io
import json
import linecache
import re
import sys
import tokenize
import traceback
import types
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..devices import has_gpu
from ..errors import SpecFormatError
from .code_pipelines import RUN_NAME


class StoppedForGpu(UserWarning):
    """The file stopped at a line that builds or runs a pipeline on a GPU this machine lacks;
    the import read the pipelines made before it."""


@dataclass(frozen=True)
class Code:
    """The Python a file runs: the file's text, or a notebook's code cells joined."""

    path: Path
    text: str
    # a notebook's: for each line of `text`, its code cell and line there (1-based)
    cells: tuple[tuple[int, int], ...] = ()

    @property
    def is_notebook(self) -> bool:
        return self.path.suffix.lower() == ".ipynb"

    def where(self, line: int) -> str:
        """``line 58``, or in a notebook ``line 12 (code cell 3, line 2)``."""
        if 0 < line <= len(self.cells):
            cell, in_cell = self.cells[line - 1]
            return f"line {line} (code cell {cell}, line {in_cell})"
        return f"line {line}"


def code_of(path: Path, text: str) -> Code:
    """The Python `path` runs: a notebook's code cells (.ipynb), or its text."""
    if path.suffix.lower() == ".ipynb":
        return notebook_code(path, text)
    return Code(path, text)


# Cell magics whose body is the cell's Python: it runs, the magic line left out.
_PYTHON_CELL_MAGICS = ("%%time", "%%timeit", "%%capture", "%%prun")
# An IPython line: a line magic, a shell line, help (`fn.rotate?`), or an assignment of one
# (`files = !ls`); none of them is Python.
_IPYTHON_LINE = re.compile(r"\s*(?:[%!?]|[\w.]+\s*=\s*[%!]|[\w.]+\?{1,2}\s*$)")


def _continues(lines: list[str]) -> bool:
    """Whether a cell's lines so far end inside brackets or a string, or after a backslash:
    the next line continues them (``% name)`` there is Python, not a magic)."""
    text = "\n".join(lines) + "\n"
    try:
        for _ in tokenize.generate_tokens(io.StringIO(text).readline):
            pass
    except tokenize.TokenError:  # "EOF in multi-line statement" or string
        return True
    except SyntaxError:  # not for this check to judge: the run says what is wrong
        return False
    return False


def notebook_code(path: Path, text: str) -> Code:
    """A notebook's code cells as one Python text, IPython lines left out (as blank lines);
    a cell magic such as ``%%bash`` leaves its whole cell out (its body is not Python)."""
    try:
        cells = json.loads(text)["cells"]
        if not isinstance(cells, list):
            raise TypeError
    except (ValueError, KeyError, TypeError):
        raise SpecFormatError(
            f"{path}: not a notebook (.ipynb JSON with cells) (fix: give a notebook saved by "
            "Jupyter, or the code as a .py file)"
        ) from None
    lines: list[str] = []
    where: list[tuple[int, int]] = []
    code_cells = [c for c in cells if isinstance(c, dict) and c.get("cell_type") == "code"]
    for number, cell in enumerate(code_cells, start=1):
        source = cell.get("source", "")
        cell_lines = ("".join(source) if isinstance(source, list) else str(source)).splitlines()
        skip_cell = bool(cell_lines) and cell_lines[0].startswith("%%")
        skip_cell = skip_cell and cell_lines[0].split()[0] not in _PYTHON_CELL_MAGICS
        kept: list[str] = []
        for index, line in enumerate(cell_lines, start=1):
            magic = bool(_IPYTHON_LINE.match(line)) and not _continues(kept)
            python = not (skip_cell or magic)
            kept.append(line if python else "")
            where.append((number, index))
        lines += kept
        lines.append("")  # cells apart, as Jupyter runs them
        where.append((number, len(cell_lines) + 1))
    return Code(path, "\n".join(lines) + "\n", tuple(where))


@dataclass
class RunFailed(Exception):
    """The file raised `error` at `line` (0: not in the file's own code); `namespace` holds
    what it had made before."""

    error: BaseException
    line: int
    namespace: dict[str, Any]

    def for_want_of_gpu(self) -> bool:
        """Whether DALI refused because this machine has no GPU (building or running a
        pipeline made for one): on a machine with a GPU the same line would run."""
        return not has_gpu() and any(text in str(self.error) for text in _NO_GPU)


# What DALI says when a pipeline needs a GPU and none is here ("...create a GPU DALI pipeline
# while CUDA is not available", or a mixed/gpu operator with device_id=None).
_NO_GPU = (
    "CUDA is not available",
    "requires a CUDA-capable GPU",
    "CUDA driver is not installed",
    "no CUDA-capable device",
)


def dali_reason(error: BaseException) -> str:
    """DALI's first sentence of `error`, cleaned as the explorer cleans DALI's errors."""
    from ..engine.runners import clean_dali_message

    text = clean_dali_message(str(error)) or type(error).__name__
    return text.split(". ")[0].rstrip(".")


def run_code(code: Code) -> dict[str, Any]:
    """The namespace the file's code leaves, run as ``python FILE`` runs it (see the module);
    :class:`RunFailed` on anything it raises, SystemExit included."""
    compiled = compile(code.text, str(code.path), "exec", dont_inherit=True)
    module = types.ModuleType(RUN_NAME)
    module.__dict__.update(
        __builtins__=builtins, __cached__=None, __loader__=None, __package__=None, __spec__=None
    )
    if not code.is_notebook:
        module.__file__ = str(code.path)  # Jupyter defines no __file__
    with _as_python_runs(code.path, module):
        try:
            exec(compiled, module.__dict__)
        except (Exception, SystemExit) as error:  # the user's code: what it raises is theirs
            raise RunFailed(error, _line_in(error, code.path), dict(module.__dict__)) from None
    return dict(module.__dict__)


def _line_in(error: BaseException, path: Path) -> int:
    """The last line of the file's own code in the traceback of `error` (0: none)."""
    lines = lines_in(error, path)
    return lines[-1] if lines else 0


def lines_in(error: BaseException, path: Path) -> list[int]:
    """The lines of the file's own code in the traceback of `error`, outermost first (the
    file's top-level statement, then the lines of its functions that it called)."""
    return [
        frame.lineno or 0
        for frame in traceback.extract_tb(error.__traceback__)
        if frame.filename == str(path) or Path(frame.filename) == path
    ]


@contextmanager
def _as_python_runs(path: Path, module: types.ModuleType) -> Iterator[None]:
    """sys.argv as ``[FILE]``, the file's folder first on sys.path, the module importable by
    its name; all restored afterwards, and the modules imported from that folder forgotten."""
    folder = str(path.resolve().parent)  # as python sets sys.path[0]: links resolved
    saved_argv, saved_path = sys.argv, list(sys.path)
    saved_module = sys.modules.get(RUN_NAME)
    before = set(sys.modules)
    sys.argv = [str(path)]  # no script arguments: augexplorer's own are not the file's
    sys.path.insert(0, folder)
    sys.modules[RUN_NAME] = module
    try:
        yield
    finally:
        sys.argv = saved_argv
        sys.path[:] = saved_path
        if saved_module is None:
            sys.modules.pop(RUN_NAME, None)
        else:
            sys.modules[RUN_NAME] = saved_module
        _forget_modules_from(folder, set(sys.modules) - before, saved_path)


def _forget_modules_from(folder: str, names: set[str], search_path: list[str]) -> None:
    """Forget the modules among `names` the script found in its own folder; those found
    through another entry of the search path inside that folder stay (a project's own
    ``.venv`` holds DALI: forgetting it broke every later ``import nvidia.dali``)."""
    root = Path(folder).resolve()
    others = [
        entry
        for entry in (Path(p or ".").resolve() for p in search_path)
        if entry != root and entry.is_relative_to(root)
    ]
    for name in names:
        file = getattr(sys.modules.get(name), "__file__", None)
        if not file:
            continue
        found = Path(file).resolve()
        installed = {"site-packages", "dist-packages"} & set(found.parts)
        elsewhere = installed or any(found.is_relative_to(entry) for entry in others)
        if found.is_relative_to(root) and not elsewhere:
            del sys.modules[name]


@contextmanager
def source_lines(code: Code) -> Iterator[None]:
    """A notebook's joined code as the lines of its path (for ``inspect.getsource``, which
    DALI's conditionals and the policy import read): linecache would read the .ipynb JSON."""
    if not code.is_notebook:
        yield
        return
    key = str(code.path)
    saved = linecache.cache.get(key)
    lines = code.text.splitlines(keepends=True)
    # mtime None: linecache.checkcache keeps the entry rather than reading the file again
    linecache.cache[key] = (len(code.text), None, lines, key)
    try:
        yield
    finally:
        if saved is None:
            linecache.cache.pop(key, None)
        else:
            linecache.cache[key] = saved
