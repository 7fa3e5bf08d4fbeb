"""Conditions on nodes (``Node.when``): checked at the edge and lowered to one predicate step.

A node with a condition runs through DALI conditionals where every clause holds and passes its
first input through elsewhere, exactly as apply-with-probability does with its coin flip. The
live engine and the builder need a single per-sample boolean, so a condition of more than one
clause, or a negated one, becomes a ``<node>_when`` expression step (``(a != 0) & (b == 0)``);
the exporter writes the clauses as ``if``/``elif``/``else`` blocks instead, which select the
same samples.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping

from .errors import Problem
from .expressions import CONSTANT, EXPRESSION
from .expressions.nodes import TEXT, parsed
from .plan import Step
from .spec import Clause, Node, Ref

COIN_FLIP = "random.coin_flip"
_PREDICATE_FIX = (
    "use a coin flip, a comparison expression (such as 'angle < 0') or booleans combined with "
    "& | ~ (such as 'flip & (angle < 0)') as the predicate"
)


def condition_problems(
    node: Node,
    outputs: int,
    steps: Mapping[str, Step],
    node_ids: set[str],
) -> list[Problem]:
    """What is wrong with `node`'s condition: `outputs` is the node's output count, `steps`
    the steps validated so far (predicates come first), `node_ids` every node of the graph."""
    problems: list[Problem] = []

    def problem(message: str, fix: str) -> None:
        problems.append(Problem(message, node.id, "when", fix))

    if node.probability is not None:
        problem(
            "a node has either an apply probability or a condition, not both",
            "put the coin flip in the condition (a random.coin_flip node with dtype BOOL) "
            "or remove the condition",
        )
    if not node.inputs:
        problem(
            "only a node with an input can run under a condition (elsewhere its input passes "
            "through)",
            "remove the condition",
        )
    if outputs != 1:
        problem("only a single-output node can run under a condition", "remove the condition")
    seen: set[Clause] = set()
    for clause in node.when:
        ref = clause.ref
        if clause in seen:
            problem(f"the condition names {clause.describe()!r} twice", "remove one of them")
        seen.add(clause)
        if Clause(ref, not clause.holds) in node.when:
            problem(
                f"the condition asks for {ref} to be both true and false: it never holds",
                "remove one of the two clauses",
            )
        if ref.node == node.id:
            problem("a node cannot be its own predicate", "pick an earlier node's output")
            continue
        if ref.node not in node_ids:
            problem(f"the predicate {str(ref)!r} does not exist", "connect an existing node")
            continue
        step = steps.get(ref.node)
        if step is None:
            continue  # a problem of its own (or a cycle), reported at that node
        reason = _not_a_predicate(step, ref, steps)
        if reason:
            problem(f"the predicate {str(ref)!r} {reason}", _PREDICATE_FIX)
    return problems


def _not_a_predicate(step: Step, ref: Ref, steps: Mapping[str, Step]) -> str | None:
    """Why output `ref` of `step` cannot decide per sample whether a node runs (None: it can);
    `steps` hold the steps it reads."""
    if ref.output >= step.output_count:
        return f"reads output {ref.output} of a node with {step.output_count} output(s)"
    if step.device != "cpu":
        return f"runs on the {step.device.upper()}; DALI decides branches on the CPU"
    if step.op == COIN_FLIP and step.args.get("shape") not in (None, [], ()):
        return "draws a vector per sample, not one value"
    if _truth(step, steps) is None:
        return "is not a boolean per sample"
    return None


def is_boolean(ref: Ref, steps: Mapping[str, Step]) -> bool:
    """Whether output `ref` of one of `steps` is a boolean per sample (DALI's ``not`` takes
    nothing else)."""
    step = steps.get(ref.node)
    return step is not None and ref.output == 0 and _truth(step, steps) == "bool"


def _truth(step: Step, steps: Mapping[str, Step], depth: int = 0) -> str | None:
    """What kind of truth value `step` gives per sample: ``"bool"`` (a boolean), ``"flag"``
    (0 or 1, as an int32 coin flip) or None (neither, or not known)."""
    if step.op == COIN_FLIP:
        return "bool" if step.args.get("dtype") == "BOOL" else "flag"
    if step.args.get("dtype") == "BOOL" and step.role in ("node", "random"):
        return "bool"
    if step.op == CONSTANT:
        return "bool" if step.args.get("dtype") == "BOOL" else None
    if step.op != EXPRESSION or depth > 8:
        return None
    text = parsed(str(step.args.get(TEXT, "")))
    inputs = dict(zip(text.names, step.inputs, strict=False))

    def name_truth(name: str) -> str | None:
        ref = inputs.get(name)
        read = steps.get(ref.node) if ref is not None else None
        if read is None or ref is None or ref.output != 0:
            return None
        return _truth(read, steps, depth + 1)

    return _tree_truth(text.tree, name_truth)


def _tree_truth(tree: ast.expr, name_truth: Callable[[str], str | None]) -> str | None:
    """The kind of truth value of an expression: comparisons give booleans, ``~`` keeps a
    boolean one (on 0/1 integers it would not negate), ``& | ^`` keep booleans and flags."""
    if isinstance(tree, ast.Compare):
        return "bool"
    if isinstance(tree, ast.Name):
        return name_truth(tree.id)
    if isinstance(tree, ast.UnaryOp) and isinstance(tree.op, ast.Invert):
        return "bool" if _tree_truth(tree.operand, name_truth) == "bool" else None
    if isinstance(tree, ast.BinOp) and isinstance(tree.op, (ast.BitAnd, ast.BitOr, ast.BitXor)):
        sides = {_tree_truth(side, name_truth) for side in (tree.left, tree.right)}
        if sides == {"bool"}:
            return "bool"
        return "flag" if None not in sides else None
    return None


def predicate(node: Node, fresh_id: Callable[[str], str], add: Callable[[Step], None]) -> Ref:
    """The one per-sample boolean that says where `node` runs: its clause's output itself when
    there is one clause that must hold, else a ``<node>_when`` expression step (added with
    `add`) that combines the clauses."""
    clauses = node.when
    if len(clauses) == 1 and clauses[0].holds:
        return clauses[0].ref
    names = [f"p{index}" for index in range(len(clauses))]
    # `!= 0` / `== 0` read an int32 coin flip and a boolean alike, and give DALI booleans
    parts = [
        f"({name} {'!=' if clause.holds else '=='} 0)"
        for name, clause in zip(names, clauses, strict=True)
    ]
    step_id = fresh_id(f"{node.id}_when")
    add(
        Step(
            id=step_id,
            op=EXPRESSION,
            device="cpu",
            role="when",
            origin=node.id,
            inputs=tuple(clause.ref for clause in clauses),
            args={TEXT: " & ".join(parts)},
        )
    )
    return Ref(step_id)
