"""The undo history in an autosave: the last steps' graphs and labels, so that undo still works
after a kernel restart.

It is written beside the graph, under ``"history"``: each step's graph as compact JSON with the
line the history list shows for it, and which step is on screen. An autosave without one (written
before the history was kept) restores its graph alone. A history that cannot be read is never
half taken: the caller restores the graph alone and keeps the file aside as damaged.
"""

from __future__ import annotations

import json
from typing import Any, TypeGuard

from augexplorer.spec import GraphSpec, from_json, to_json

from .history import Record

# The format of the "history" object; a newer one is not guessed at.
VERSION = 1
# Undo steps worth keeping across a restart: a slider's drag is one step, so 50 is an afternoon.
STEPS_KEPT = 50
# A history this long (in characters) drops its oldest steps: reading a graph back takes ~0.1-2
# ms, and the autosave is rewritten after every edit.
MAX_CHARS = 2 * 1024 * 1024
# More steps than any panel writes: the file was not written by one.
MAX_STEPS_READ = 10 * STEPS_KEPT
# Where the history begins in an autosave's text (after the graph, as the last field): a file
# cut short there or later still has its whole graph before it.
HISTORY_START = ',\n "history": '


class HistoryDamaged(ValueError):
    """The history part of an autosave cannot be read; the message says which step and why."""


class HistoryWriter:
    """The history as JSON text, each graph encoded once: an autosave is written after every
    edit, and encoding a graph of auto-augment policies takes about a millisecond."""

    def __init__(self, steps_kept: int = STEPS_KEPT, max_chars: int = MAX_CHARS) -> None:
        self._steps_kept = steps_kept
        self._max_chars = max_chars
        # (id of a graph, its label) -> (the graph, held so that its id is not reused; the
        # step's JSON text)
        self._lines: dict[tuple[int, str], tuple[GraphSpec, str]] = {}

    def encode(self, record: Record) -> str:
        """The JSON text of `record`'s last steps around the one on screen."""
        start = max(0, record.cursor - (self._steps_kept - 1))
        end = min(len(record.graphs), start + self._steps_kept)
        lines: dict[tuple[int, str], tuple[GraphSpec, str]] = {}
        texts: list[str] = []
        for graph, label in zip(record.graphs[start:end], record.labels[start:end], strict=True):
            key = (id(graph), label)
            known = self._lines.get(key)
            if known is None or known[0] is not graph:
                step = {"label": label, "graph": to_json(graph)}
                known = (graph, json.dumps(step, separators=(",", ":")))
            lines[key] = known
            texts.append(known[1])
        self._lines = lines
        cursor = record.cursor - start
        size = sum(map(len, texts))
        while size > self._max_chars and cursor > 0:  # the oldest go first
            size -= len(texts.pop(0))
            cursor -= 1
        while size > self._max_chars and len(texts) > cursor + 1:  # then the redo steps
            size -= len(texts.pop())
        steps = ",\n  ".join(texts)
        return f'{{"version": {VERSION}, "cursor": {cursor}, "steps": [\n  {steps}\n ]}}'


def read_history(data: Any, graph: GraphSpec) -> Record | None:
    """The history in an autosave's ``"history"`` value (None where there is none), whose step
    on screen must be `graph`, the autosave's own; raises :class:`HistoryDamaged`."""
    if data is None:
        return None
    if not isinstance(data, dict):
        raise HistoryDamaged(f"it is {_kind(data)}, not an object")
    version = data.get("version")
    if not _is_int(version):
        raise HistoryDamaged("its 'version' is not an integer")
    if version != VERSION:
        newer = "a newer" if version > VERSION else "an unknown"
        raise HistoryDamaged(
            f"it is in {newer} format (version {version}) than this augexplorer reads "
            f"(version {VERSION})"
        )
    steps = data.get("steps")
    if not isinstance(steps, list) or not steps:
        raise HistoryDamaged("its 'steps' is not a list of steps")
    if len(steps) > MAX_STEPS_READ:
        raise HistoryDamaged(f"it holds {len(steps):,} steps, more than any autosave writes")
    cursor = data.get("cursor")
    if not _is_int(cursor) or not 0 <= cursor < len(steps):
        raise HistoryDamaged(
            f"its 'cursor' ({cursor!r}) is not the number of one of its {len(steps)} steps"
        )
    graphs: list[GraphSpec] = []
    labels: list[str] = []
    for number, step in enumerate(steps, 1):
        if not isinstance(step, dict) or not isinstance(step.get("label"), str):
            raise HistoryDamaged(f"step {number} is not an object with a 'label' text")
        try:
            graphs.append(from_json(step.get("graph")))
        except Exception as error:  # the spec reader's own error, a RecursionError, bad data
            reason = str(error) or type(error).__name__
            raise HistoryDamaged(f"step {number} ({step['label']!r}): {reason}") from None
        labels.append(step["label"])
    if graphs[cursor] != graph:
        raise HistoryDamaged(f"its step on screen ({cursor + 1}) is not the autosaved graph")
    return Record(tuple(graphs), tuple(labels), cursor)


def _is_int(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _kind(value: Any) -> str:
    return {list: "a list", str: "a text", bool: "true or false"}.get(type(value), "a number")
