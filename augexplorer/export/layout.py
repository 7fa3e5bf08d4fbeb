"""Generated code laid out as a person writes it: ruff's formatter (black's style), line length
100, on the module's text.

ruff formats an exported module in ~10 ms where black's ``format_str`` took 330-680 ms on the
same modules here (the two gave the same text for every preset), and the Export tab writes the
module again after edits. Run as its own program with ``--isolated``: no configuration found
near the user's files changes how an export looks."""

from __future__ import annotations

import subprocess
from functools import cache

LINE_LENGTH = 100
TARGET = "py310"  # the oldest Python augexplorer supports


class LayoutError(RuntimeError):
    """The formatter refused the generated text: a bug in the exporter, never the user's."""


@cache
def _ruff() -> str:
    from ruff.__main__ import find_ruff_bin

    return str(find_ruff_bin())


def formatted(source: str) -> str:
    """`source` (a Python module or a run of statements) formatted."""
    done = subprocess.run(
        [
            _ruff(),
            "format",
            "--isolated",
            f"--line-length={LINE_LENGTH}",
            f"--target-version={TARGET}",
            "--stdin-filename=module.py",
            "-",
        ],
        input=source,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise LayoutError(
            f"ruff could not format the generated code: {done.stderr.strip()} (a bug in "
            "augexplorer's exporter: please report it with the graph that made it)"
        )
    return done.stdout
