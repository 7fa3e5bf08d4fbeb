"""A history step as the toolbar's menu shows it: its number, what it did, and where the graph
is now. A menu's box cannot wrap its text, and cut at its right edge a long step lost the value
it gave and the "◀ now" mark; a step too long for the box at a 1280 px window is cut in the
middle instead, at words, keeping what was edited and the value it was given (the whole of it
on hover)."""

from __future__ import annotations

from .history import Step

# What the menu's box shows whole at every window width: about 340 px of 12 px text, which
# holds 60 characters of a step's usual mix of names, digits and commas (a list of numbers is
# the widest).
LABEL_CHARS = 58
CUT = " … "
# characters a cut may give up to fall between words, at the start and at the end
HEAD_SLACK, TAIL_SLACK = 3, 8
TAIL_LEAST = 12  # characters of the end kept at least: the value given


def step_label(step: Step, chars: int | None = LABEL_CHARS) -> str:
    """`step` as the menu lists it, in at most `chars` characters (None: whole)."""
    mark = "  ◀ now" if step.current else "  (undone)" if step.undone else ""
    number = f"{step.index}. "
    room = None if chars is None else chars - len(number) - len(mark)
    return f"{number}{shortened(step.label, room)}{mark}"


def shortened(text: str, chars: int | None) -> str:
    """`text` in at most `chars` characters: cut in the middle at words, with " … ", keeping
    its start (the node and argument edited) and its end (the value given, a path's file)."""
    if chars is None or len(text) <= chars:
        return text
    keep = chars - len(CUT)
    # the first word whole where it leaves the end some room: the node and argument edited
    head_chars = max(keep // 2, min(text.find(" "), keep - TAIL_LEAST))
    head, tail = text[:head_chars], text[len(text) - (keep - head_chars) :]
    # at a word where that gives up a few characters only (the end: at a path's folder too),
    # else mid-word
    end = head.rfind(" ")
    if end >= len(head) - HEAD_SLACK:
        head = head[:end]
    start = min((i for i in (tail.find(" "), tail.find("/")) if i >= 0), default=-1)
    if 0 <= start < TAIL_SLACK:
        tail = tail[start + 1 :] if tail[start] == " " else tail[start:]
    return f"{head.rstrip(' ,')}{CUT}{tail.lstrip()}"
