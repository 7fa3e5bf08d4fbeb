"""Keep committed notebooks free of what running them leaves behind.

Running a notebook in JupyterLab and saving it (JupyterLab saves on its own every two minutes)
writes outputs, execution counts, the widgets' state and the kernel's `language_info` into the
file; committed, they go stale, bloat diffs and hide the edit that matters. `stray_content`
names what is there; `strip` removes it, nbstripout-style, and keeps everything a reader or
jupytext needs (sources, kernelspec, jupytext's own metadata).

``python -m augexplorer_widgets.notebook_clean notebooks/*.ipynb`` strips files in place;
with ``--check`` it only lists what it would strip and exits 1 if anything.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

# Notebook metadata a committed notebook keeps: the kernel (without it JupyterLab stops at a
# "Select Kernel" dialog) and jupytext's pairing. Anything else is written by a run or a save.
KEPT_NOTEBOOK_METADATA = frozenset({"kernelspec", "jupytext"})
# Cell metadata jupytext writes to round-trip the .py source's blank lines, and tags a cell
# may carry on purpose; the rest (collapsed, scrolled, execution timings) is a reader's view.
KEPT_CELL_METADATA = frozenset({"lines_to_next_cell", "tags"})


def stray_content(notebook: dict[str, Any]) -> list[str]:
    """What a run or a save left in `notebook` (its JSON): one line per finding, empty if clean."""
    found = [
        f"notebook metadata {key!r}"
        for key in sorted(notebook.get("metadata", {}))
        if key not in KEPT_NOTEBOOK_METADATA
    ]
    for index, cell in enumerate(notebook.get("cells", [])):
        if cell.get("cell_type") == "code":
            if cell.get("outputs"):
                found.append(f"cell {index}: outputs")
            if cell.get("execution_count") is not None:
                found.append(f"cell {index}: execution_count")
        found += [
            f"cell {index}: metadata {key!r}"
            for key in sorted(cell.get("metadata", {}))
            if key not in KEPT_CELL_METADATA
        ]
    return found


def strip(notebook: dict[str, Any]) -> dict[str, Any]:
    """`notebook` without outputs, execution counts and run-time metadata (a new dict)."""
    clean = json.loads(json.dumps(notebook))
    metadata = clean.get("metadata", {})
    for key in [k for k in metadata if k not in KEPT_NOTEBOOK_METADATA]:
        del metadata[key]
    for cell in clean.get("cells", []):
        if cell.get("cell_type") == "code":
            cell["outputs"] = []
            cell["execution_count"] = None
        cell_metadata = cell.get("metadata", {})
        for key in [k for k in cell_metadata if k not in KEPT_CELL_METADATA]:
            del cell_metadata[key]
    return clean


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    check = "--check" in args
    paths = [Path(a) for a in args if a != "--check"]
    if not paths:
        print("usage: python -m augexplorer_widgets.notebook_clean [--check] NOTEBOOK.ipynb ...")
        return 2
    dirty = 0
    for path in paths:
        notebook = json.loads(path.read_text(encoding="utf-8"))
        found = stray_content(notebook)
        if not found:
            continue
        dirty += 1
        if check:
            print(f"{path}: " + "; ".join(found))
        else:
            # nbformat's own layout (one-space indent, a final newline), so a strip changes
            # only what it removes
            text = json.dumps(strip(notebook), indent=1, sort_keys=True, ensure_ascii=False) + "\n"
            path.write_text(text, encoding="utf-8")
            print(f"{path}: stripped {len(found)} item(s)")
    return 1 if check and dirty else 0


if __name__ == "__main__":
    sys.exit(main())
