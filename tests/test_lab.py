"""`make lab` starts JupyterLab as root and as a user, with or without a display: the command
line here; the real `make lab`, opened in a browser, in tests/browser/test_make_lab.py."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from augexplorer_widgets.lab import has_display, lab_command, open_working_copy
from augexplorer_widgets.working_copy import refresh_working_copy

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


def _notebooks(folder: Path) -> Path:
    (folder / "images").mkdir(parents=True)
    (folder / "01_quickstart.ipynb").write_text('{"cells": []}')
    (folder / "images" / "panel.png").write_bytes(b"\x89PNG picture")
    return folder


def test_make_lab_opens_a_working_copy_and_leaves_the_tracked_notebook_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tracked = _notebooks(tmp_path / "notebooks")
    notebook = str(tracked / "01_quickstart.ipynb")
    args = open_working_copy([notebook, "--port=8899"], base=tmp_path)
    copy = tmp_path / ".augexplorer" / "notebooks" / "01_quickstart.ipynb"
    assert args == [str(copy), "--port=8899"]
    assert (copy.parent / "images" / "panel.png").read_bytes() == b"\x89PNG picture"
    assert "working copy" in capsys.readouterr().out

    copy.write_text('{"cells": [], "outputs": "a run"}')  # JupyterLab's autosave
    assert (tracked / "01_quickstart.ipynb").read_text() == '{"cells": []}'

    # the tracked notebook changes: the user's edited copy is kept, and they are told
    (tracked / "01_quickstart.ipynb").write_text('{"cells": ["new"]}')
    open_working_copy([notebook], base=tmp_path)
    assert copy.read_text() == '{"cells": [], "outputs": "a run"}'
    assert "kept your edited" in capsys.readouterr().out


def test_an_unedited_working_copy_follows_the_tracked_notebook(tmp_path: Path) -> None:
    tracked = _notebooks(tmp_path / "notebooks")
    copy = tmp_path / "copy"
    assert refresh_working_copy(tracked, copy) == []
    (tracked / "01_quickstart.ipynb").write_text('{"cells": ["new"]}')
    (tracked / "02_more.ipynb").write_text('{"cells": ["two"]}')
    assert refresh_working_copy(tracked, copy) == []
    assert (copy / "01_quickstart.ipynb").read_text() == '{"cells": ["new"]}'
    assert (copy / "02_more.ipynb").read_text() == '{"cells": ["two"]}'
    (copy / "images" / "panel.png").unlink()  # a deleted copy comes back
    refresh_working_copy(tracked, copy)
    assert (copy / "images" / "panel.png").exists()


def test_the_working_copy_folder_is_ignored_by_git() -> None:
    root = Path(__file__).resolve().parent.parent
    ignored = subprocess.run(
        ["git", "check-ignore", "-q", ".augexplorer/notebooks/01_quickstart.ipynb"], cwd=root
    )
    assert ignored.returncode == 0
