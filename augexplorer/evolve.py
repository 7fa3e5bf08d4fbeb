"""A fast ``dataclasses.replace`` for the engine's immutable records on the edit path.

A slider drag makes a handful of new specs, nodes, steps and plans per step, right after DALI
has run and left the caches cold; ``dataclasses.replace`` walks the fields' metadata and
calls ``__init__`` each time, which was a tenth of the engine's own time per edit.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any, TypeVar

T = TypeVar("T")


@functools.cache
def _layout(cls: type) -> tuple[frozenset[str], tuple[str, ...]]:
    """The class's field names, and its cached properties (which live in ``__dict__`` too)."""
    # Copying field values as they are holds only for plain frozen dataclasses: every field
    # set by __init__ and nothing computed after it.
    if getattr(cls, "__post_init__", None) is not None or hasattr(cls, "__slots__"):
        raise TypeError(f"evolve() does not handle {cls.__name__}: use dataclasses.replace")
    fields = dataclasses.fields(cls)
    if not all(field.init for field in fields):
        raise TypeError(f"evolve() does not handle {cls.__name__}: it has non-init fields")
    cached = {
        name
        for klass in cls.__mro__
        for name, value in vars(klass).items()
        if isinstance(value, functools.cached_property)
    }
    return frozenset(field.name for field in fields), tuple(sorted(cached))


def evolve(instance: T, /, keep: tuple[str, ...] = (), **changes: Any) -> T:
    """A copy of the frozen dataclass `instance` with `changes`, as ``dataclasses.replace``
    makes it. Cached properties of `instance` are dropped, except those named in `keep`: the
    caller's word that `changes` cannot alter them."""
    cls: type = type(instance)
    fields, cached = _layout(cls)
    if not fields.issuperset(changes):
        unknown = sorted(changes.keys() - fields)
        raise TypeError(f"{cls.__name__} has no field {unknown[0]!r}")
    state = {**instance.__dict__, **changes}
    for name in cached:
        if name not in keep:
            state.pop(name, None)
    copy: T = object.__new__(cls)
    copy.__dict__.update(state)  # frozen dataclasses block attribute assignment, not __dict__
    return copy
