"""A file error as the panel says it: a refusal to overwrite names the panel's own check box."""

from __future__ import annotations

from augexplorer.errors import FileExistsRefused


def said_in_panel(error: Exception, switch: str) -> str:
    """`error`'s message, where overwriting is done by ticking the check box `switch`."""
    return error.in_panel(switch) if isinstance(error, FileExistsRefused) else str(error)
