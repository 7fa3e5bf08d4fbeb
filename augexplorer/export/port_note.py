"""The exported module's header paragraphs for a graph ported from torchvision or albumentations:
first, loudly, the transforms of the original pipeline the port left out (the module does not
run them), then each ported node, the transform it stands for and its measured grade."""

from __future__ import annotations

import textwrap

from ..spec import GraphSpec, Node

BACKSLASH = chr(92)
TRIPLE_QUOTE = chr(34) * 3


def port_note(spec: GraphSpec) -> str:
    """What the port left out, then one line per transform ported (its nodes, where it came
    from, its grade); "" for a graph with neither."""
    return _not_ported_note(spec) + _ported_note(spec)


def _not_ported_note(spec: GraphSpec) -> str:
    """The transforms of the original pipeline this module does not run, and why; "" where the
    port left nothing out. First in the port's notes: training on this module alone trains on
    less than the original pipeline."""
    if not spec.not_ported:
        return ""
    count = len(spec.not_ported)
    what, them, they = (
        (f"{count} transforms", "them", "they were")
        if count != 1
        else ("1 transform", "it", "it was")
    )
    warning = (
        f"WARNING: NOT PORTED. This module does NOT run {what} of the pipeline its graph was "
        f"ported from: the port could not express {them} in DALI and left {them} out. Add "
        f"{them}, in the graph or after the loader, before training with it (once {they} "
        "added to the graph, spec.with_not_ported(()) clears this list):"
    )
    lines = ["", *textwrap.wrap(warning, 96)]
    for item in spec.not_ported:
        lines += _wrapped(f"- {item.describe()}")
    return "\n".join(lines) + "\n"


def _ported_note(spec: GraphSpec) -> str:
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
        lines += _wrapped(f"- {names}: {library} {transform}{where}, {grade}")
    return "\n".join(lines) + "\n"


def _wrapped(text: str) -> list[str]:
    """One item of a note, wrapped for the module's docstring."""
    # the note goes into the module's docstring: no backslash or triple quote may end it
    text = text.replace(BACKSLASH, "/").replace(TRIPLE_QUOTE, "'")
    return textwrap.wrap(text, 96, subsequent_indent="  ")


def _named(node: Node) -> str:
    edited = node.origin.edited if node.origin is not None else ()
    return f"{node.id} (edited since: {', '.join(edited)})" if edited else node.id
