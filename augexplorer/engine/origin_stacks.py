"""DALI's recording of where each operator was made, off while the engine builds a pipeline.

DALI records, for every operator a pipeline definition calls, the Python stack that called it,
to show in its errors ("which was used in the pipeline definition with the following
traceback"). Under the engine that stack is the engine's own code (the builder, DALI's policy
functions), never the user's, and the engine drops it from the errors it shows
(:func:`~augexplorer.engine.dali_errors.clean_dali_message`). Recording it is most of a policy's
build once AutoGraph's maps are made when read (:mod:`.autograph_maps`): ``rand_augment`` makes
~600 operators, each walking and filtering the stack.

The switch is DALI's, private and process-wide: it is off while any engine build runs, on any
thread, and comes back as it was when the last one ends. Where DALI no longer has it, nothing
changes.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from .held_off import HeldOff

_lock = threading.Lock()
_held: HeldOff | None = None
_looked = False  # for DALI's switch (imported on first use: importing DALI takes a while)


def _dali_recording() -> HeldOff | None:
    global _held, _looked
    with _lock:
        if not _looked:
            _looked = True
            try:
                from nvidia.dali._utils import dali_trace
            except ImportError:
                return None
            on, switch = (
                getattr(dali_trace, name, None) for name in ("is_tracing_enabled", "set_tracing")
            )
            if callable(on) and callable(switch):
                _held = HeldOff(on, lambda: switch(enabled=True), lambda: switch(enabled=False))
        return _held


@contextmanager
def without_origin_stacks() -> Iterator[None]:
    """DALI's origin recording off for the block (see the module docstring)."""
    recording = _dali_recording()
    if recording is None:
        yield
        return
    with recording.held():
        yield
