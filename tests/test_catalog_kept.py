"""The catalog kept on disk (:mod:`augexplorer.catalog.kept`): made from DALI's schemas once,
then loaded whole from the copy; a damaged copy or an unwritable cache makes it anew."""

from __future__ import annotations

from pathlib import Path

import pytest

from augexplorer.catalog import Catalog, kept, load_catalog
from augexplorer.catalog import schema as schema_module

made_anew = load_catalog.__wrapped__  # past the per-process memo: what a new process does


@pytest.fixture
def cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache"


def same(one: Catalog, other: Catalog) -> None:
    assert one.names() == other.names() and one.gpu == other.gpu
    assert [op.args for op in one] == [op.args for op in other]  # hints included
    assert [op.unavailable_reason for op in one] == [op.unavailable_reason for op in other]


def test_a_second_process_loads_the_kept_copy_without_reading_schemas(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = made_anew(gpu=False)
    path = kept.kept_path(False)
    assert path.is_file() and path.is_relative_to(cache)

    def no_schemas() -> None:
        raise AssertionError("schemas read though a kept copy is there")

    monkeypatch.setattr(schema_module, "read_schemas", no_schemas)
    same(made_anew(gpu=False), first)


def test_the_gpu_and_cpu_catalogs_are_kept_apart(cache: Path) -> None:
    cpu, gpu = made_anew(gpu=False), made_anew(gpu=True)
    assert kept.kept_path(False) != kept.kept_path(True)
    assert kept.kept_path(False).is_file() and kept.kept_path(True).is_file()
    assert not any(op.unavailable_reason for op in gpu)
    assert any(op.unavailable_reason for op in cpu)  # GPU-only operators marked so
    same(made_anew(gpu=False), cpu)
    same(made_anew(gpu=True), gpu)


def test_a_damaged_copy_is_made_anew(cache: Path) -> None:
    first = made_anew(gpu=False)
    path = kept.kept_path(False)
    path.write_bytes(path.read_bytes()[:100])  # cut short
    assert kept.load(path) is None
    same(made_anew(gpu=False), first)
    assert kept.load(path) is not None  # and kept again


def test_a_cache_that_cannot_be_written_still_gives_the_catalog(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    blocker = tmp_path / "a_file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    catalog = made_anew(gpu=False)
    assert "rotate" in catalog and not kept.kept_path(False).exists()


@pytest.mark.parametrize("edited", ["catalog/hints.py", "spec/graph.py"])
def test_a_change_to_the_catalog_sources_names_a_new_copy(
    cache: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, edited: str
) -> None:
    before = kept.kept_path(False)
    copies = []
    for folder in kept._SOURCES:
        copy = tmp_path / folder.name
        copy.mkdir()
        for source in folder.glob("*.py"):
            (copy / source.name).write_bytes(source.read_bytes())
        copies.append(copy)
    monkeypatch.setattr(kept, "_SOURCES", tuple(copies))
    assert kept.kept_path(False) == before  # the same sources: the same copy
    changed = tmp_path / edited
    changed.write_text(changed.read_text() + "\n# edited\n")
    assert kept.kept_path(False) != before
