"""DALI conditionals of a serialized pipeline turned into node conditions (``Node.when``).

With ``enable_conditionals=True`` DALI traces an ``if`` as ``_conditional.split`` (each value the
branches read is split by the predicate: output 0 where it holds, 1 where it does not) and one
``_conditional.merge`` per variable the branches assign. So every DALI output is made under a
scope, the clauses of the splits it descends from. At a merge, the true side and the false side
are each a chain of operators, each reading the previous one as its first input, back to the value
the ``if`` started from: each chain node gets its own scope as its condition, and the first
false-side node reads the end of the true side, which passes its input through where its
condition fails. Nested blocks and ``elif`` need nothing more: their merges come first, so the
outer merge walks chains already joined.

Operators with no inputs (random draws) run over the whole batch before DALI splits them, and
per-sample expressions give every sample the same value wherever they run, so both are imported
without a condition.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace

from ..spec import Clause, Node, Ref
from .protobuf import OpRecord

Scope = tuple[Clause, ...]


class BranchesRefused(Exception):
    """A merge whose branches are not chains on one value (the caller says so in user terms)."""


@dataclass(frozen=True)
class Branches:
    """The two sides of one merge: chain nodes in the order they run, the predicate, and the
    scope the ``if`` statement itself is in."""

    predicate: Ref
    outer: Scope
    start: Ref  # the value the if started from
    true_side: tuple[str, ...]
    false_side: tuple[str, ...]


class BranchImport:
    """Scopes of the outputs of one serialized pipeline, and its merges turned into conditions.

    `resolve` gives the graph reference of a DALI output, `node` the current node of an id,
    `replace` puts a changed node in its place and `clause` says what an ``if`` on a DALI output
    tests (``if not x:`` tests x not holding)."""

    def __init__(
        self,
        resolve: Callable[[str, str], Ref],
        node: Callable[[str], object],
        replace_node: Callable[[Node], None],
        clause: Callable[[str], Clause],
    ) -> None:
        self.resolve = resolve
        self.node = node
        self.replace_node = replace_node
        self.clause = clause
        self.scopes: dict[str, Scope] = {}  # DALI output name -> clauses it was made under
        self.node_scopes: dict[str, Scope] = {}  # node id -> clauses
        self.split_sources: dict[Ref, set[Ref]] = {}  # predicate -> values split by it

    def scope_of(self, op: OpRecord) -> Scope:
        """The deepest scope among `op`'s inputs (an operator with none runs on the whole
        batch)."""
        scopes = [self.scopes.get(port.name, ()) for port in op.inputs]
        return max(scopes, key=len, default=())

    def record(self, op: OpRecord, refs: Mapping[str, Ref]) -> None:
        """Note the scope of what `op` made (after it became nodes, `refs` naming them)."""
        scope = self.scope_of(op)
        for port in op.outputs:
            self.scopes.setdefault(port.name, scope)
            if port.name in refs:
                self.node_scopes.setdefault(refs[port.name].node, scope)

    def split(self, op: OpRecord) -> None:
        data = next(port.name for port in op.inputs if not port.is_argument)
        holds = self.clause(_predicate(op))
        self.split_sources.setdefault(holds.ref, set()).add(self.resolve(data, "a conditional"))
        outer = self.scopes.get(data, ())
        for index, port in enumerate(op.outputs):
            self.scopes[port.name] = (*outer, holds if index == 0 else _negated(holds))

    def branches(self, op: OpRecord) -> Branches:
        """The two sides of merge `op`; raises BranchesRefused when they are not two chains
        on the value the ``if`` started from."""
        data = [port.name for port in op.inputs if not port.is_argument]
        if len(data) != 2:
            raise BranchesRefused
        predicate_name = _predicate(op)
        holds = self.clause(predicate_name)
        predicate = holds.ref
        ends = [self.resolve(name, "a conditional") for name in data]
        true_start, true_side = self._chain(ends[0], holds)
        false_start, false_side = self._chain(ends[1], _negated(holds))
        if true_start != false_start or true_start not in self.split_sources.get(predicate, ()):
            raise BranchesRefused
        for port in op.outputs:
            self.scopes[port.name] = self.scopes.get(predicate_name, ())
        return Branches(
            predicate, self.scopes.get(predicate_name, ()), true_start, true_side, false_side
        )

    def join(self, branches: Branches) -> Ref:
        """Give every chain node its scope as its condition, let the false side read the end of
        the true side, and return the merged value (the last node of the joined chain)."""
        for node_id in (*branches.true_side, *branches.false_side):
            node = self.node(node_id)
            assert isinstance(node, Node)
            self.replace_node(replace(node, when=self.node_scopes.get(node_id, ())))
        if not branches.true_side:
            return Ref(branches.false_side[-1]) if branches.false_side else branches.start
        end = Ref(branches.true_side[-1])
        if branches.false_side:
            first = self.node(branches.false_side[0])
            assert isinstance(first, Node)
            # where it runs the true side passed its input through: reading either is the same
            self.replace_node(first.map_refs(lambda ref: end if ref == branches.start else ref))
            return Ref(branches.false_side[-1])
        return end

    def _chain(self, end: Ref, clause: Clause) -> tuple[Ref, tuple[str, ...]]:
        """The value a branch started from and its chain of nodes (first to run first), walking
        back from `end` along first inputs while the nodes are made under `clause`."""
        chain: list[str] = []
        ref = end
        stops = self.split_sources.get(clause.ref, set())
        while ref not in stops and clause in self.node_scopes.get(ref.node, ()):
            node = self.node(ref.node)
            if not isinstance(node, Node) or not node.inputs or ref.output != 0:
                raise BranchesRefused
            chain.append(ref.node)
            ref = node.inputs[0]
        return ref, tuple(reversed(chain))


def _negated(clause: Clause) -> Clause:
    return Clause(clause.ref, not clause.holds)


def _predicate(op: OpRecord) -> str:
    return next((port.name for port in op.inputs if port.is_argument), "")
