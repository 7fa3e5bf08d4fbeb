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
  are laid out the same way (a nested ``if`` is a block inside a branch).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from augexplorer.spec import Clause, GraphSpec, Node, Ref

Item = dict[str, Any]


@dataclass(frozen=True)
class _Entry:
    """A node with the clauses of its condition not yet turned into blocks."""

    id: str
    clauses: tuple[Clause, ...]
    reads: frozenset[str]  # ids of the nodes it reads (inputs, argument inputs, predicates)

    def outer(self) -> Clause | None:
        return self.clauses[0] if self.clauses else None


def graph_layout(spec: GraphSpec) -> list[Item]:
    """The items the graph view draws, top to bottom; every node of `spec` appears once."""
    entries = [_Entry(node.id, tuple(node.when), frozenset(_reads(node))) for node in spec.nodes]
    return _items(entries)


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
            items.append({"kind": "node", "id": entry.id})
            index += 1
            continue
        members, hoisted, index = _block_members(entries, index, clause.ref)
        items += [{"kind": "node", "id": e.id} for e in hoisted]
        items.append(_block(clause.ref, members))
    return items


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
    inside = {entries[start].id}
    end = start + 1
    position = start + 1
    while position < len(entries):
        entry = entries[position]
        clause = entry.outer()
        if clause is not None and clause.ref == predicate:
            members.append(entry)
            inside.add(entry.id)
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
            _Entry(m.id, m.clauses[1:], m.reads) for m in members if m.clauses[0].holds is holds
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
