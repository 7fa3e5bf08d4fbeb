"""Loading a Python file of DALI pipelines as a module and running a pipeline once: shared by the
import tests."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import numpy as np


def load_module(path: Path) -> Any:
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run_once(pipe: Any) -> list[list[np.ndarray]]:
    """Every output of one batch, sample by sample, as host arrays."""
    pipe.build()
    return [[np.array(batch.at(i)) for i in range(len(batch))] for batch in pipe.run()]
