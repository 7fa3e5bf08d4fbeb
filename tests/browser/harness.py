"""Start JupyterLab or Voila isolated (temporary config/data/runtime/settings dirs, a token, no
news pop-up, no autosave) and drive a notebook in headless Chromium. Shared by the browser tests
and the browser benchmark."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from playwright.sync_api import Page

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = os.environ.get("AUGEXPLORER_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]
TOKEN = "augexplorer-browser-tests"


@dataclass
class Server:
    url: str
    root: Path
    process: subprocess.Popen[bytes]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def isolated_env(base: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("MPLBACKEND", None)  # kernels would inherit it and inline figures turn into text
    for name in ("JUPYTER_CONFIG_DIR", "JUPYTER_RUNTIME_DIR", "JUPYTER_DATA_DIR", "IPYTHONDIR"):
        path = base / name.lower()
        path.mkdir(parents=True, exist_ok=True)
        env[name] = str(path)
    settings = base / "lab-settings"
    for plugin, values in {
        "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {
            "fetchNews": "false",
            "checkForUpdates": False,
        },
        "@jupyterlab/docmanager-extension/plugin.jupyterlab-settings": {"autosave": False},
    }.items():
        target = settings / plugin
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(values))
    env["JUPYTERLAB_SETTINGS_DIR"] = str(settings)
    env["JUPYTER_PLATFORM_DIRS"] = "1"
    # The venv's own share/jupyter (lab extensions, widget manager) stays on the data path.
    env["JUPYTER_PATH"] = str(Path(sys.prefix) / "share" / "jupyter")
    return env


def wait_http(url: str, process: subprocess.Popen[bytes], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server exited with {process.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except Exception:
            time.sleep(0.25)
    raise RuntimeError(f"{url} did not answer within {timeout} s")


def _wait_port(port: int, process: subprocess.Popen[bytes], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server exited with {process.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.25)
    raise RuntimeError(f"port {port} did not open within {timeout} s")


def _start(
    command: list[str], base: Path, root: Path, url: str | None, log: str, port: int = 0
) -> subprocess.Popen[bytes]:
    handle = (base / log).open("wb")
    process = subprocess.Popen(
        command, cwd=root, env=isolated_env(base), stdout=handle, stderr=subprocess.STDOUT
    )
    try:
        if url is not None:
            wait_http(url, process)
        else:
            _wait_port(port, process)
    except Exception:
        process.terminate()
        raise RuntimeError(
            f"{command[1]} failed to start; log:\n{(base / log).read_text()[-3000:]}"
        ) from None
    return process


def stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()


def start_lab(base: Path, root: Path) -> Server:
    port = free_port()
    command = [
        sys.executable,
        "-m",
        "jupyterlab",
        "--no-browser",
        f"--port={port}",
        "--ip=127.0.0.1",
        f"--ServerApp.root_dir={root}",
        f"--IdentityProvider.token={TOKEN}",
        f"--LabApp.workspaces_dir={base / 'workspaces'}",
        "--LabApp.expose_app_in_browser=True",
        # The same server serves Notebook 7 (/tree, /notebooks/...) when `notebook` is installed.
        "--JupyterNotebookApp.expose_app_in_browser=True",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        "--LabApp.extension_manager=readonly",
    ]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        command.append("--allow-root")
    url = f"http://127.0.0.1:{port}"
    return Server(
        url, root, _start(command, base, root, f"{url}/api/status?token={TOKEN}", "lab.log")
    )


def start_voila(base: Path, root: Path, notebook: str) -> Server:
    port = free_port()
    command = [
        sys.executable,
        "-m",
        "voila",
        notebook,
        "--no-browser",
        f"--port={port}",
        "--Voila.ip=127.0.0.1",
    ]
    url = f"http://127.0.0.1:{port}"
    return Server(url, root, _start(command, base, root, None, "voila.log", port=port))


def plant_edited_autosaves(root: Path, notebook: str) -> list[Path]:
    """An edited graph autosaved where a panel could look for one: the folder's shared autosave
    (a kernel that knows no notebook) and JupyterLab's autosave of `notebook`. A panel that
    must not offer them (Voila's) is then tested against graphs that are there."""
    from augexplorer_widgets.autosave import Autosave
    from augexplorer_widgets.autosave_key import SHARED, autosave_path

    from augexplorer import preset

    edited = preset("basic").set_arg("rotate", "fill_value", 77.0)
    lab_file = autosave_path(True, env={"JPY_SESSION_NAME": str(root / notebook)})
    assert lab_file is not None
    planted = [root / SHARED, root / lab_file]
    for path in planted:
        Autosave(path).save(edited)
    return planted


def copy_notebooks(root: Path, names: tuple[str, ...] = ("01_quickstart.ipynb",)) -> None:
    for name in names:
        shutil.copy(ROOT / "notebooks" / name, root / name)


def open_notebook(page: Page, lab: Server, name: str) -> None:
    """Open a notebook in lab and wait until the app started and its kernel is idle."""
    page.goto(f"{lab.url}/lab/tree/{name}?token={TOKEN}")
    page.wait_for_function("() => window.jupyterapp !== undefined", timeout=60_000)
    page.evaluate("async () => { await window.jupyterapp.started; }")
    page.locator("#jp-main-statusbar >> text=Idle").first.wait_for(timeout=60_000)


def write_panel_notebook(root: Path, folder: str, name: str, code: str) -> str:
    """A one-cell notebook running `code` (which ends by showing a panel) in `root`/`folder`,
    named `name`.ipynb; returns its path relative to `root`. A folder of its own per test module:
    other modules' kernels run other notebooks."""
    import nbformat

    notebook = nbformat.v4.new_notebook()
    notebook.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    notebook.cells = [nbformat.v4.new_code_cell(code)]
    (root / folder).mkdir(parents=True, exist_ok=True)
    nbformat.write(notebook, root / folder / f"{name}.ipynb")
    return f"{folder}/{name}.ipynb"


def open_panel(page: Page, lab: Server, workspace: str, path: str, ready: str) -> None:
    """Open notebook `path` in a JupyterLab workspace of its own (the default one would reopen
    it beside the next module's), run it, and wait until `ready` (a CSS selector) shows."""
    page.goto(f"{lab.url}/lab/workspaces/{workspace}/tree/{path}?token={TOKEN}")
    page.wait_for_function("() => window.jupyterapp !== undefined", timeout=60_000)
    page.evaluate("async () => { await window.jupyterapp.started; }")
    page.locator("#jp-main-statusbar >> text=Idle").first.wait_for(timeout=60_000)
    run_all(page)
    page.locator(ready).first.wait_for(timeout=90_000)


def page_fixture(
    open_page: Callable[[Page, Server], None],
    *,
    viewport: tuple[int, int] = (1600, 1000),
    server: str = "lab",
    permissions: Sequence[str] = (),
    close: Callable[[Page], None] | None = None,
) -> Any:
    """A module's `page` fixture (`page = page_fixture(...)` in the module): a browser context
    of the module's own at `viewport` (with clipboard `permissions` granted for the server's
    origin), one page in it opened by `open_page(page, server)`, where `server` names the
    session's server fixture (`lab` or `voila`); `close(page)` runs before the context closes."""
    import pytest

    @pytest.fixture(scope="module", name="page")
    def page(browser: Any, request: pytest.FixtureRequest) -> Iterator[Page]:
        served: Server = request.getfixturevalue(server)
        width, height = viewport
        context = browser.new_context(viewport={"width": width, "height": height})
        if permissions:
            context.grant_permissions(list(permissions), origin=served.url)
        opened = context.new_page()
        open_page(opened, served)
        yield opened
        if close is not None:
            close(opened)
        context.close()

    return page


def panel_page(
    folder: str,
    name: str,
    code: str,
    ready: str,
    *,
    workspace: str | None = None,
    prepare: Callable[[Path], None] | None = None,
    then: Callable[[Page], None] | None = None,
    viewport: tuple[int, int] = (1600, 1000),
    permissions: Sequence[str] = (),
    close: Callable[[Page], None] | None = None,
) -> Any:
    """A module's `page` fixture showing a panel: `prepare(lab.root)` (files the notebook
    reads), a one-cell notebook running `code` (write_panel_notebook), opened and run in
    JupyterLab workspace `workspace` (`name` by default) until `ready` shows (open_panel),
    then `then(page)` (a module's further waits). The rest as page_fixture."""

    def open_page(page: Page, lab: Server) -> None:
        if prepare is not None:
            prepare(lab.root)
        path = write_panel_notebook(lab.root, folder, name, code)
        open_panel(page, lab, workspace or name, path, ready)
        if then is not None:
            then(page)

    return page_fixture(open_page, viewport=viewport, permissions=permissions, close=close)


def quickstart_page(ready: str, *, viewport: tuple[int, int] = (1600, 1000)) -> Any:
    """A module's `page` fixture: the quickstart notebook at the lab's root opened in the
    default workspace and run until `ready` (a CSS selector) shows."""

    def open_page(page: Page, lab: Server) -> None:
        open_notebook(page, lab, "01_quickstart.ipynb")
        run_all(page)
        page.locator(ready).first.wait_for(timeout=90_000)

    return page_fixture(open_page, viewport=viewport)


def set_theme(page: Page, theme: str, light: bool) -> None:
    """Switch JupyterLab to `theme` (its own command) and wait until its stylesheet applies."""
    page.evaluate(
        "(theme) => window.jupyterapp.commands.execute('apputils:change-theme', { theme })",
        theme,
    )
    page.wait_for_function(
        "(light) => document.body.dataset.jpThemeLight === String(light)",
        arg=light,
        timeout=30_000,
    )
    page.wait_for_timeout(500)  # the theme's stylesheet applies


def open_in_notebook7(page: Page, server: Server, path: str) -> None:
    """Open a notebook in Notebook 7's single-document page and wait for an idle kernel."""
    page.goto(f"{server.url}/notebooks/{path}?token={TOKEN}")
    page.wait_for_function("() => window.jupyterapp !== undefined", timeout=60_000)
    page.evaluate("async () => { await window.jupyterapp.started; }")
    page.wait_for_function(
        "() => window.jupyterapp.shell.currentWidget?.sessionContext !== undefined",
        timeout=60_000,
    )
    page.evaluate(
        "async () => { const panel = window.jupyterapp.shell.currentWidget;"
        " await panel.context.ready; await panel.sessionContext.ready; }"
    )
    page.wait_for_function(
        "() => window.jupyterapp.shell.currentWidget.sessionContext.session?.kernel?.status"
        " === 'idle'",
        timeout=60_000,
    )


def run_all(page: Page) -> None:
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")


KERNEL_EVAL = """
async (code) => {
  const panel = window.jupyterapp.shell.currentWidget;
  const kernel = panel.sessionContext.session.kernel;
  const future = kernel.requestExecute({ code, silent: false, store_history: false });
  let out = "";
  future.onIOPub = (msg) => {
    if (msg.header.msg_type === "stream") out += msg.content.text;
    if (msg.header.msg_type === "error") out += "ERROR " + msg.content.evalue;
  };
  await future.done;
  return out;
}
"""


def kernel_eval(page: Page, code: str) -> str:
    """Run `code` in the open notebook's kernel and return what it printed."""
    return str(page.evaluate(KERNEL_EVAL, code))


def grid_src(page: Page) -> str:
    """The name of the first tile's picture on screen (a hash of its bytes, tile_pictures.py): it
    changes with the picture's pixels."""
    return str(page.locator(".ax-explorer canvas.ax-grid").first.get_attribute("data-key") or "")
