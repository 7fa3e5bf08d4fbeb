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
    negatable: Callable[[Ref], bool] = lambda ref: False,
) -> list[str]:
    """Source lines for `items`; `line(step, applied)` writes a step's call or its pass-through,
    `var(ref)` names a predicate; `top`: not inside another block; `negatable(ref)`: whether
    ``not`` may be written before a predicate (DALI's ``not`` takes booleans only)."""
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
        lines += _if_block(items[index:end], predicate, line, var, top, negatable)
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
    negatable: Callable[[Ref], bool],
) -> list[str]:
    def side(holds: bool) -> list[Item]:
        return [
            (c[1:] if c is not None and c[0].holds == holds else None, step) for c, step in group
        ]

    when_true, when_false = side(True), side(False)
    made_here = {step.id for _, step in group}
    # inside another block a full if/else reads better: it can become an `elif`
    if top and not any(step.inputs[0].node in made_here for _, step in group):
        # `x = y` then `if p: x = op(y)` (or `if not p:`): nothing to do on the other side
        defaults = [line(step, False) for _, step in group]
        for holds, branch in ((True, when_true), (False, when_false)):
            other = when_false if holds else when_true
            if all(c is None for c, _ in other) and (holds or negatable(predicate)):
                body = write_branches(branch, line, var, False, negatable)
                if not holds and _is_one_if(body):
                    break  # `if p: ... elif q:` reads better than `if not p: if q:`
                test = var(predicate) if holds else f"not {var(predicate)}"
                return [*defaults, f"if {test}:", *_indent(body)]
    body_true = write_branches(when_true, line, var, False, negatable)
    body_false = write_branches(when_false, line, var, False, negatable)
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
