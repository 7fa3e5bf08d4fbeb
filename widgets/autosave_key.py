"""Which file a panel autosaves to: one per notebook, so another notebook (or a Voila app) is
never offered a graph that was autosaved somewhere else.

Jupyter tells the kernel which notebook it runs: the server sets ``JPY_SESSION_NAME`` (ipykernel
copies it into ``__session__``), VS Code sets ``__vsc_ipynb_file__``. Voila sets its ``VOILA_*``
variables instead, and its apps get their own autosaves. Where none is known (a script, a
notebook executed by nbclient) the folder's shared autosave is used.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

FOLDER = Path(".augexplorer")
SHARED = FOLDER / "autosave.json"


def autosave_path(
    choice: str | Path | bool | None,
    env: Mapping[str, str] | None = None,
    namespace: Mapping[str, Any] | None = None,
) -> Path | None:
    """Where to autosave. `choice`: True for this notebook's own file, False or None for no
    autosave, a name (``"my-experiment"``) for ``.augexplorer/autosave-my-experiment.json``, or
    a path (a Path, or text with a folder or a ``.json`` ending)."""
    if choice is None or choice is False:
        return None
    if isinstance(choice, Path):
        return choice
    if isinstance(choice, str):
        if "/" in choice or os.sep in choice or choice.endswith(".json"):
            return Path(choice)
        return FOLDER / f"autosave-{_slug(choice)}.json"
    owner = notebook_owner(os.environ if env is None else env, namespace)
    if owner is None:
        return SHARED
    label, identity = owner
    digest = hashlib.sha256(identity.encode("utf-8", "surrogatepass")).hexdigest()[:10]
    return FOLDER / f"autosave-{_slug(label)}-{digest}.json"


def notebook_owner(
    env: Mapping[str, str], namespace: Mapping[str, Any] | None = None
) -> tuple[str, str] | None:
    """(a readable label, a unique identity) of the notebook or app this kernel runs, if known."""
    voila = env.get("VOILA_REQUEST_URL") or env.get("VOILA_BASE_URL")
    if voila is not None or "VOILA_KERNEL_ID" in env:
        # The page's path, not its host or port: the same app reloaded is the same app.
        page = urlsplit(voila or "").path.rstrip("/")
        app = page.rsplit("/", 1)[-1] if page.endswith(".ipynb") else ""
        return f"voila-{Path(app).stem or 'app'}", f"voila:{page}"
    if namespace is None:
        namespace = _kernel_namespace()
    for found in (
        env.get("JPY_SESSION_NAME"),
        namespace.get("__session__"),
        namespace.get("__vsc_ipynb_file__"),
    ):
        if isinstance(found, str) and found.strip():
            return Path(found).stem or "notebook", str(Path(found).expanduser().absolute())
    return None


def _kernel_namespace() -> Mapping[str, Any]:
    try:
        from IPython import get_ipython
    except ImportError:
        return {}
    shell = get_ipython()
    return shell.user_ns if shell is not None else {}


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("._")[:60] or "graph"
