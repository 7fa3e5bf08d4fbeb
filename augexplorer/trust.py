"""What this process trusts a graph to do on this machine, and the one place Python code from a
graph becomes a callable.

A graph can carry Python source for ``python_function`` nodes (:class:`PythonCode`). Loading,
validating or exporting the graph treats it as text. It is compiled and run only here, and only
after the user has trusted it, by digest: a changed source is new code and needs trusting again.

Operators that act on the machine beyond their outputs (``dump_image`` writes files into the
current folder) are treated the same way: a graph shared with you must not write files because
you looked at it. They run only once their node (operator and arguments, by digest) is trusted.

Trust lasts for this process and is never saved with a graph.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Callable, Mapping
from typing import Any

from .errors import RunError, UntrustedCode
from .spec import GraphSpec, Node, PythonCode, Random

_trusted: set[str] = set()

PYTHON_CODE = "runs Python code from the graph"


def _always(_args: Mapping[str, Any]) -> bool:
    return True


def _saves_annotations(args: Mapping[str, Any]) -> bool:
    return bool(args.get("save_preprocessed_annotations", False))


# Operators with side effects on this machine: what they do, and whether a node's arguments
# switch it on. Found by reading every operator's documentation in the catalog for writes.
SIDE_EFFECT_OPS: dict[str, tuple[str, Callable[[Mapping[str, Any]], bool]]] = {
    "dump_image": ("writes image files into the current folder (dump_image)", _always),
    "readers.coco": (
        "writes preprocessed annotation files (readers.coco, save_preprocessed_annotations)",
        _saves_annotations,
    ),
}


def trust(code: PythonCode) -> None:
    """Trust `code` (its exact source and function name) for the rest of this process."""
    _trusted.add(code.digest)


def is_trusted(code: PythonCode) -> bool:
    return code.digest in _trusted


def forget_all() -> None:
    """Trust nothing any more (code trusted earlier needs trusting again)."""
    _trusted.clear()


def python_code(spec: GraphSpec) -> list[tuple[str, PythonCode]]:
    """(node id, code) for each piece of Python code in `spec`, in graph order."""
    return [
        (node.id, value)
        for node in spec.nodes
        if isinstance(node, Node)
        for value in node.args.values()
        if isinstance(value, PythonCode)
    ]


def side_effect(node: Node) -> str | None:
    """What `node` does to this machine beyond its outputs (None: nothing)."""
    found = SIDE_EFFECT_OPS.get(node.op)
    if found is None or not found[1](node.args):
        return None
    return found[0]


def node_digest(node: Node) -> str:
    """What trust in a node with side effects is recorded by: its operator and arguments (a
    changed argument, such as where it writes, needs trusting again). Seeds are left out, so a
    reroll does not ask again."""
    args = {
        name: repr(dataclasses.replace(value, seed=None) if isinstance(value, Random) else value)
        for name, value in sorted(node.args.items())
    }
    payload = json.dumps(["node", node.op, args]).encode()
    return hashlib.sha256(payload).hexdigest()


def needs_trust(spec: GraphSpec) -> list[tuple[str, str, str]]:
    """(node id, what it does, digest) for each thing in `spec` that runs only once trusted:
    each piece of Python code and each node with side effects, in graph order."""
    found: list[tuple[str, str, str]] = []
    for node in spec.nodes:
        if not isinstance(node, Node):
            continue
        for value in node.args.values():
            if isinstance(value, PythonCode):
                found.append((node.id, PYTHON_CODE, value.digest))
        effect = side_effect(node)
        if effect is not None:
            found.append((node.id, effect, node_digest(node)))
    return found


def has_side_effects(spec: GraphSpec) -> bool:
    return any(isinstance(node, Node) and side_effect(node) for node in spec.nodes)


def untrusted(spec: GraphSpec) -> dict[str, str]:
    """Node id -> what it does, for each node of `spec` that needs trust it has not been given."""
    reasons: dict[str, str] = {}
    for node, what, digest in needs_trust(spec):
        if digest not in _trusted and node not in reasons:
            reasons[node] = what
    return reasons


def untrusted_nodes(spec: GraphSpec) -> list[str]:
    """Nodes of `spec` with code or side effects that have not been trusted, in graph order."""
    return list(untrusted(spec))


def trust_graph(spec: GraphSpec, node_id: str | None = None) -> list[str]:
    """Trust the code and side effects of node `node_id` (of every node when None) for the
    rest of this process; returns the nodes trusted. Raises ValueError for a node that holds
    nothing to trust."""
    found = [(node, digest) for node, _what, digest in needs_trust(spec) if node_id in (None, node)]
    if node_id is not None and not found:
        raise ValueError(f"node {node_id!r} holds no Python code or side effect to trust")
    _trusted.update(digest for _node, digest in found)
    return list(dict.fromkeys(node for node, _digest in found))


def check_trusted(spec: GraphSpec) -> None:
    """Raise :class:`UntrustedCode` naming every node that needs trust it has not been given
    (and what each does), before anything of `spec` runs."""
    reasons = untrusted(spec)
    if not reasons:
        return
    if all(what == PYTHON_CODE for what in reasons.values()):
        raise UntrustedCode(list(reasons))
    raise UntrustedEffects(reasons)


class UntrustedEffects(UntrustedCode):
    """A graph with nodes that would act on this machine (write files, run code) and have not
    been trusted. Nothing of it ran; `reasons` says what each node would do."""

    def __init__(self, reasons: Mapping[str, str]) -> None:
        super().__init__(list(reasons))
        self.reasons = dict(reasons)
        self.fix = (
            "read the graph (its code, and what its nodes write where), then trust it: "
            'session.trust() (or session.trust(node)), the node\'s "Trust and run" button in '
            "the panel, or --trust on the command line"
        )
        what = "; ".join(f"node {node!r} {doing}" for node, doing in self.reasons.items())
        untrusted = (
            "and has not been trusted" if len(self.reasons) == 1 else "; none has been trusted"
        )
        self.args = (f"{what} {untrusted}, so nothing ran (fix: {self.fix})",)
        kinds = set(self.reasons.values())
        self.message = (
            f"{kinds.pop()}, and has not been trusted"
            if len(kinds) == 1
            else "acts on this machine (runs code or writes files) and has not been trusted"
        )


def namespace() -> dict[str, Any]:
    """What trusted code starts with: numpy, as ``np`` and ``numpy``; it imports the rest."""
    import numpy

    return {"np": numpy, "numpy": numpy, "__name__": "augexplorer_python_function"}


def to_callable(code: PythonCode, node: str) -> Callable[..., Any]:
    """The function `code` defines, compiled and run in a fresh namespace; refuses code that has
    not been trusted (:class:`UntrustedCode`) and names `node` in every error."""
    if not is_trusted(code):
        raise UntrustedCode([node])
    try:
        compiled = compile(code.source, f"<python_function {node}>", "exec")
    except (SyntaxError, ValueError) as error:
        where = f" (line {error.lineno})" if isinstance(error, SyntaxError) else ""
        raise RunError(
            node,
            f"its Python code does not compile: {getattr(error, 'msg', error)}{where}",
            fix="correct the code, then trust it again",
        ) from None
    scope = namespace()
    try:
        exec(compiled, scope)  # trusted by the user, who has read it
    except Exception as error:
        raise RunError(
            node,
            f"its Python code failed while defining {code.name}(): {type(error).__name__}: {error}",
            fix="correct the code, then trust it again",
        ) from None
    function = scope.get(code.name)
    if not callable(function):
        raise RunError(
            node,
            f"its Python code defines no function {code.name}()",
            fix=f"define {code.name}() in the code, or set the name of the function to call",
        )
    return function
