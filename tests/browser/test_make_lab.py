"""`make lab` as a person runs it on a remote or headless machine, as root (NGC and most GPU
containers) and as a normal user: the server starts, says which URL to open, and that URL opens
the quickstart notebook in a browser with its kernel running."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from augexplorer_widgets.lab import HEADLESS_NOTE

from .harness import ROOT, free_port, isolated_env, wait_http

pytestmark = pytest.mark.browser

NOBODY = 65534  # the unprivileged user every Linux has
AS_NOBODY = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]


def _users() -> list[str]:
    running_as_root = hasattr(os, "geteuid") and os.geteuid() == 0
    return ["root", "user"] if running_as_root else ["user"]


def _as_user(user: str) -> list[str]:
    """The command prefix that runs `make lab` as `user` ("user": not root)."""
    if user == "user" and os.geteuid() == 0:
        probe = subprocess.run(
            # through a shell, as make starts it: the interpreter's folders must be open to them
            [*AS_NOBODY, "sh", "-c", f"'{sys.executable}' -c 'import augexplorer_widgets'"],
            capture_output=True,
        )
        if probe.returncode != 0:
            pytest.skip("this environment's Python is in a folder an unprivileged user cannot open")
        return AS_NOBODY
    return []


@pytest.fixture(params=_users())
def served(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, str]]:
    """`make lab` with no display, as root or as a user: (the URL it said to open, its log)."""
    prefix = _as_user(request.param)
    tmp_path.chmod(0o777)  # the user's JupyterLab writes its runtime files here
    port = free_port()
    env = isolated_env(tmp_path)
    for path in tmp_path.iterdir():
        path.chmod(0o777)
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "SSH_CONNECTION", "SSH_TTY", "BROWSER"):
        env.pop(name, None)
    # a token of JupyterLab's own choosing: the URL it prints is the only way in
    lab_args = f"--port={port} --ServerApp.port_retries=0 --ip=127.0.0.1"
    log_path = tmp_path / "lab.log"
    log = log_path.open("wb")
    # `-o install`: the environment is installed already; this runs the lab target's recipe.
    server = subprocess.Popen(
        [
            *prefix,
            "make",
            "-s",
            "-o",
            "install",
            "lab",
            f"PY={sys.executable}",
            f"LAB_ARGS={lab_args}",
        ],
        cwd=ROOT,
        env={**env, "HOME": str(tmp_path)} if prefix else env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        wait_http(f"http://127.0.0.1:{port}/api", server)
        said, found = "", None
        deadline = time.monotonic() + 10  # the URL is printed as the server starts answering
        while found is None and time.monotonic() < deadline:
            time.sleep(0.1)
            said = log_path.read_text(errors="replace")
            found = re.search(rf"http://127\.0\.0\.1:{port}/lab\S*\?token=\w+", said)
        assert found is not None, f"JupyterLab printed no URL to open:\n{said[-2000:]}"
        yield found.group(0), said
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)
        log.close()


def test_make_lab_opens_the_quickstart_in_a_browser(served: tuple[str, str], browser: Any) -> None:
    url, said = served
    assert HEADLESS_NOTE in said  # no display here: told how to open it from elsewhere
    assert "Running as root is not recommended" not in said
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        page.goto(url)
        # `make lab` opens the quickstart: its tab, its cells, and a running kernel
        page.locator(".lm-TabBar-tab", has_text="01_quickstart.ipynb").first.wait_for(
            timeout=90_000
        )
        page.locator(".jp-Cell", has_text="Explorer(").first.wait_for(timeout=60_000)
        page.locator("#jp-main-statusbar >> text=Idle").first.wait_for(timeout=90_000)
    finally:
        context.close()


def test_make_lab_leaves_the_tracked_notebooks_alone(served: tuple[str, str], browser: Any) -> None:
    """JupyterLab saves a run's outputs and kernel name into the notebook it opened: `make lab`
    opens a working copy in an ignored folder, so the tracked notebooks stay as committed."""
    before = _tracked_notebooks()
    url, said = served
    assert "opening the working copy" in said
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        page.goto(url)
        page.locator("#jp-main-statusbar >> text=Idle").first.wait_for(timeout=90_000)
        page.locator(".jp-Cell", has_text="Explorer(").first.wait_for(timeout=60_000)
        page.keyboard.press("Control+s")  # as autosave would
        page.wait_for_timeout(2_000)
    finally:
        context.close()
    assert _tracked_notebooks() == before


def _tracked_notebooks() -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in (ROOT / "notebooks").glob("*.ipynb")}
