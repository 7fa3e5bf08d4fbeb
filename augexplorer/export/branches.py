"""Steps under conditions written as the ``if``/``elif``/``else`` blocks a DALI user writes.

Each step carries its condition (clauses that must all hold). On every path through the blocks
each step is either called or passes its first input through, in the graph's order, so the
blocks select per sample exactly what the live engine's combined predicates select. Consecutive
steps that branch on the same predicate share one ``if``/``else``; an ``else`` holding only
another ``if`` becomes ``elif``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..plan import Step
from ..spec import Clause, Ref

# (clauses still to test, step); None: on this path the step passes its input through
Item = tuple["tuple[Clause, ...] | None", Step]


def write_branches(
    items: Sequence[Item],
    line: Callable[[Step, bool], str],
    var: Callable[[Ref], str],
    top: bool = True,
) -> list[str]:
    """Source lines for `items`; `line(step, applied)` writes a step's call or its pass-through,
    `var(ref)` names a predicate; `top`: not inside another block."""
    lines: list[str] = []
    index = 0
    while index < len(items):
        clauses, step = items[index]
        if not clauses:  # runs on every sample of this path, or passes through on all of them
            lines.append(line(step, clauses is not None))
            index += 1
            continue
        predicate = clauses[0].ref
        end = index
        while end < len(items) and _branches_on(items[end][0], predicate):
            end += 1
        while items[end - 1][0] is None:  # pass-throughs after the last user are not its
            end -= 1
        lines += _if_block(items[index:end], predicate, line, var, top)
        index = end
    return lines


def _branches_on(clauses: tuple[Clause, ...] | None, predicate: Ref) -> bool:
    return clauses is None or (bool(clauses) and clauses[0].ref == predicate)


def _if_block(
    group: Sequence[Item],
    predicate: Ref,
    line: Callable[[Step, bool], str],
    var: Callable[[Ref], str],
    top: bool,
) -> list[str]:
    def side(holds: bool) -> list[Item]:
        return [
            (c[1:] if c is not None and c[0].holds == holds else None, step) for c, step in group
        ]

    when_true, when_false = side(True), side(False)
    made_here = {step.id for _, step in group}
    # inside another block a full if/else reads better: it can become an `elif`
    if (
        top
        and all(c is None for c, _ in when_false)
        and not any(step.inputs[0].node in made_here for _, step in group)
    ):
        # `x = y` then `if p: x = op(y)`: nothing to do where p is false
        defaults = [line(step, False) for _, step in group]
        body = _indent(write_branches(when_true, line, var, False))
        return [*defaults, f"if {var(predicate)}:", *body]
    body_true = write_branches(when_true, line, var, False)
    body_false = write_branches(when_false, line, var, False)
    lines = [f"if {var(predicate)}:", *_indent(body_true)]
    if _is_one_if(body_false):
        return [*lines, "el" + body_false[0], *body_false[1:]]
    return [*lines, "else:", *_indent(body_false)]


def _is_one_if(lines: list[str]) -> bool:
    """Whether `lines` are a single if/elif/else statement (so ``else: if`` reads ``elif``)."""
    if not lines or not lines[0].startswith("if "):
        return False
    return all(text.startswith((" ", "elif ", "else:")) or not text for text in lines[1:])


def _indent(lines: list[str]) -> list[str]:
    return [f"    {text}" if text else "" for text in lines]
