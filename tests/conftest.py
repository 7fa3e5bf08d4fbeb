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


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
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
