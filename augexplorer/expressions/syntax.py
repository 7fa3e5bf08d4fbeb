"""An expression node's text, read safely: Python's `ast` with an allow-list. No DALI import.

What an expression may hold: the names of the node's inputs, numbers, the arithmetic (``+ - * /
// ** % << >>``), comparison (``< <= > >= == !=``) and logical (``& | ^ ~``) operators, unary minus,
the functions of ``nvidia.dali.math`` written as ``math.clamp(images * 2, 0, 255)``, ``.shape()``
and subscripts or slices with whole numbers or inputs (``images.shape()[1::-1] * 0.5``,
``images[:, :, channel]``). The text is parsed, never evaluated: the builder walks the checked
tree with DALI's own DataNode operators and math functions, and the exporter writes the tree back
as source with the module's variable names.

Names are bound to the node's inputs in the order they first appear in the text (``math`` is
DALI's module, never an input); the numbers outside subscripts are the node's editable constants
``c0``, ``c1``, ... in text order (a minus sign in front of a number is part of it).
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeGuard

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
    ast.LShift: ("<<", operator.lshift),
    ast.RShift: (">>", operator.rshift),
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
# The functions of nvidia.dali.math in DALI 2.4, with how many arguments each takes (a test
# checks this against the installed DALI). Each is DALI's `_ArithmeticGenericOp` under that name.
MATH = "math"
MATH_FUNCTIONS: dict[str, int] = {
    **dict.fromkeys(
        (
            *("abs", "fabs", "sqrt", "rsqrt", "cbrt", "exp", "log", "log2", "log10"),
            *("floor", "ceil", "sin", "cos", "tan", "asin", "acos", "atan"),
            *("sinh", "cosh", "tanh", "asinh", "acosh", "atanh"),
        ),
        1,
    ),
    **dict.fromkeys(("min", "max", "pow", "fpow", "atan2"), 2),
    "clamp": 3,
}
ALLOWED = (
    "names of the node's inputs, numbers, True and False, + - * / // ** % << >>, "
    "< <= > >= == !=, & | ^ ~, unary minus, math functions (math.clamp(x, 0, 255)), .shape() "
    "and subscripts with whole numbers or inputs (x[0], x[1::-1], x[:, :, channel])"
)
INDEX_FIX = "index with whole numbers, inputs and slices of them (x[0], x[1::-1], x[:, :, channel])"


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


def is_bool(node: ast.AST) -> TypeGuard[ast.Constant]:
    """Whether `node` is ``True`` or ``False``."""
    return isinstance(node, ast.Constant) and isinstance(node.value, bool)


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
        if is_bool(node):  # `mask ^ True`: DALI makes it a bool constant; not an edited number
            return "number"
        if isinstance(node, ast.Name):
            self._name(node)
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
            if math_function(node) is not None or _on_math(node.func):
                return self._math_call(node, depth)
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
                self._index(index)
            return "data"
        raise ExpressionError(f"{_describe(node)} is not allowed in an expression", ALLOWED)

    def _name(self, node: ast.Name) -> None:
        if node.id == MATH:
            raise ExpressionError(
                "`math` is DALI's nvidia.dali.math here, not an input",
                "call one of its functions (math.clamp(x, 0, 255)), or name the input otherwise",
            )
        self.names.append((_position(node), node.id))

    def _index(self, index: ast.expr) -> None:
        """A subscript's index: a whole number or an input (a per-sample integer), or a slice
        of them."""
        parts = [index.lower, index.upper, index.step] if isinstance(index, ast.Slice) else [index]
        for part in parts:
            if part is None:
                continue
            if isinstance(part, ast.Name):
                self._name(part)
            elif not isinstance(number_value(part), int):
                raise ExpressionError(
                    f"the index {_describe(part)} is neither a whole number nor an input",
                    INDEX_FIX + "; compute a per-sample index in its own expression node",
                )

    def _math_call(self, node: ast.Call, depth: int) -> str:
        name = math_function(node)
        if name is None:
            assert isinstance(node.func, ast.Attribute)
            raise ExpressionError(
                f"nvidia.dali.math has no function {node.func.attr!r}",
                f"use one of {', '.join(sorted(MATH_FUNCTIONS))}",
            )
        count = MATH_FUNCTIONS[name]
        written = f"math.{name}({', '.join('xyz'[:count])})"
        if node.keywords or any(isinstance(arg, ast.Starred) for arg in node.args):
            raise ExpressionError(
                f"math.{name} takes its arguments in order, without names", f"write {written}"
            )
        if len(node.args) != count:
            raise ExpressionError(
                f"math.{name} takes {count} argument(s), got {len(node.args)}", f"write {written}"
            )
        kinds = {self.check(arg, depth + 1) for arg in node.args}
        if kinds == {"number"}:
            raise ExpressionError(
                f"math.{name} of numbers only: DALI would never see it",
                "write the result as one number, or apply it to an input",
            )
        return "data"

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


def math_function(node: ast.AST) -> str | None:
    """The name of the nvidia.dali.math function `node` calls (``math.clamp(...)``), or None."""
    if (
        isinstance(node, ast.Call)
        and _on_math(node.func)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in MATH_FUNCTIONS
    ):
        return node.func.attr
    return None


def _on_math(func: ast.expr) -> bool:
    return (
        isinstance(func, ast.Attribute)
        and isinstance(func.value, ast.Name)
        and func.value.id == MATH
    )


def index_names(tree: ast.expr) -> set[str]:
    """The names used as subscript indices in `tree` (per-sample indices, read on the CPU)."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript):
            indices = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            for index in indices:
                parts = (
                    [index.lower, index.upper, index.step]
                    if isinstance(index, ast.Slice)
                    else [index]
                )
                found.update(part.id for part in parts if isinstance(part, ast.Name))
    return found


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
    math_module: Any = None,
) -> Any:
    """The expression computed with Python's own operators on `inputs` (DataNodes, by name),
    with `constants` in place of its numbers and `math_module`'s functions (``nvidia.dali.math``)
    for its math calls: exactly what the same text does in DALI code."""
    values = list(parsed.constants if constants is None else constants)
    numbers = iter(values)
    positions = _number_nodes(parsed.tree)

    def walk(node: ast.expr) -> Any:
        if id(node) in positions:
            return next(numbers)
        if is_bool(node):
            return node.value
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
            name = math_function(node)
            if name is not None:
                assert math_module is not None, "a math call needs nvidia.dali.math"
                arguments = [walk(argument) for argument in node.args]
                return getattr(math_module, name)(*arguments)
            assert isinstance(node.func, ast.Attribute)
            return walk(node.func.value).shape()
        if isinstance(node, ast.Subscript):
            return walk(node.value)[_index(node.slice, inputs)]
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


