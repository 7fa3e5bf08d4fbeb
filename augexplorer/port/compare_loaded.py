"""Compare for a file that loads its albumentations pipeline from albumentations' saved form
(``train_tf = A.load("aug.yaml")``, ``A.from_dict(json.load(f))``), which writes no Compose:
its port is the saved file's, as ``augexplorer import`` makes it, and the original is the
file run from its folder (where the port found the saved file), its pipeline taken by the
name the file assigns it."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .albumentations.loaded import loaded_pipelines
from .door import loaded_chosen, port_file
from .model import PortResult


def loaded_compare(
    path: Path, source: str, pipeline: str | None, params: Mapping[str, Any] | None
) -> tuple[PortResult, dict[str, Any]] | None:
    """(the port, the original side's pipeline job) for a file that loads a saved pipeline;
    None for a file that loads none. A saved file that is not there is refused as its port
    refuses it (the line and the fix)."""
    if not loaded_pipelines(source):
        return None
    one = loaded_chosen(path, source, pipeline)
    result = port_file(path, pipeline=one.target, params=params)
    job = {
        "source": source,
        "where": str(path),
        "pipeline": one.target,
        "params": dict(params or {}),
        "builder": None,
        "in_folder": True,
    }
    return result, job


__all__ = ["loaded_compare"]
