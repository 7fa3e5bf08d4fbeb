"""Where the graph view draws each node: in the graph's order, or inside a conditional block.

A node's condition is a tuple of clauses (``if flip and not angle_neg``); ``if``/``else`` are
nodes with opposite clauses on one predicate, ``elif`` adds a clause on a second predicate under
the negation of the first, nesting adds clauses. The view shows nodes that share a predicate as
one block: an ``if <predicate>`` header over one column per branch (``if flip``, ``elif ...``,
``else``), the branches side by side, and what reads the block's result below it.

The layout is plain data (JSON-able dicts) computed here from the GraphSpec alone, so the
browser code never reasons about conditions:

- ``{"kind": "node", "id": "crop"}``: a node drawn on its own;
- ``{"kind": "block", "predicate": "flip", "header": "if flip", "branches": [{"label":
  "if flip", "items": [...]}, {"label": "else", "items": [...]}]}``: a block whose branch items
  are laid out the same way (a nested ``if`` is a block inside a branch);
- ``{"kind": "port", "id": "unsharp_size", "header": "UnsharpMask(p=0.3)", "line": 6, "main":
  "unsharp", "count": 11, "items": [...]}``: the nodes one ported transform became, when there
  are several (an unsharp mask is eleven: its draws, blurs and arithmetic). The view shows the
  transform folded to its `main` node, the one whose output the rest of the graph reads, and
  unfolds `items` (laid out as above) on request. Only a transform's run of nodes that holds
  the predicates of its own conditions is folded; one inside a block of another's (a port under
  ``OneOf``) is folded inside that block's branch.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from augexplorer.spec import Clause, GraphSpec, Node, Ref

Item = dict[str, Any]


@dataclass(frozen=True)
class _Entry:
    """A node, or a ported transform's nodes, with the clauses of its condition not yet
    turned into blocks."""

    id: str
    clauses: tuple[Clause, ...]
    reads: frozenset[str]  # ids of the nodes it reads (inputs, argument inputs, predicates)
    # a ported node's transform: (its call, its line), and whether something outside the
    # transform's own nodes reads it (the graph's output included)
    port: tuple[str, int | None] | None = None
    read_outside: bool = False
    # a folded transform (`port`: its calls and line): its nodes (its id is the first one's)
    # and the one the graph reads on
    members: tuple[_Entry, ...] = ()
    main: str = ""

    def outer(self) -> Clause | None:
        return self.clauses[0] if self.clauses else None

    @property
    def ids(self) -> frozenset[str]:
        return frozenset({self.id}).union(*(member.ids for member in self.members))


def graph_layout(spec: GraphSpec) -> list[Item]:
    """The items the graph view draws, top to bottom; every node of `spec` appears once."""
    reads = {node.id: frozenset(_reads(node)) for node in spec.nodes}
    ports = {node.id: _port(node) for node in spec.nodes}
    final = spec.final_output()
    read_outside = {
        read
        for node_id, read_ids in reads.items()
        for read in read_ids
        if ports.get(read) is None or ports.get(read) != ports[node_id]
    } | ({final.node} if final is not None else set())
    entries = [
        _Entry(node.id, tuple(node.when), reads[node.id], ports[node.id], node.id in read_outside)
        for node in spec.nodes
    ]
    return _items(_folded(entries))


def folded_transforms(spec: GraphSpec) -> dict[str, Item]:
    """Each node the graph view folds into a ported transform, to that transform's item."""
    found: dict[str, Item] = {}

    def walk(items: list[Item]) -> None:
        for item in items:
            if item["kind"] == "port":
                for node_id in _ids_of(item["items"]):
                    found.setdefault(node_id, item)
                walk(item["items"])
            elif item["kind"] == "block":
                for branch in item["branches"]:
                    walk(branch["items"])

    walk(graph_layout(spec))
    return found


def _ids_of(items: list[Item]) -> list[str]:
    ids: list[str] = []
    for item in items:
        if item["kind"] == "node":
            ids.append(item["id"])
        elif item["kind"] == "port":
            ids += _ids_of(item["items"])
        else:
            for branch in item["branches"]:
                ids += _ids_of(branch["items"])
    return ids


