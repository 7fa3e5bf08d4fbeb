"""A generated module loaded from a file, as a training script imports it: DALI reads the source
of a pipeline with conditionals (``if`` on a coin flip) to convert it, which code run from a
string does not have."""

from __future__ import annotations

import importlib.util
import sys
import tempfile
from pathlib import Path
from typing import Any


def load_module(name: str, path: Path) -> Any:
    """The module in `path`, registered as `name` (DALI finds a pipeline's source through its
    module); nothing is left registered if it fails."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None  # a .py file always has both
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def module_from_source(name: str, source: str) -> Any:
    """`source` written to a file of its own in a new temporary folder (left for the process:
    DALI may read the source again when it builds) and loaded as `name`."""
    path = Path(tempfile.mkdtemp(prefix="augexplorer-")) / f"{name}.py"
    path.write_text(source, encoding="utf-8")
    return load_module(name, path)
