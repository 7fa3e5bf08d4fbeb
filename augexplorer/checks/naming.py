"""Names in a graph: node names that can be Python variables in the exported module, and the
closest known name to suggest for a misspelt one."""

from __future__ import annotations

import re

# Matched over the whole name: a name ending in a newline is not an identifier.
IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")
# Names the exported module uses for itself; a node may not take them.
RESERVED_IDS = frozenset(
    {
        "fn",
        "types",
        "pipeline_def",
        "np",
        "os",
        "torch",
        "pipe",
        "pipeline",
        "make_loader",
        "main",
        "GRAPH",
        "device",
        "batch_size",
    }
)


def closest(name: str, options: list[str]) -> str | None:
    """The one of `options` closest to `name`, when one is close enough to suggest."""
    import difflib

    found = difflib.get_close_matches(name, options, n=1, cutoff=0.6)
    return found[0] if found else None


def suggest_id(text: str) -> str:
    """A node name close to `text` that is an identifier."""
    cleaned = re.sub(r"\W+", "_", text).strip("_") or "node"
    return f"n_{cleaned}" if cleaned[0].isdigit() else cleaned
