"""The file an export writes must be a module a training script can import.

``my aug.py``, ``1st.py``, ``class.py`` or ``out.txt`` would be written without complaint and
then fail at ``import``; ``random.py`` or ``torch.py`` would import, and hide the standard
library's or PyTorch's module from every script in the folder. Each is refused before anything
is written, with a name that works.
"""

from __future__ import annotations

import keyword
import re
import sys
from pathlib import Path

# what the exported module and a training script beside it import
IMPORTED_PACKAGES = frozenset({"nvidia", "torch", "numpy", "augexplorer"})


def module_name_problem(path: Path) -> str | None:
    """Why a training script could not import `path` as a module (None when it can)."""
    stem, suffix = path.stem, path.suffix
    if suffix != ".py":
        return f"{path.name} is not a Python module: a training script imports a .py file"
    if not stem.isidentifier():
        return (
            f"{path.name} cannot be imported (`import {stem}` is not Python): a module name "
            "takes letters, digits and underscores, and does not start with a digit"
        )
    if keyword.iskeyword(stem):
        return f"{path.name} cannot be imported: `{stem}` is a Python keyword"
    if stem in sys.stdlib_module_names or stem in IMPORTED_PACKAGES:
        whose = "Python's own" if stem in sys.stdlib_module_names else "the installed"
        return (
            f"{path.name} would hide {whose} `{stem}` module from every script in its folder "
            f"(`import {stem}` would find this file)"
        )
    return None


def importable_path(path: Path) -> Path:
    """`path` with a file name that :func:`module_name_problem` accepts, close to the one given."""
    stem = path.stem if path.suffix in (".py", ".txt", "") else path.name
    stem = re.sub(r"\W+", "_", stem).strip("_") or "augmentation"
    if stem[0].isdigit():
        stem = f"aug_{stem}"
    candidate = path.with_name(f"{stem}.py")
    if module_name_problem(candidate) is not None:
        candidate = path.with_name(f"{stem}_aug.py")
    return candidate
