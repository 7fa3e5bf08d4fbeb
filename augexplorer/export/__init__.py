"""Export a graph as a plain Python training module, and import graphs back.

- :func:`generate` / :func:`export`: a graph -> a module with a ``@pipeline_def`` function, a
  PyTorch ``make_loader`` and the graph itself (``GRAPH``), needing only DALI and PyTorch.
- :func:`import_graph`: a module or pipeline -> an editable graph. A module exported by
  augexplorer is read without running it (its ``GRAPH`` literal), a spec (JSON) is read as a
  spec. Any other Python file can only be imported by **running** it, which happens only with
  ``run_file=True``.

Decoders are fused with the crop after them where that keeps the outputs identical
(``fuse_decoders="exact"``, the default; see :mod:`.fusion`).
"""

from __future__ import annotations

import warnings
from pathlib import Path

from ..checks.box_layouts import box_layout_warnings
from ..files import atomic_write_text
from ..spec import GraphSpec
from .annotations_note import AnnotationsLeftBehind, left_behind_message
from .codegen import ExportError, generate, node_source, pipeline_source
from .fusion import FUSE_MODES, FuseMode
from .importer import import_graph, import_pipeline
from .module_name import importable_path, module_name_problem
from .serialized import ImportRefused

__all__ = [
    "FUSE_MODES",
    "ExportError",
    "FuseMode",
    "ImportRefused",
    "export",
    "generate",
    "import_graph",
    "import_pipeline",
    "node_source",
    "pipeline_source",
]


def export(
    spec: GraphSpec,
    path: str | Path,
    *,
    overwrite: bool = False,
    data_path: str | None = None,
    fuse_decoders: FuseMode = "exact",
) -> Path:
    """Write the training module of `spec` to `path` (atomically; an existing file is replaced
    only with `overwrite`). `fuse_decoders` as in :func:`generate`. A file name a training
    script could not import (``my aug.py``, ``class.py``, ``random.py``) is refused first."""
    path = Path(path)
    problem = module_name_problem(path)
    if problem is not None:
        raise ExportError(f"{problem} (fix: name it {importable_path(path).name})")
    source = generate(spec, data_path=data_path, fuse_decoders=fuse_decoders)
    written = atomic_write_text(path, source, overwrite=overwrite)
    stale = left_behind_message(spec)
    if stale is not None:
        warnings.warn(AnnotationsLeftBehind(f"{written}: {stale}"), stacklevel=2)
    for misread in box_layout_warnings(spec):  # boxes off their objects, as left behind ones
        warnings.warn(AnnotationsLeftBehind(f"{written}: {misread}"), stacklevel=2)
    return written
