"""An exported module whose pipeline code was edited by hand, imported back.

Importing an exported module reads its ``GRAPH`` (and its schedule tables), never its code, so
an edit to the ``@pipeline_def`` function (``contrast=1.4`` made ``1.9``) does not come back, and
a later export from the imported graph would write over it. The import says so: the function is
compared, as Python's syntax tree (layout and comments aside), with what this version of
augexplorer writes for the module's graph.
"""

from __future__ import annotations

import ast
from typing import get_args

from ..spec import GraphSpec
from .fusion import FuseMode


class CodeEdited(UserWarning):
    """An imported module's pipeline code is not what its GRAPH exports to."""


def _pipeline_function(tree: ast.Module) -> str | None:
    """The module's ``*_pipeline`` function as a syntax tree dump, or None."""
    for statement in tree.body:
        if isinstance(statement, ast.FunctionDef) and statement.name.endswith("_pipeline"):
            return ast.dump(statement)
    return None


def edited_code_note(text: str, graph: GraphSpec, where: str) -> str | None:
    """What to say where the module `text` (read from `where`) has a pipeline function that is
    not what its `graph` exports to, with any decoder fusion; None where it is."""
    from .codegen import generate

    found = _pipeline_function(ast.parse(text))
    if found is None:
        return None
    for fuse in get_args(FuseMode):
        try:
            written = generate(graph, fuse_decoders=fuse, formatted=False)
        except Exception:  # a graph this version cannot export: nothing to compare with
            return None
        if _pipeline_function(ast.parse(written)) == found:
            return None
    return (
        f"{where}: its pipeline function is not what augexplorer writes for its GRAPH (edited "
        "by hand, or written by another version): the graph imported is GRAPH's, without the "
        "code's edits, and exporting it again writes over them (fix: make the change in the "
        "graph, in the panel or with spec.set_arg, and export again)"
    )
