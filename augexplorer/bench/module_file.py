"""A generated module loaded from a file, as a training script imports it: DALI reads the source
of a pipeline with conditionals (``if`` on a coin flip) to convert it, which code run from a
string does not have."""

from __future__ import annotations

import contextlib
import importlib.util
import sys
import tempfile
from collections.abc import Iterator
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


@contextlib.contextmanager
def module_from_source(name: str, source: str) -> Iterator[Any]:
    """`source` written to a file of its own in a temporary folder and loaded as `name`, for
    the block: DALI reads a pipeline's source when it builds it, so build inside. The folder and
    the module's registration go when the block ends."""
    with tempfile.TemporaryDirectory(prefix="augexplorer-") as folder:
        path = Path(folder) / f"{name}.py"
        path.write_text(source, encoding="utf-8")
        try:
            yield load_module(name, path)
        finally:
            sys.modules.pop(name, None)
