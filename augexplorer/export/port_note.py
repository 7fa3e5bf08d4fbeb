"""The exported module's header paragraph for a graph ported from torchvision or albumentations:
each ported node, the transform it stands for and its measured grade."""

from __future__ import annotations

import textwrap

from ..spec import GraphSpec, Node

BACKSLASH = chr(92)
TRIPLE_QUOTE = chr(34) * 3


def port_note(spec: GraphSpec) -> str:
    """One line per transform ported (its nodes, where it came from, its grade); "" for a graph
    with no ported node."""
    by_transform: dict[tuple[str, str, int | None, str], list[Node]] = {}
    for node in spec.nodes:
        if isinstance(node, Node) and node.origin is not None:
            o = node.origin
            by_transform.setdefault((o.library, o.transform, o.line, o.fidelity), []).append(node)
    if not by_transform:
        return ""
    lines = [
        "",
        "Ported: these nodes stand for transforms of another library, each graded by parity",
        "measured against that library (exact: the same pixels for the same parameter values;",
        "distribution: the parameters drawn as the library draws them; approximate: differs, as",
        "augexplorer's import summary says):",
    ]
    for (library, transform, line, fidelity), nodes in by_transform.items():
        where = f" (line {line})" if line is not None else ""
        # an edited node no longer does what the transform did: its grade is of the port
        names = ", ".join(_named(node) for node in nodes)
        edited = any(node.origin is not None and node.origin.edited for node in nodes)
        grade = f"{fidelity} as ported, before the edits" if edited else fidelity
        text = f"- {names}: {library} {transform}{where}, {grade}"
        # the note goes into the module's docstring: no backslash or triple quote may end it
        text = text.replace(BACKSLASH, "/").replace(TRIPLE_QUOTE, "'")
        lines += textwrap.wrap(text, 96, subsequent_indent="  ")
    return "\n".join(lines) + "\n"


def _named(node: Node) -> str:
    edited = node.origin.edited if node.origin is not None else ()
    return f"{node.id} (edited since: {', '.join(edited)})" if edited else node.id
