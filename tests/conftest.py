"""Shared fixtures. Every test runs real DALI (on the CPU where there is no GPU)."""

from __future__ import annotations

import pytest

from augexplorer.catalog import load_catalog
from augexplorer.devices import has_gpu


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
