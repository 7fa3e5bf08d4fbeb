"""The exported module's header paragraph on starting values nobody chose: the arguments that
still hold the value augexplorer gave a new operator so that it showed an effect at once
(color_twist's hue 20, saturation 1.4, ...). The panel marks them "starting value, not chosen
yet" while they hold it; the export says so too, so a colour cast is never shipped unseen."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from typing import Any

from ..catalog.hints import starting_values
from ..spec import GraphSpec, Node
from .literals import literal

BACKSLASH = chr(92)
TRIPLE_QUOTE = chr(34) * 3


def _same(value: Any, start: Any) -> bool:
    """Whether an argument's value is its starting value (a vector as a list or a tuple)."""
    if isinstance(value, (list, tuple)) and isinstance(start, (list, tuple)):
        return list(value) == list(start)
    return bool(value == start)


def unchosen_starting_values(spec: GraphSpec) -> dict[str, dict[str, Any]]:
    """Per node, the arguments that hold their operator's curated starting value: read from the
    values, as the panel's mark is, so a value set back to the starting one counts again."""
    found: dict[str, dict[str, Any]] = {}
    for node in spec.nodes:
        if not isinstance(node, Node) or node.origin is not None:
            continue  # a ported node's values are the ported code's own choice
        held = {
            name: node.args[name]
            for name, start in starting_values(node.op).items()
            if name in node.args and _same(node.args[name], start)
        }
        if held:
            found[node.id] = held
    return found


def _values(held: dict[str, Any]) -> str:
    return ", ".join(f"{name}={_shown(value)}" for name, value in held.items())


def _shown(value: Any) -> str:
    if isinstance(value, Sequence) and not isinstance(value, str):
        return "[" + ", ".join(_shown(v) for v in value) + "]"
    return literal(value)


def starting_note(spec: GraphSpec) -> str:
    """One line per node whose starting values stand; "" when every value was chosen."""
    found = unchosen_starting_values(spec)
    if not found:
        return ""
    lines = [
        "",
        "Starting values: these arguments hold the value augexplorer starts a new operator",
        "with (picked to show its effect at once, not for training), as the panel marks them",
        '("starting value, not chosen yet"). Set your own, or keep them knowingly:',
    ]
    for node_id, held in found.items():
        text = f"- {node_id}: {_values(held)}"
        # the note goes into the module's docstring: no backslash or triple quote may end it
        text = text.replace(BACKSLASH, "/").replace(TRIPLE_QUOTE, "'")
        lines += textwrap.wrap(text, 96, subsequent_indent="  ")
    return "\n".join(lines) + "\n"
