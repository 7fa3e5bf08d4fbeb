"""Shared fixtures. Every test runs real DALI (on the CPU where there is no GPU)."""

from __future__ import annotations

import faulthandler
import os
import signal
import sys
from typing import TextIO

import pytest

from augexplorer.catalog import load_catalog
from augexplorer.devices import has_gpu

_TERMINAL = pytest.StashKey[TextIO]()


def pytest_configure(config: pytest.Config) -> None:
    # The Makefile stops a suite that runs past its limit with SIGTERM: every thread's stack is
    # written first, even one stuck in C++ holding the GIL, where pytest-timeout cannot act.
    # A copy of the terminal's stderr: during a test, pytest points descriptor 2 at its capture.
    try:
        terminal = os.fdopen(os.dup(sys.stderr.fileno()), "w")
    except (AttributeError, OSError, ValueError):  # pytest.main() where stderr has no file
        return
    config.stash[_TERMINAL] = terminal  # open for as long as the handler may write to it
    faulthandler.register(signal.SIGTERM, file=terminal, all_threads=True, chain=True)


# The files whose tests take longest (`make unit`'s --durations): pytest-xdist hands out a file
# at a time in the order collected, so one of these handed out last keeps a worker busy alone
# while the other has finished; handed out first, the short files fill in around them. To
# refresh: `pytest -n 2 --dist loadfile --durations=0 tests`, sum the seconds per file, and list
# those over ~40 s, slowest first (a file missing here only runs in its place by test count).
HEAVY_FILES_FIRST = (
    "test_spec_fuzz.py",
    "test_arg_probe.py",
    "test_export_safety.py",
    "test_import_corpus.py",
    "test_export_torchvision.py",
    "test_port_photometric_distort.py",
    "test_auto_aug.py",
    "test_export.py",
    "test_bench.py",
    "test_insertion.py",
    "test_export_schedules.py",
    "test_port_torchvision.py",
)


def _heavy_first(items: list[pytest.Item]) -> None:
    """Heavy files first, then the rest with the most tests first (xdist's own order, which
    `make unit` turns off with --no-loadscope-reorder so this one holds)."""
    counts: dict[str, int] = {}
    for item in items:
        counts[str(item.path)] = counts.get(str(item.path), 0) + 1

    def rank(item: pytest.Item) -> tuple[int, int, str]:
        name = item.path.name
        if name in HEAVY_FILES_FIRST:
            return (HEAVY_FILES_FIRST.index(name), 0, "")
        return (len(HEAVY_FILES_FIRST), -counts[str(item.path)], str(item.path))

    items.sort(key=rank)  # stable: a file's tests keep their order


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    _heavy_first(items)
    if has_gpu():
        return
    skip = pytest.mark.skip(reason="needs a GPU that DALI can see")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def catalog():  # type: ignore[no-untyped-def]
    return load_catalog()


@pytest.fixture(scope="session")
def reference_python() -> str:
    """The python of the environment with the real torchvision and albumentations that ports
    are checked against (`make reference`). Under CI it must exist; elsewhere tests that need it
    skip, saying how to make it."""
    path = os.environ.get("AUGEXPLORER_REFERENCE_PYTHON", "")
    if path and os.access(path, os.X_OK):
        return path
    if os.environ.get("CI"):
        pytest.fail("the reference environment is missing: run `make reference` (make test does)")
    pytest.skip("no reference environment with real torchvision: `make reference` makes it")
