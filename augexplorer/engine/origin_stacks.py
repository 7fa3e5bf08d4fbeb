"""DALI's recording of where each operator was made, off on the thread where the engine builds.

DALI records, for every operator a pipeline definition calls, the Python stack that called it,
to show in its errors ("which was used in the pipeline definition with the following
traceback"). Under the engine that stack is the engine's own code (the builder, DALI's policy
functions), never the user's, and the engine drops it from the errors it shows
(:func:`~augexplorer.engine.runners.clean_dali_message`). Recording it is most of a policy's
build once AutoGraph's maps are made when read (:mod:`.autograph_maps`): ``rand_augment`` makes
~600 operators, each walking and filtering the stack.

DALI's own switch (``dali_trace.set_tracing``, private) is process-wide, and DALI reads it both
when an operator object is made and when it is called: an object made while it was off and
called once it is on fails (``'Flip' object has no attribute '_definition_frame_end'``). A build
on the panel's background thread must not switch it for the user's own pipelines on the
kernel's, so the engine leaves that switch alone and answers DALI's question per thread: off
where a build of the engine's runs, DALI's answer elsewhere. Where DALI no longer has the
question, nothing changes.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_here = threading.local()  # .blocks: how many engine builds this thread is inside
_dalis_answer: Callable[[], bool] | None = None
_looked = False


def _recording_here() -> bool:
    """DALI's ``is_tracing_enabled``, answered for this thread."""
    assert _dalis_answer is not None
    return getattr(_here, "blocks", 0) == 0 and bool(_dalis_answer())


def _asked_per_thread() -> bool:
    """Put :func:`_recording_here` in DALI's place, once; whether it is there."""
    global _dalis_answer, _looked
    with _lock:
        if not _looked:
            _looked = True
            try:
                from nvidia.dali._utils import dali_trace
            except ImportError:
                return False
            answer = getattr(dali_trace, "is_tracing_enabled", None)
            if callable(answer):
                _dalis_answer = answer
                dali_trace.is_tracing_enabled = _recording_here
        return _dalis_answer is not None


@contextmanager
def without_origin_stacks() -> Iterator[None]:
    """DALI's origin recording off on this thread for the block (see the module docstring).
    Every operator the block makes it must call inside it, as a pipeline definition does."""
    if not _asked_per_thread():
        yield
        return
    _here.blocks = getattr(_here, "blocks", 0) + 1
    try:
        yield
    finally:
        _here.blocks -= 1
