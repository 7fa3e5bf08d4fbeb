"""Expressions and constants in a graph: DataNode arithmetic written in the user's notation, and
constant arrays (:mod:`.nodes` for the spec side, :mod:`.checks` for validation,
:mod:`.lowering` for DALI calls and exported source, :mod:`.imported` for serialized pipelines).

Only names live here, so the spec can name these node kinds without importing anything.
"""

EXPRESSION = "expression"
CONSTANT = "constant"
GRAPH_OPS = frozenset({EXPRESSION, CONSTANT})
