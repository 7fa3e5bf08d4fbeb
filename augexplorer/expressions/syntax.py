"""An expression node's text, read safely: Python's `ast` with an allow-list. No DALI import.

What an expression may hold: the names of the node's inputs, numbers, the arithmetic (``+ - * /
// ** %``), comparison (``< <= > >= == !=``) and logical (``& | ^ ~``) operators, unary minus,
``.shape()`` and subscripts or slices with whole numbers (``images.shape()[1::-1] * 0.5``). The
text is parsed, never evaluated: the builder walks the checked tree with DALI's own DataNode
operators, and the exporter writes the tree back as source with the module's variable names.

Names are bound to the node's inputs in the order they first appear in the text; the numbers
outside subscripts are the node's editable constants ``c0``, ``c1``, ... in text order (a minus
sign in front of a number is part of it).
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

MAX_TEXT = 1000  # characters
MAX_DEPTH = 24  # nested operations
MAX_PARTS = 200  # names, numbers and operations in all
INT32 = (-(2**31), 2**31 - 1)

BINARY: dict[type[ast.operator], tuple[str, Callable[[Any, Any], Any]]] = {
    ast.Add: ("+", operator.add),
    ast.Sub: ("-", operator.sub),
    ast.Mult: ("*", operator.mul),
    ast.Div: ("/", operator.truediv),
    ast.FloorDiv: ("//", operator.floordiv),
    ast.Pow: ("**", operator.pow),
    ast.Mod: ("%", operator.mod),
    ast.BitAnd: ("&", operator.and_),
    ast.BitOr: ("|", operator.or_),
    ast.BitXor: ("^", operator.xor),
}
UNARY: dict[type[ast.unaryop], tuple[str, Callable[[Any], Any]]] = {
    ast.USub: ("-", operator.neg),
    ast.UAdd: ("+", operator.pos),
    ast.Invert: ("~", operator.invert),
}
COMPARE: dict[type[ast.cmpop], tuple[str, Callable[[Any, Any], Any]]] = {
    ast.Lt: ("<", operator.lt),
    ast.LtE: ("<=", operator.le),
    ast.Gt: (">", operator.gt),
    ast.GtE: (">=", operator.ge),
    ast.Eq: ("==", operator.eq),
    ast.NotEq: ("!=", operator.ne),
}
ALLOWED = (
    "names of the node's inputs, numbers, + - * / // ** %, < <= > >= == !=, & | ^ ~, "
    "unary minus, .shape() and subscripts with whole numbers (x[0], x[1::-1])"
)


class ExpressionError(ValueError):
    """Text that is not an expression the graph can hold; the message says what and the fix."""

    def __init__(self, message: str, fix: str) -> None:
        super().__init__(message)
        self.message = message
        self.fix = fix


@dataclass(frozen=True)
class Parsed:
    """A checked expression: its tree, its names in order of first appearance and its
    numbers (the editable constants) in text order."""

    text: str
    tree: ast.expr
    names: tuple[str, ...]
    constants: tuple[int | float, ...]


def parse(text: str) -> Parsed:
    """`text` checked against the allow-list, or an :class:`ExpressionError`."""
    if not isinstance(text, str):
        raise ExpressionError(
            f"the expression must be text, got {type(text).__name__}",
            "write it as text, e.g. '0.7 * a + 0.3 * b'",
        )
    if len(text) > MAX_TEXT:
        raise ExpressionError(
            f"the expression has {len(text):,} characters (at most {MAX_TEXT})",
            "split it over several expression nodes",
        )
    if not text.strip():
        raise ExpressionError("the expression is empty", "write one, e.g. '0.7 * a + 0.3 * b'")
    try:
        tree = ast.parse(text.strip(), mode="eval").body
    except SyntaxError as error:
        raise ExpressionError(
            f"the expression is not valid Python ({error.msg})",
            "check the brackets and operators",
        ) from None
    except (RecursionError, MemoryError, ValueError):
        raise ExpressionError(
            "the expression is nested too deeply", "split it over several expression nodes"
        ) from None
    checker = _Checker()
    checker.check(tree, 0)
    names = tuple(dict.fromkeys(name for _, name in sorted(checker.names)))
    constants = tuple(value for _, value in sorted(checker.constants))
    if not names:
        raise ExpressionError(
            "the expression reads no input",
            "name the node it reads (e.g. 'images * 0.5'); for a fixed value use a constant node",
        )
    return Parsed(text, tree, names, constants)


def _position(node: ast.AST) -> tuple[int, int]:
    return (getattr(node, "lineno", 0), getattr(node, "col_offset", 0))


def number_value(node: ast.expr) -> int | float | None:
    """The number a literal stands for (``-0.5`` included), or None when `node` is not one."""
    sign = 1
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        sign, node = -1, node.operand
    if (
        isinstance(node, ast.Constant)
        and isinstance(node.value, (int, float))
        and not isinstance(node.value, bool)
    ):
        return sign * node.value
    return None


class _Checker:
    def __init__(self) -> None:
        self.parts = 0
        self.names: list[tuple[tuple[int, int], str]] = []
        self.constants: list[tuple[tuple[int, int], int | float]] = []

    def check(self, node: ast.expr, depth: int) -> str:
        """Check `node`; returns what it is: ``"number"`` or ``"data"``."""
        self.parts += 1
        if self.parts > MAX_PARTS or depth > MAX_DEPTH:
            raise ExpressionError(
                f"the expression is too large (more than {MAX_PARTS} parts or {MAX_DEPTH} "
                "levels of nesting)",
                "split it over several expression nodes",
            )
        value = number_value(node)
        if value is not None:
            check_number(value)
            self.constants.append((_position(node), value))
            return "number"
        if isinstance(node, ast.Name):
            self.names.append((_position(node), node.id))
            return "data"
        if isinstance(node, ast.BinOp) and type(node.op) in BINARY:
            kinds = {self.check(node.left, depth + 1), self.check(node.right, depth + 1)}
            return self._operation(kinds, BINARY[type(node.op)][0])
        if isinstance(node, ast.UnaryOp) and type(node.op) in UNARY:
            kind = self.check(node.operand, depth + 1)
            return self._operation({kind}, UNARY[type(node.op)][0])
        if isinstance(node, ast.Compare):
            if len(node.ops) != 1 or type(node.ops[0]) not in COMPARE:
                raise ExpressionError(
                    "a chained comparison (a < b < c) cannot be computed per sample",
                    "compare twice and combine with &: (a < b) & (b < c)",
                )
            kinds = {self.check(node.left, depth + 1), self.check(node.comparators[0], depth + 1)}
            return self._operation(kinds, COMPARE[type(node.ops[0])][0])
        if isinstance(node, ast.Call):
            return self._shape_call(node, depth)
        if isinstance(node, ast.BoolOp) or (
            isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not)
        ):
            raise ExpressionError(
                f"{_describe(node)}: `and`, `or` and `not` cannot be computed per sample",
                "use & | ~ on comparisons: (a < 0) & ~(b > 1)",
            )
        if isinstance(node, ast.Subscript):
            if self.check(node.value, depth + 1) != "data":
                raise ExpressionError("a number cannot be subscripted", "subscript an input")
            indices = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            for index in indices:
                _check_index(index)
            return "data"
        raise ExpressionError(f"{_describe(node)} is not allowed in an expression", ALLOWED)

    def _operation(self, kinds: set[str], symbol: str) -> str:
        if kinds == {"number"}:
            raise ExpressionError(
                f"`{symbol}` between numbers only: DALI would never see it",
                "write the result as one number",
            )
        return "data"

    def _shape_call(self, node: ast.Call, depth: int) -> str:
        call = node.func
        if not (isinstance(call, ast.Attribute) and call.attr == "shape"):
            raise ExpressionError(f"{_describe(node)} is not allowed in an expression", ALLOWED)
        if node.args or node.keywords:
            raise ExpressionError(
                ".shape() takes no arguments here", "write .shape() (its values are int64)"
            )
        if self.check(call.value, depth + 1) != "data":
            raise ExpressionError("a number has no .shape()", "take the shape of an input")
        return "data"


def check_number(value: int | float) -> None:
    if isinstance(value, float) and not math.isfinite(value):
        raise ExpressionError(f"{value} is not a finite number", "write a finite number")
    if isinstance(value, int) and not INT32[0] <= value <= INT32[1]:
        raise ExpressionError(
            f"{value} does not fit in int32, the type DALI gives a whole number in arithmetic",
            "write it as a float (e.g. 3e9)",
        )


def _check_index(index: ast.expr) -> None:
    if isinstance(index, ast.Slice):
        for part in (index.lower, index.upper, index.step):
            if part is not None:
                _whole_number(part)
    else:
        _whole_number(index)


def _whole_number(node: ast.expr) -> None:
    value = number_value(node)
    if not isinstance(value, int):
        raise ExpressionError(
            f"the index {_describe(node)} is not a whole number",
            "index with whole numbers and slices of them (x[0], x[1::-1], x[:, :, 0])",
        )


def _describe(node: ast.AST) -> str:
    try:
        shown = ast.unparse(node)
    except (ValueError, RecursionError):  # pragma: no cover - unparse of a parsed tree
        shown = type(node).__name__
    shown = shown if len(shown) <= 40 else shown[:37] + "..."
    return f"`{shown}`"


# ---- walking the checked tree ----------------------------------------------------------------


def evaluate(
    parsed: Parsed,
    inputs: Mapping[str, Any],
    constants: Sequence[int | float] | None = None,
) -> Any:
    """The expression computed with Python's own operators on `inputs` (DataNodes, by name),
    with `constants` in place of its numbers: exactly what the same text does in DALI code."""
    values = list(parsed.constants if constants is None else constants)
    numbers = iter(values)
    positions = _number_nodes(parsed.tree)

    def walk(node: ast.expr) -> Any:
        if id(node) in positions:
            return next(numbers)
        if isinstance(node, ast.Name):
            return inputs[node.id]
        if isinstance(node, ast.BinOp):
            left = walk(node.left)
            return BINARY[type(node.op)][1](left, walk(node.right))
        if isinstance(node, ast.UnaryOp):
            return UNARY[type(node.op)][1](walk(node.operand))
        if isinstance(node, ast.Compare):
            left = walk(node.left)
            return COMPARE[type(node.ops[0])][1](left, walk(node.comparators[0]))
        if isinstance(node, ast.Call):
            assert isinstance(node.func, ast.Attribute)
            return walk(node.func.value).shape()
        if isinstance(node, ast.Subscript):
            return walk(node.value)[_index(node.slice)]
        raise AssertionError(f"unchecked expression part {ast.dump(node)}")

    return walk(parsed.tree)


def _number_nodes(tree: ast.expr) -> set[int]:
    """The tree nodes that are editable numbers (not those inside subscripts), by identity."""
    found: set[int] = set()

    def visit(node: ast.expr) -> None:
        if number_value(node) is not None:
            found.add(id(node))
            return
        if isinstance(node, ast.Subscript):
            visit(node.value)
            return
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                visit(child)

    visit(tree)
    return found


def _index(node: ast.expr) -> Any:
    if isinstance(node, ast.Tuple):
        return tuple(_index(element) for element in node.elts)
    if isinstance(node, ast.Slice):
        parts = (node.lower, node.upper, node.step)
        return slice(*(None if part is None else number_value(part) for part in parts))
    return number_value(node)


def render(
    parsed: Parsed,
    names: Mapping[str, str],
    constants: Sequence[int | float] | None = None,
) -> str:
    """The expression as source text: each name replaced as `names` says, each number by
    `constants` (by default its own). Only checked parts reach the text."""
    values = iter(parsed.constants if constants is None else constants)
    positions = _number_nodes(parsed.tree)

    def build(node: ast.expr) -> ast.expr:
        # a new tree: the parsed one is shared and stays as it is
        if id(node) in positions:
            return number_node(next(values))
        if isinstance(node, ast.Name):
            return ast.Name(id=names.get(node.id, node.id), ctx=ast.Load())
        if isinstance(node, ast.BinOp):
            return ast.BinOp(left=build(node.left), op=node.op, right=build(node.right))
        if isinstance(node, ast.UnaryOp):
            return ast.UnaryOp(op=node.op, operand=build(node.operand))
        if isinstance(node, ast.Compare):
            return ast.Compare(
                left=build(node.left), ops=node.ops, comparators=[build(node.comparators[0])]
            )
        if isinstance(node, ast.Call):
            assert isinstance(node.func, ast.Attribute)
            shape = ast.Attribute(value=build(node.func.value), attr="shape", ctx=ast.Load())
            return ast.Call(func=shape, args=[], keywords=[])
        if isinstance(node, ast.Subscript):
            return ast.Subscript(value=build(node.value), slice=node.slice, ctx=ast.Load())
        raise AssertionError(f"unchecked expression part {ast.dump(node)}")

    return ast.unparse(build(parsed.tree))


def number_node(value: int | float) -> ast.expr:
    """A literal for `value`; a negative one as unary minus, as Python parses ``-0.5``."""
    if value < 0 or (isinstance(value, float) and math.copysign(1.0, value) < 0):
        return ast.UnaryOp(op=ast.USub(), operand=ast.Constant(-value))
    return ast.Constant(value)
