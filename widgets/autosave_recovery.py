"""Reading an autosave that may be damaged: say what is wrong, keep the file, save what parses.

A damaged autosave is never overwritten: it is renamed aside with a timestamp (never onto an
existing file), and whatever can still be read (the graph less one bad node or field) is offered.
An undo history that cannot be read (see :mod:`.history_file`) is left out: the graph is offered
alone, and the file is kept aside all the same.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from augexplorer.spec import GraphSpec, from_json

from .history import Record
from .history_file import HISTORY_START, HistoryDamaged, read_history

# An autosave is a few kilobytes; anything this large is not one, and reading it could stall the
# kernel.
MAX_BYTES = 32 * 1024 * 1024
# The graph fields that have defaults: a bad one can be dropped and the rest still read.
OPTIONAL_FIELDS = ("outputs", "batch_size", "seed", "name")
# Trying each node left out costs one parse per node; past this a graph is not worth the wait.
MAX_NODES_TO_TRY = 500


@dataclass(frozen=True)
class Saved:
    spec: GraphSpec
    saved_at: str  # local time, for the restore offer
    note: str = ""  # what was left out when the graph was recovered from a damaged file
    history: Record | None = None  # the undo history saved with the graph, if it was


class Damaged(Exception):
    """The autosave cannot be read as it is: `reason` says why; `recovered` is what could be."""

    def __init__(self, reason: str, recovered: Saved | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.recovered = recovered


def read_autosave(path: Path) -> Saved:
    """The autosaved graph at `path`; raises :class:`Damaged` (never anything else) when the file
    is not a readable autosave."""
    try:
        size = path.stat().st_size
        if size > MAX_BYTES:
            raise Damaged(f"it is {size / 2**20:.0f} MiB, far larger than any autosave")
        data = path.read_bytes()
    except OSError as error:
        raise Damaged(f"it could not be read ({error.strerror or error})") from None
    if not data.strip():
        raise Damaged("it is empty")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise Damaged(f"it is not text (byte {error.start} is not UTF-8)") from None
    try:
        payload = json.loads(text, parse_int=_integer)
    except json.JSONDecodeError as error:
        # Cut short (a crash or a full disk mid-write)? Close what was left open and read on.
        completed = _completed(text)
        if completed is None or not _is_json(completed):
            completed = _before_history(text)
        if completed is None:
            raise Damaged(
                f"it is not valid JSON (line {error.lineno}, column {error.colno}: {error.msg})"
            ) from None
        reason = f"it ends too early (line {error.lineno}, column {error.colno})"
        note = "the end of the file was missing"
        if HISTORY_START in text:  # what is left of a history is not taken: it is whole or not
            note += "; the undo history was left out"
        raise Damaged(reason, _read_graph(completed, note)) from None
    except RecursionError:
        raise Damaged("it is nested too deeply to be a graph") from None
    graph, saved_at = _graph_of(payload)
    if graph is None:
        raise Damaged("it is JSON but not an autosave (no 'graph' object in it)")
    huge = _first_huge(graph, "graph")
    if huge is not None:
        where, digits = huge
        raise Damaged(
            f"its {where} is an integer of {digits:,} digits, far more than any graph setting "
            "holds (DALI holds 64-bit integers)",
            _recover(graph, saved_at),
        )
    try:
        spec = from_json(graph)
    except Exception as error:  # the spec reader's own error, or a RecursionError on deep data
        reason = _describe(error)
        raise Damaged(f"its graph is damaged: {reason}", _recover(graph, saved_at)) from None
    return Saved(spec, saved_at, history=_history_of(payload, spec, saved_at))


HISTORY_LEFT_OUT = "its undo history could not be read and was left out"


def _history_of(payload: dict[str, Any], spec: GraphSpec, saved_at: str) -> Record | None:
    """The undo history saved with `spec`; raises :class:`Damaged`, offering the graph alone,
    where it cannot be read."""
    data = payload.get("history")
    huge = _first_huge(data, "history")
    try:
        if huge is not None:
            where, digits = huge
            raise HistoryDamaged(f"it holds an integer of {digits:,} digits ({where})")
        return read_history(data, spec)
    except HistoryDamaged as error:
        alone = Saved(spec, saved_at, HISTORY_LEFT_OUT)
        raise Damaged(f"its undo history is damaged: {error}", alone) from None


class _Huge:
    """An integer too long for Python to read (more than its 4,300-digit limit): its digits
    are counted, never converted. No graph setting holds one, so the spec reader refuses it."""

    def __init__(self, digits: int) -> None:
        self.digits = digits


# Python's default limit on the digits of an integer read from text (sys.int_info).
_MAX_DIGITS = 4300


def _integer(text: str) -> int | _Huge:
    digits = len(text.lstrip("-"))
    return _Huge(digits) if digits > _MAX_DIGITS else int(text)


def _first_huge(data: Any, where: str) -> tuple[str, int] | None:
    """Where in `data` the first too-long integer is, and its digit count."""
    if isinstance(data, _Huge):
        return where, data.digits
    if isinstance(data, dict):
        if isinstance(data.get("id"), str):  # a node: name it as the panel does
            where = f"node {data['id']!r}"
        items: Any = data.items()
    elif isinstance(data, list):
        items = enumerate(data)
    else:
        return None
    for key, value in items:
        if isinstance(key, int):
            label = f"{where}[{key}]"
        elif where == "graph":
            label = repr(key)
        elif where.startswith("node ") and where.endswith(".args"):
            label = f"{where.removesuffix('.args')}, argument {key!r}"
        else:
            label = f"{where}.{key}"
        found = _first_huge(value, label)
        if found is not None:
            return found
    return None


def _is_json(text: str) -> bool:
    try:
        json.loads(text, parse_int=_integer)
    except (json.JSONDecodeError, RecursionError):
        return False
    return True


def _graph_of(payload: Any) -> tuple[dict[str, Any] | None, str]:
    if not isinstance(payload, dict) or not isinstance(payload.get("graph"), dict):
        return None, ""
    saved_at = payload.get("saved_at")
    return payload["graph"], saved_at if isinstance(saved_at, str) else ""


def _read_graph(text: str | None, note: str) -> Saved | None:
    """The graph in the repaired `text`, if it can be read (less one node, if need be)."""
    if text is None:
        return None
    try:
        payload = json.loads(text, parse_int=_integer)
    except (json.JSONDecodeError, RecursionError):
        return None
    graph, saved_at = _graph_of(payload)
    if graph is None:
        return None
    try:
        return Saved(from_json(graph), saved_at, note)
    except Exception:
        recovered = _recover(graph, saved_at)
    if recovered is None:
        return None
    return Saved(recovered.spec, saved_at, f"{note}; {recovered.note}")


def _before_history(text: str) -> str | None:
    """The autosave `text` up to its undo history, closed: a file cut inside its history (the
    larger, last part) where closing what was left open does not make JSON (a cut between a
    name and its value)."""
    end = text.find(HISTORY_START)
    if end < 0:
        return None
    completed = text[:end] + "\n}"
    return completed if _is_json(completed) else None


def _completed(text: str) -> str | None:
    """`text` cut short, with its open string, arrays and objects closed (None if it cannot be
    completed that way: a cut inside a number or a name may still read, or not)."""
    closers: list[str] = []
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            closers.append("]" if char == "[" else "}")
        elif char in "]}":
            if not closers:
                return None
            closers.pop()
    if escaped:
        text = text[:-1]
    body = text + ('"' if in_string else "")
    body = body.rstrip()
    if body.endswith(","):
        body = body[:-1]
    elif body.endswith(":"):
        body += " null"
    return body + "".join(reversed(closers))


def _describe(error: Exception) -> str:
    if isinstance(error, RecursionError):
        return "it is nested too deeply"
    return str(error) or type(error).__name__


def _recover(graph: dict[str, Any], saved_at: str) -> Saved | None:
    """The graph less the one node or optional field that stops it from being read, if any."""
    nodes = graph.get("nodes")
    candidates: list[tuple[str, dict[str, Any]]] = []
    if isinstance(nodes, list) and len(nodes) <= MAX_NODES_TO_TRY:
        for index, node in enumerate(nodes):
            name = node.get("id") if isinstance(node, dict) else None
            label = f"node {name!r}" if isinstance(name, str) else f"node #{index}"
            candidates.append((label, {**graph, "nodes": nodes[:index] + nodes[index + 1 :]}))
    for field in OPTIONAL_FIELDS:
        if field in graph:
            rest = {key: value for key, value in graph.items() if key != field}
            candidates.append((f"the field {field!r}", rest))
    for label, candidate in candidates:
        if _first_huge(candidate, "graph") is not None:  # read as text by nothing: left out
            continue
        try:
            spec = from_json(candidate)
        except Exception:
            continue
        return Saved(spec, saved_at, f"{label} could not be read and was left out")
    return None


def keep_aside(path: Path, why: str) -> Path:
    """Rename `path` to ``<stem>.<why>-<timestamp>.json`` beside it, never over an existing file;
    returns the new path. Raises OSError when it cannot be moved (the caller must then stop
    writing to `path`)."""
    stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    for attempt in range(1000):
        suffix = f"-{attempt}" if attempt else ""
        target = path.with_name(f"{path.stem}.{why}-{stamp}{suffix}{path.suffix}")
        try:
            # A hard link fails when the target exists, so nothing is ever replaced.
            os.link(path, target)
        except FileExistsError:
            continue
        except OSError:
            # No hard links here (some network or FAT file systems): check, then rename.
            if target.exists():
                continue
            os.rename(path, target)
            return target
        path.unlink()
        return target
    raise OSError(f"no free name beside {path} to keep it under")
