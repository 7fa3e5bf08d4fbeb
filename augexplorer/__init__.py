"""augexplorer: explore, tune, time and export NVIDIA DALI augmentation pipelines.

The engine (this package) imports no Jupyter or plotting package; the notebook panel lives in
``augexplorer_widgets`` and is loaded only when :class:`Explorer` is first used.
"""

from __future__ import annotations

from typing import Any

from .catalog import Catalog, load_catalog
from .engine import RunResult, Session
from .errors import AugExplorerError, DataError, GraphInvalid, Problem, RunError, SpecFormatError
from .plan import Plan
from .presets import PRESETS, preset
from .spec import GraphSpec, Node, Probability, PythonCode, Random, Ref, Source, chain
from .validate import validate

__version__ = "0.1.0"

__all__ = [
    "PRESETS",
    "AugExplorerError",
    "Catalog",
    "DataError",
    "Explorer",
    "GraphInvalid",
    "GraphSpec",
    "Node",
    "Plan",
    "Probability",
    "Problem",
    "PythonCode",
    "Random",
    "Ref",
    "RunError",
    "RunResult",
    "Session",
    "Source",
    "SpecFormatError",
    "chain",
    "load_catalog",
    "preset",
    "validate",
]


def __getattr__(name: str) -> Any:
    # The notebook panel is imported on first use so `import augexplorer` stays UI-free.
    if name == "Explorer":
        from augexplorer_widgets import Explorer

        return Explorer
    raise AttributeError(f"module 'augexplorer' has no attribute {name!r}")
