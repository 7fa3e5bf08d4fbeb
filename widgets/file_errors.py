"""A file error as the panel says it: a refusal to overwrite names the panel's own check box
(the engine's message names ``overwrite=True``, which a panel user has no way to pass)."""

from __future__ import annotations

from augexplorer.errors import FileExistsRefused


def said_in_panel(error: Exception, switch: str) -> str:
    """`error`'s message, where overwriting is done by ticking the check box `switch`."""
    if isinstance(error, FileExistsRefused):
        return f"{error.path} already exists; tick “{switch}” to replace it, or type another name"
    return str(error)
