"""`make lab` starts JupyterLab as root and as a user, with or without a display: the command
line here; the real `make lab`, opened in a browser, in tests/browser/test_make_lab.py."""

from __future__ import annotations

import pytest
from augexplorer_widgets.lab import has_display, lab_command

QUICKSTART = "notebooks/01_quickstart.ipynb"


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
    # headless, the URL printed is the notebook's (JupyterLab serves the notebook's folder)
    opens = "--LabApp.default_url=/lab/tree/01_quickstart.ipynb"
    assert headless_root == [
        "py",
        "-m",
        "jupyterlab",
        "--allow-root",
        "--no-browser",
        opens,
        QUICKSTART,
    ]
    rooted = lab_command([QUICKSTART, "--ServerApp.root_dir=."], root=False, display=False)
    assert not any(a.startswith("--LabApp.default_url") for a in rooted)  # not ours to work out
    given = lab_command(["--allow-root", "--no-browser"], root=True, display=False, python="py")
    assert given.count("--allow-root") == 1 and given.count("--no-browser") == 1
