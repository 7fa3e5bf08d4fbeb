"""Files we write take the user's umask, as any other program's would: a training job that
reads an exported module often runs as another user."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from augexplorer import preset
from augexplorer.cli import main
from augexplorer.export import export
from augexplorer.files import atomic_write_text, current_umask
from augexplorer.spec import save


@pytest.fixture
def umask() -> Iterator[None]:
    before = os.umask(0o022)
    yield
    os.umask(before)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_exports_specs_and_grids_get_0644_under_umask_022(umask: None, tmp_path: Path) -> None:
    assert current_umask() == 0o022
    module = export(preset("basic"), tmp_path / "aug.py")
    spec = save(preset("basic"), tmp_path / "graph.json")
    grid = tmp_path / "grid.png"
    assert main(["render", "basic", "--batch-size", "2", "-o", str(grid)]) == 0
    assert [mode(p) for p in (module, spec, grid)] == [0o644] * 3
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")], "no temporary left"


def test_the_mode_follows_the_umask(umask: None, tmp_path: Path) -> None:
    os.umask(0o027)
    assert current_umask() == 0o027
    assert mode(atomic_write_text(tmp_path / "a.txt", "x")) == 0o640


def test_a_replaced_file_keeps_its_mode(umask: None, tmp_path: Path) -> None:
    path = atomic_write_text(tmp_path / "private.json", "{}")
    path.chmod(0o600)
    atomic_write_text(path, "{}\n", overwrite=True)
    assert mode(path) == 0o600 and path.read_text() == "{}\n"