def _port(node: Any) -> tuple[str, int | None] | None:
    origin = getattr(node, "origin", None)
    return None if origin is None else (origin.transform, origin.line)


def _reads(node: Any) -> set[str]:
    refs: list[Ref] = list(node.inputs)
    if isinstance(node, Node):
        refs += [value for value in node.args.values() if isinstance(value, Ref)]
        refs += [clause.ref for clause in node.when]
    return {ref.node for ref in refs}


def _items(entries: Sequence[_Entry]) -> list[Item]:
    items: list[Item] = []
    index = 0
    while index < len(entries):
        entry = entries[index]
        clause = entry.outer()
        if clause is None:
            items.append(_item(entry))
            index += 1
            continue
        members, hoisted, index = _block_members(entries, index, clause.ref)
        items += [_item(e) for e in hoisted]
        items.append(_block(clause.ref, members))
    return items


def _item(entry: _Entry) -> Item:
    if not entry.members:
        return {"kind": "node", "id": entry.id}
    called, line = entry.port or ("", None)
    return {
        "kind": "port",
        "id": entry.id,
        "header": called,
        "line": line,
        "main": entry.main,
        "count": len(entry.ids),
        "items": _items(entry.members),
    }


def _folded(entries: Sequence[_Entry]) -> list[_Entry]:
    """`entries` with each ported transform of several nodes made one entry."""
    folded: list[_Entry] = []
    index = 0
    while index < len(entries):
        end, prefix = _port_run(entries, index)
        if end > index + 1:
            folded.append(_group(entries[index:end], prefix))
        else:
            folded.append(entries[index])
        index = max(end, index + 1)
    return folded


def _port_run(entries: Sequence[_Entry], start: int) -> tuple[int, tuple[Clause, ...]]:
    """Where the nodes ported from the transform of `entries[start]` end, and the conditions
    that hold all of them (a port under ``OneOf``: the OneOf's draw). The run is the transform's
    own nodes or, where a wrapper's draw is what they run on (torchvision's
    ``RandomApply([ColorJitter()])``, one line of the user's file), every node of that line.
    A run whose nodes run under differing conditions of other nodes is not folded."""
    port = entries[start].port
    if port is None:
        return start + 1, ()
    ends = []
    if port[1] is not None:
        line = _run_end(entries, start, lambda e: e.port is not None and e.port[1] == port[1])
        # of the line, the wrapper and what it holds: a Compose written on one line holds
        # other transforms beside them
        held = _wrapping(entries[start:line])
        if port in held:
            ends.append(_run_end(entries, start, lambda e: e.port in held))
    ends.append(_run_end(entries, start, lambda e: e.port == port))
    for end in ends:
        prefix = _outside_conditions(entries[start:end])
        if prefix is not None:
            return end, prefix
    return start + 1, ()


def _run_end(entries: Sequence[_Entry], start: int, belongs: Any) -> int:
    end = start + 1
    while end < len(entries) and belongs(entries[end]):
        end += 1
    return end


def _outside_conditions(run: Sequence[_Entry]) -> tuple[Clause, ...] | None:
    """The clauses on nodes outside `run` that its conditional nodes share, outermost first;
    None where they differ, or where one follows a clause on a node of the run."""
    inside = {entry.id for entry in run}
    shared: tuple[Clause, ...] | None = None
    for entry in run:
        outside = tuple(itertools.takewhile(lambda c: c.ref.node not in inside, entry.clauses))
        rest = entry.clauses[len(outside) :]
        if any(clause.ref.node not in inside for clause in rest):
            return None
        if outside and shared is not None and outside != shared:
            return None
        shared = outside or shared
    return shared or ()


def _wrapping(run: Sequence[_Entry]) -> set[tuple[str, int | None]]:
    """The transforms of `run` that wrap others (a node of another runs on a condition one of
    theirs draws) and those they wrap; empty where none does."""
    port_of = {entry.id: entry.port for entry in run}
    held: set[tuple[str, int | None]] = set()
    for entry in run:
        for clause in entry.clauses:
            wrapper = port_of.get(clause.ref.node, entry.port)
            if wrapper != entry.port and wrapper is not None and entry.port is not None:
                held |= {wrapper, entry.port}
    return held


