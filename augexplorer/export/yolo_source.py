"""The YOLO conversion an exported module carries: :mod:`augexplorer.yolo_folder`'s own
functions and constants, as source, so the module converts a folder exactly as the explorer does."""

from __future__ import annotations

import inspect

from .. import yolo_folder
from .literals import literal


def yolo_functions_source() -> str:
    """The constants and functions of :data:`augexplorer.yolo_folder.CARRIED`, as module text."""
    constants = "".join(
        f"{name} = {literal(getattr(yolo_folder, name))}\n"
        for name in yolo_folder.CARRIED_CONSTANTS
    )
    functions = "\n\n".join(inspect.getsource(function) for function in yolo_folder.CARRIED)
    return f"{constants}\n\n{functions}\n\n"
