"""JupyterLab and Voila in headless Chromium, started once per session (see harness.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .harness import (
    ARTIFACTS,
    CHROMIUM,
    CHROMIUM_ARGS,
    Server,
    copy_notebooks,
    plant_edited_autosaves,
    start_lab,
    start_voila,
    stop,
)


@pytest.fixture(scope="session")
def work_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("notebooks")
    copy_notebooks(root)
    return root


@pytest.fixture(scope="session")
def lab(tmp_path_factory: pytest.TempPathFactory, work_root: Path) -> Iterator[Server]:
    server = start_lab(tmp_path_factory.mktemp("lab"), work_root)
    yield server
    stop(server.process)


@pytest.fixture(scope="session")
def voila(tmp_path_factory: pytest.TempPathFactory, work_root: Path) -> Iterator[Server]:
    plant_edited_autosaves(work_root, "01_quickstart.ipynb")
    server = start_voila(tmp_path_factory.mktemp("voila"), work_root, "01_quickstart.ipynb")
    yield server
    stop(server.process)


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        # Scrollbars as a desktop Chrome shows them: headless hides them by default, and then
        # a row that scrolls sideways by a few pixels looks the same as one that fits.
        chromium = p.chromium.launch(
            executable_path=CHROMIUM,
            args=CHROMIUM_ARGS,
            headless=True,
            ignore_default_args=["--hide-scrollbars"],
        )
        yield chromium
        chromium.close()


@pytest.fixture
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS
