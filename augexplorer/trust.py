"""What Python code this process trusts, and the one place such code becomes a callable.

A graph can carry Python source for ``python_function`` nodes (:class:`PythonCode`). Loading,
validating or exporting the graph treats it as text. It is compiled and run only here, and only
after the user has trusted it, by digest: a changed source is new code and needs trusting again.
Trust lasts for this process and is never saved with a graph.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .errors import RunError, UntrustedCode
from .spec import GraphSpec, Node, PythonCode

_trusted: set[str] = set()


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


def untrusted_nodes(spec: GraphSpec) -> list[str]:
    """Nodes of `spec` with code that has not been trusted, in graph order."""
    return list(dict.fromkeys(node for node, code in python_code(spec) if not is_trusted(code)))


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
