"""``make lab``: JupyterLab on a notebook, wherever the user is.

As root (NGC and most GPU containers) JupyterLab refuses to start without ``--allow-root``; on a
machine with no display (a remote server, a container) it cannot open a browser, so it is told
not to try and the URL to open is said up front. Any further arguments go to JupyterLab as they
are: ``python -m augexplorer_widgets.lab notebooks/01_quickstart.ipynb --port 8899``.

With ``--working-copy`` (as ``make lab`` runs it) the notebook's folder is copied into the ignored
``.augexplorer/`` and the copy is opened, so JupyterLab's autosave never writes into tracked
notebooks (see working_copy.py).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path, PurePath
from urllib.parse import quote

from augexplorer_widgets.working_copy import working_copy_of

WORKING_COPY = "--working-copy"


def running_as_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


def has_display(env: Mapping[str, str], platform: str = sys.platform) -> bool:
    """Whether a browser opened here would be seen by the user."""
    if env.get("DISPLAY") or env.get("WAYLAND_DISPLAY"):
        return True
    if env.get("SSH_CONNECTION") or env.get("SSH_TTY"):
        return False  # logged in from elsewhere: a browser here is on the wrong screen
    return platform in ("darwin", "win32")


def lab_command(
    args: Sequence[str], *, root: bool, display: bool, python: str = sys.executable
) -> list[str]:
    """The JupyterLab command line for `args` on this machine."""
    command = [python, "-m", "jupyterlab"]
    if root and not _given(args, "--allow-root", "--ServerApp.allow_root"):
        command.append("--allow-root")
    if not display and not _given(args, "--no-browser", "--ServerApp.open_browser"):
        command.append("--no-browser")
        notebook = _notebook(args)
        if notebook is not None and not _given(args, "--LabApp.default_url"):
            # The URL JupyterLab prints is its default one: make it the notebook's, as the
            # browser it would open on a desktop shows it (it serves the notebook's folder).
            command.append(f"--LabApp.default_url=/lab/tree/{quote(notebook.name)}")
    return [*command, *args]


def _given(args: Sequence[str], *options: str) -> bool:
    return any(a.startswith(options) for a in args)


def _notebook(args: Sequence[str]) -> PurePath | None:
    """The notebook `args` open, unless a root folder is given (its path is then relative to
    that folder, which JupyterLab alone resolves)."""
    if _given(args, "--ServerApp.root_dir", "--notebook-dir", "--root-dir"):
        return None
    files = [a for a in args if not a.startswith("-") and a.endswith(".ipynb")]
    return PurePath(files[0]) if len(files) == 1 else None


HEADLESS_NOTE = (
    "augexplorer: no display here, so JupyterLab opens no browser. Open the URL with the token "
    "that it prints below. From another machine, forward the port first "
    "(ssh -L 8888:localhost:8888 <this host>); in a container, publish the port and add "
    "LAB_ARGS=--ip=0.0.0.0."
)


def open_working_copy(args: Sequence[str], base: Path | None = None) -> list[str]:
    """`args` with the notebook they open replaced by its working copy (see working_copy.py)."""
    notebook = _notebook(args)
    if notebook is None:
        raise SystemExit(f"augexplorer: {WORKING_COPY} needs exactly one notebook to open: {args}")
    copy, notes = working_copy_of(Path(notebook), Path.cwd() if base is None else base)
    for note in notes:
        print(note, flush=True)
    print(f"augexplorer: opening the working copy {copy} (the tracked one stays as it is).")
    return [str(copy) if PurePath(a) == notebook else a for a in args]


def main(argv: Sequence[str] | None = None) -> None:
    args = list(sys.argv[1:] if argv is None else argv)
    if WORKING_COPY in args:
        args = open_working_copy([a for a in args if a != WORKING_COPY])
    env = os.environ
    display = has_display(env)
    command = lab_command(args, root=running_as_root(), display=display)
    if not display:
        print(HEADLESS_NOTE, flush=True)
    os.execv(command[0], command)


if __name__ == "__main__":
    main()