def _index(node: ast.expr, inputs: Mapping[str, Any]) -> Any:
    if isinstance(node, ast.Tuple):
        return tuple(_index(element, inputs) for element in node.elts)
    if isinstance(node, ast.Slice):
        parts = (node.lower, node.upper, node.step)
        return slice(*(None if part is None else _index(part, inputs) for part in parts))
    if isinstance(node, ast.Name):
        return inputs[node.id]
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
        if is_bool(node):
            return ast.Constant(node.value)
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
            name = math_function(node)
            if name is not None:
                function = ast.Attribute(
                    value=ast.Name(id=MATH, ctx=ast.Load()), attr=name, ctx=ast.Load()
                )
                return ast.Call(func=function, args=[build(a) for a in node.args], keywords=[])
            assert isinstance(node.func, ast.Attribute)
            shape = ast.Attribute(value=build(node.func.value), attr="shape", ctx=ast.Load())
            return ast.Call(func=shape, args=[], keywords=[])
        if isinstance(node, ast.Subscript):
            return ast.Subscript(value=build(node.value), slice=index(node.slice), ctx=ast.Load())
        raise AssertionError(f"unchecked expression part {ast.dump(node)}")

    def index(node: ast.expr) -> ast.expr:
        """A subscript's index with its input names replaced; its numbers stay as written."""
        if isinstance(node, ast.Tuple):
            return ast.Tuple(elts=[index(element) for element in node.elts], ctx=ast.Load())
        if isinstance(node, ast.Slice):
            lower, upper, step = (
                None if part is None else index(part)
                for part in (node.lower, node.upper, node.step)
            )
            return ast.Slice(lower=lower, upper=upper, step=step)
        if isinstance(node, ast.Name):
            return ast.Name(id=names.get(node.id, node.id), ctx=ast.Load())
        return node

    return ast.unparse(build(parsed.tree))


def number_node(value: int | float) -> ast.expr:
    """A literal for `value`; a negative one as unary minus, as Python parses ``-0.5``."""
    if value < 0 or (isinstance(value, float) and math.copysign(1.0, value) < 0):
        return ast.UnaryOp(op=ast.USub(), operand=ast.Constant(-value))
    return ast.Constant(value)
