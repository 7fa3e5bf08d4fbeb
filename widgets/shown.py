"""Which output the grid shows, and a caption that says plainly what it is.

After a failed edit the grid keeps the last good result; the caption then says whose output it
is and why it is not the current one, never "node X" above another node's images.
"""

from __future__ import annotations

import html
from dataclasses import dataclass

from augexplorer.engine import RunResult
from augexplorer.spec import Ref

from .failure import Failure


@dataclass(frozen=True)
class Shown:
    ref: Ref  # the output the tiles show
    node: str | None  # the node the large view and A/B follow (None: the graph's output)
    what: str  # HTML: whose output this is, and why when it is not the current one
    stale: bool  # True when the current graph failed and this is an older, good result


def _names(nodes: list[str]) -> str:
    return ", ".join(f"<b>{html.escape(n)}</b>" for n in nodes)


def shown(result: RunResult, selected: str | None, failure: Failure | None) -> Shown:
    final = result.final
    has_output = selected is not None and selected in result.steps
    ref = Ref(selected) if has_output and selected is not None else final
    node = ref.node if has_output else None
    name = f"<b>{html.escape(ref.node)}</b>"
    if failure is None:
        if selected is None:
            return Shown(ref, None, f"the graph's output (node {name})", False)
        if has_output:
            return Shown(ref, node, f"node {name}", False)
        return Shown(
            ref,
            None,
            f"the graph's output (node {name}): {_names([selected])} has no output",
            False,
        )
    failing = list(dict.fromkeys(p.node for p in failure.problems if p.node is not None))
    where = f"the graph fails at {_names(failing)}" if failing else "the graph fails"
    why = f"{where} (see the errors above)"
    if has_output and selected in failing:
        what = f"the last good output of {name}: its current settings fail (see the errors above)"
    elif has_output:
        what = f"the last good output of {name}: {why}"
    elif selected is not None:
        what = (
            f"the last good output of the graph (node {name}): {_names([selected])} has not run, "
            f"{why}"
        )
    else:
        what = f"the last good output of the graph (node {name}): {why}"
    return Shown(ref, node, what, True)
