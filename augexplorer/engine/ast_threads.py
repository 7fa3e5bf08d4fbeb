"""Python's parser used on two threads at once, safely.

Before CPython 3.11.8 and 3.12.2 the step that turns parsed code into Python's AST objects
(`ast.parse`, which IPython runs on every cell and DALI's AutoGraph on every function it
converts) counted its depth once per interpreter, not once per call (python/cpython gh-106905).
A garbage collection in the middle of one thread's parse could run finalizers, hand the GIL to
another thread in the middle of its own, and make one of them raise "SystemError: AST
constructor recursion depth mismatch". In a kernel the other thread is the user's: while the
panel's background warm-up converted code with AutoGraph, most parses on the kernel's thread that
made garbage with finalizers failed (tests/test_warm_up.py). That step gives the GIL up only
through the collector's finalizers, so with the automatic collection off while a background
thread parses, nothing interleaves. (3.12 collects only between bytecodes, so 3.12.0 and 3.12.1
may not need it; it costs nothing there.)"""

from __future__ import annotations

import gc
import sys
from collections.abc import Iterator
from contextlib import contextmanager

from .held_off import HeldOff


def ast_shared_between_threads(version: tuple[int, ...] = tuple(sys.version_info[:3])) -> bool:
    """Whether this CPython's AST constructor counts its depth once per interpreter (gh-106905:
    fixed in 3.11.8 and 3.12.2), so that two threads parsing at once can fail each other."""
    return version < (3, 11, 8) or (3, 12) <= version < (3, 12, 2)


_collection = HeldOff(gc.isenabled, gc.enable, gc.disable)


@contextmanager
def no_collection_where_ast_is_shared() -> Iterator[None]:
    """The automatic garbage collection off for the block on CPythons where the AST constructor's
    depth is shared between threads (see the module docstring); elsewhere nothing changes.
    Blocks on several threads may overlap: the collection comes back when the last one ends,
    and only if it was on when the first began (a change made by someone else while a block
    runs is not kept)."""
    if not ast_shared_between_threads():
        yield
        return
    with _collection.held():
        yield
