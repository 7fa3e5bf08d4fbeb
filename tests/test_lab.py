"""`make lab` starts JupyterLab as root and as a user, with or without a display."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest
from augexplorer_widgets.lab import HEADLESS_NOTE, has_display, lab_command
from browser.harness import ROOT, TOKEN, free_port, isolated_env, wait_http

QUICKSTART = "notebooks/01_quickstart.ipynb"
SERVED_AS = "01_quickstart.ipynb"  # JupyterLab serves the folder of the notebook it opens


@pytest.mark.parametrize(
    ("env", "platform", "expected"),
    [
        ({"DISPLAY": ":0"}, "linux", True),
        ({"WAYLAND_DISPLAY": "wayland-0"}, "linux", True),
        ({}, "linux", False),  # a server or a container
        ({"SSH_CONNECTION": "10.0.0.2 51000 10.0.0.3 22"}, "darwin", False),
        ({"SSH_CONNECTION": "1 2 3 4", "DISPLAY": "localhost:10.0"}, "linux", True),  # ssh -X
        ({}, "darwin", True),
        ({}, "win32", True),
    ],
)
def test_a_display_is_recognised(env: dict[str, str], platform: str, expected: bool) -> None:
    assert has_display(env, platform) is expected


def test_the_command_line_adds_only_what_this_machine_needs() -> None:
    plain = lab_command([QUICKSTART], root=False, display=True, python="py")
    assert plain == ["py", "-m", "jupyterlab", QUICKSTART]
    headless_root = lab_command([QUICKSTART], root=True, display=False, python="py")
    assert headless_root == ["py", "-m", "jupyterlab", "--allow-root", "--no-browser", QUICKSTART]
    given = lab_command(["--allow-root", "--no-browser"], root=True, display=False, python="py")
    assert given.count("--allow-root") == 1 and given.count("--no-browser") == 1


@pytest.mark.slow
def test_make_lab_serves_the_quickstart_headless(tmp_path: Path) -> None:
    """`make lab` with no display (as root here when the tests run as root): the server answers
    and serves the quickstart notebook to a client holding the token."""
    port = free_port()
    env = isolated_env(tmp_path)
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "SSH_CONNECTION", "SSH_TTY", "BROWSER"):
        env.pop(name, None)
    env["PY"] = sys.executable  # the interpreter running the tests, wherever its venv is
    lab_args = (
        f"--port={port} --ServerApp.port_retries=0 --ip=127.0.0.1 "
        f"--IdentityProvider.token={TOKEN} --LabApp.workspaces_dir={tmp_path / 'workspaces'}"
    )
    log = (tmp_path / "lab.log").open("wb")
    # `-o install`: the environment is already installed; run the lab target's own recipe.
    server = subprocess.Popen(
        ["make", "-s", "-o", "install", "lab", f"PY={sys.executable}", f"LAB_ARGS={lab_args}"],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_http(f"{url}/api/status?token={TOKEN}", server)
        with urllib.request.urlopen(f"{url}/api/contents/{SERVED_AS}?token={TOKEN}") as reply:
            notebook = json.load(reply)
        assert notebook["type"] == "notebook" and notebook["path"] == SERVED_AS
        cells = notebook["content"]["cells"]
        assert any("Explorer(" in "".join(cell["source"]) for cell in cells)
        with urllib.request.urlopen(f"{url}/lab/tree/{SERVED_AS}?token={TOKEN}") as reply:
            assert reply.status == 200 and b"jupyter-config-data" in reply.read()
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)
        log.close()
    said = (tmp_path / "lab.log").read_text(errors="replace")
    assert HEADLESS_NOTE in said
    assert f"http://127.0.0.1:{port}/lab?token=" in said, "JupyterLab printed the URL to open"
