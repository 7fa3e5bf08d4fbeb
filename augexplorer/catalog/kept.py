"""The catalog kept on disk between processes, under ``$XDG_CACHE_HOME/augexplorer/catalog``.

Reading every operator's schema from DALI (about 950 arguments) and importing its auto_aug
policies takes 50-250 ms on a busy 2-core machine, in every new process, before the first grid
of a session; a kept copy loads in about 10 ms. The copy is named by everything the catalog is
made from, so a change to any of it makes a new one: DALI's version, the operators it has
registered (a plugin loaded adds some), whether it is made for a GPU, the Python version (the
copy is a pickle), and the sources it is made from (the catalog package's hints and reading
of schemas, and the spec package, whose table of distributions it reads). The copy is the user's own file in their own cache, trusted as the rest of it is; one that
cannot be read is made anew, and one that cannot be written is simply not kept.
"""

from __future__ import annotations

import hashlib
import importlib
import os
import pickle
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..files import atomic_write_bytes

if TYPE_CHECKING:
    from . import Catalog

FORMAT = 1  # bumped when the kept form changes in a way the sources' hash would not show
# what the catalog is made from: its own package, the spec's table of distributions, and the
# policy functions of augexplorer's own (their signatures and docstrings)
_SOURCES = (Path(__file__).parent, Path(__file__).parent.parent / "spec")
_FILES = (Path(__file__).parent.parent / "auto_aug_torchvision.py",)


def kept_path(gpu: bool) -> Path:
    """Where the catalog made from what is installed now is kept."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    kind = "gpu" if gpu else "cpu"
    return Path(base) / "augexplorer" / "catalog" / f"catalog-{kind}-{_key(gpu)}.pickle"


def _key(gpu: bool) -> str:
    backend: Any = importlib.import_module("nvidia.dali.backend")
    dali: Any = importlib.import_module("nvidia.dali")
    registry: Any = importlib.import_module("nvidia.dali.ops._registry")  # python-side ops
    digest = hashlib.sha256()
    parts = [
        f"format {FORMAT}",
        f"python {sys.version_info[:3]}",
        f"dali {getattr(dali, '__version__', '?')}",
        f"gpu {gpu}",
        *sorted(f"cpu {name}" for name in backend.RegisteredCPUOps()),
        *sorted(f"gpu {name}" for name in backend.RegisteredGPUOps()),
        *sorted(f"mixed {name}" for name in backend.RegisteredMixedOps()),
        *sorted(f"python cpu {name}" for name in registry.cpu_ops()),
        *sorted(f"python gpu {name}" for name in registry.gpu_ops()),
    ]
    digest.update("\n".join(parts).encode())
    for folder in _SOURCES:
        for source in sorted(folder.glob("*.py")):
            digest.update(f"{folder.name}/{source.name}".encode() + b"\0" + source.read_bytes())
    for source in _FILES:
        digest.update(source.name.encode() + b"\0" + source.read_bytes())
    return digest.hexdigest()[:24]


def load(path: Path) -> Catalog | None:
    """The catalog kept at `path`, or None where there is none or it cannot be read."""
    from . import Catalog

    try:
        found = pickle.loads(path.read_bytes())
    except Exception:  # missing, cut short, or made by code since changed: made anew
        return None
    return found if isinstance(found, Catalog) else None


def keep(path: Path, catalog: Catalog) -> None:
    """Keep `catalog` at `path` (whole or not at all); quietly not where it cannot be written.
    Older copies of the same kind (GPU or not) beside it are removed: they were made from what
    is no longer installed."""
    data = pickle.dumps(catalog, protocol=pickle.HIGHEST_PROTOCOL)
    try:
        atomic_write_bytes(path, data, overwrite=True)
    except OSError:
        return
    kind = path.name.split("-")[1]
    for older in path.parent.glob(f"catalog-{kind}-*.pickle"):
        if older != path:
            older.unlink(missing_ok=True)
