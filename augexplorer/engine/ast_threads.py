"""Python's own parser and compiler used on two threads at once, safely.

Before CPython 3.11.8 and 3.12.2 the AST constructor counted its depth once per interpreter, not
once per call (python/cpython gh-106905). A garbage collection in the middle of one thread's AST
work could run finalizers, hand the GIL to another thread in the middle of its own, and make one
of them raise "SystemError: AST constructor recursion depth mismatch". In a kernel the other
thread is the user's: while the panel's background warm-up converted code with DALI's AutoGraph,
most compiles of a cell that made garbage with finalizers failed (tests/test_warm_up.py). AST
work does not give the GIL up on its own, only through the collector's finalizers, so with the
automatic collection off while a background thread parses or compiles nothing interleaves.
"""

from __future__ import annotations

import gc
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager


def ast_shared_between_threads(version: tuple[int, ...] = tuple(sys.version_info[:3])) -> bool:
    """Whether this CPython's AST constructor counts its depth once per interpreter (gh-106905:
    fixed in 3.11.8 and 3.12.2), so that two threads parsing at once can fail each other."""
    return version < (3, 11, 8) or (3, 12) <= version < (3, 12, 2)


_lock = threading.Lock()
_holders = 0  # blocks inside no_collection_where_ast_is_shared, on any thread
_was_enabled = False  # the collection's state when the first of them began


@contextmanager
def no_collection_where_ast_is_shared() -> Iterator[None]:
    """The automatic garbage collection off for the block on CPythons where the AST constructor's
    depth is shared between threads (see the module docstring); elsewhere nothing changes.
    Blocks on several threads may overlap: the collection comes back when the last one ends,
    and only if it was on when the first began."""
    global _holders, _was_enabled
    if not ast_shared_between_threads():
        yield
        return
    with _lock:
        if _holders == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _holders += 1
    try:
        yield
    finally:
        with _lock:
            _holders -= 1
            if _holders == 0 and _was_enabled:
                gc.enable()
