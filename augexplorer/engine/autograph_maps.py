"""AutoGraph's source maps made when DALI reads them, not on every converted call.

A pipeline built with ``enable_conditionals=True`` runs its Python through DALI's copy of
AutoGraph. On entry to every converted function AutoGraph pushes a source mapper and copies the
whole map from generated code back to the code it came from (its own lines plus all its callers'),
though the map is read only when DALI records where an operator was made (the origin shown in
DALI's errors). The auto_aug policies convert thousands of small calls per build, and those copies
were most of the build: ``trivial_augment_wide`` built in 1.35 s, 0.37 s with the map made when
read (BENCHMARKS.md, "Policies built with AutoGraph's maps made when read").

:func:`install` gives each mapper a map that is computed the first time it is read. It holds the
same entries DALI's copy would: a mapper's parent is fixed when it is entered and each mapper
caches its own effective map, so computing it later gives what computing it at entry gave. Where
DALI's private module no longer has the shape this relies on, nothing is changed.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, Iterator, Mapping
from typing import Any

_lock = threading.Lock()
_dali_update: Callable[[Any], None] | None = None  # DALI's own, kept for uninstall()


class SourceMapWhenRead(Mapping[Any, Any]):
    """A mapper's map, made from `mapper.get_effective_source_map()` on first use; the mapper
    then holds the made map itself, so later reads are a plain dict's."""

    def __init__(self, mapper: Any) -> None:
        # weakly: the mapper holds this map, and a cycle per converted call would be left to
        # the cycle collector (off during background builds on some Pythons: ast_threads.py)
        self._mapper = weakref.ref(mapper)
        self._map: dict[Any, Any] | None = None

    def _entries(self) -> dict[Any, Any]:
        if self._map is None:
            mapper = self._mapper()
            # a copy, as DALI's own update makes: the mapper's cached map stays its own
            self._map = dict(mapper.get_effective_source_map()) if mapper is not None else {}
            if mapper is not None:
                mapper.internal_map = self._map
        return self._map

    def __getitem__(self, key: Any) -> Any:
        return self._entries()[key]

    def __contains__(self, key: object) -> bool:
        return key in self._entries()

    def __iter__(self) -> Iterator[Any]:
        return iter(self._entries())

    def __len__(self) -> int:
        return len(self._entries())

    @property
    def made(self) -> bool:
        """Whether the entries have been made (read at least once)."""
        return self._map is not None


def _mapper_class() -> Any | None:
    """DALI's source mapper base class, where it has the attributes relied on here."""
    try:
        from nvidia.dali._autograph.utils import tf_stack
    except ImportError:
        return None
    mapper = getattr(tf_stack, "StackTraceMapper", None)
    reads_top_map = callable(getattr(tf_stack, "get_frame_map", None))
    if mapper is None or not reads_top_map:
        return None
    if not all(
        callable(getattr(mapper, name, None)) for name in ("update", "get_effective_source_map")
    ):
        return None
    return mapper


def _update_when_read(mapper: Any) -> None:
    mapper.internal_map = SourceMapWhenRead(mapper)


def install() -> bool:
    """Make AutoGraph's source maps when read; whether they now are. Safe to call again."""
    global _dali_update
    with _lock:
        mapper = _mapper_class()
        if mapper is None:
            return False
        if _dali_update is None:
            _dali_update = mapper.update
            mapper.update = _update_when_read
        return True


def uninstall() -> None:
    """DALI's own behaviour back (for comparing the two)."""
    global _dali_update
    with _lock:
        mapper = _mapper_class()
        if mapper is not None and _dali_update is not None:
            mapper.update = _dali_update
        _dali_update = None


def installed() -> bool:
    return _dali_update is not None