def _group(run: Sequence[_Entry], shared: tuple[Clause, ...]) -> _Entry:
    """One entry for a ported transform's nodes, under the conditions they share (its draws,
    computed whatever the condition, are folded with it)."""
    ids = {entry.id for entry in run}
    members = tuple(
        dataclasses.replace(entry, clauses=entry.clauses[len(shared) :])
        if entry.clauses[: len(shared)] == shared
        else entry
        for entry in run
    )
    read_on = [entry.id for entry in run if entry.read_outside]
    port_of = {entry.id: entry.port for entry in run}
    wrappers = {
        port_of[clause.ref.node]
        for entry in run
        for clause in entry.clauses
        if port_of.get(clause.ref.node, entry.port) != entry.port
    }
    ports = list(dict.fromkeys(entry.port for entry in run if entry.port is not None))
    # what is wrapped first: "ColorJitter(...) / RandomApply(...)"
    ports = [p for p in ports if p not in wrappers] + [p for p in ports if p in wrappers]
    return _Entry(
        run[0].id,
        shared,
        frozenset().union(*(entry.reads for entry in run)) - ids,
        port=(" / ".join(port[0] for port in ports), run[0].port[1] if run[0].port else None),
        read_outside=bool(read_on),
        members=members,
        main=read_on[-1] if read_on else run[-1].id,
    )


def _block_members(
    entries: Sequence[_Entry], start: int, predicate: Ref
) -> tuple[list[_Entry], list[_Entry], int]:
    """The nodes from `start` on under `predicate` (either way), the nodes between them that
    read nothing inside the block (drawn above it: a predicate or an argument the next branch
    needs, as DALI user code computes them before its ``elif``), and where the block ends.
    A node that reads the block's result ends it: it comes after the merge."""
    members = [entries[start]]
    hoisted: list[_Entry] = []
    pending: list[_Entry] = []
    inside = set(entries[start].ids)
    end = start + 1
    position = start + 1
    while position < len(entries):
        entry = entries[position]
        clause = entry.outer()
        if clause is not None and clause.ref == predicate:
            members.append(entry)
            inside.update(entry.ids)
            hoisted += pending
            pending = []
            end = position + 1
        elif entry.reads & inside:
            break
        else:
            pending.append(entry)
        position += 1
    return members, hoisted, end


def _block(predicate: Ref, members: Sequence[_Entry]) -> Item:
    """One block from its members: a branch where the predicate holds, one where it does not
    (``else``), each laid out from the members' remaining clauses. The branch whose node comes
    first in the graph comes first, as the ``if`` of the user's code (``if not b:`` included)."""
    branches: list[Item] = []
    first = members[0].clauses[0].holds
    for holds in (first, not first):
        inner = [
            dataclasses.replace(m, clauses=m.clauses[1:])
            for m in members
            if m.clauses[0].holds is holds
        ]
        if inner:
            branches.append({"holds": holds, "items": _items(inner)})
    header = Clause(predicate, branches[0]["holds"]).describe()
    if len(branches) == 1:
        labelled = [{"label": f"if {header}", "items": branches[0]["items"]}]
    else:
        labelled = [
            {"label": f"if {header}", "items": branches[0]["items"]},
            *_else_branches(branches[1]["items"]),
        ]
    return {
        "kind": "block",
        "predicate": str(predicate),
        "header": f"if {header}",
        "branches": labelled,
    }


def _else_branches(items: list[Item]) -> list[Item]:
    """The ``else`` column, or, when it holds nothing but one block, that block's branches as
    ``elif`` columns beside the ``if``: ``if a / elif b / else`` reads as three columns."""
    if len(items) == 1 and items[0]["kind"] == "block":
        inner = items[0]["branches"]
        return [
            {
                "label": "el" + b["label"] if b["label"].startswith("if ") else b["label"],
                "items": b["items"],
            }
            for b in inner
        ]
    return [{"label": "else", "items": items}]
