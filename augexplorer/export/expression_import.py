"""Constants and DataNode expressions of a serialized DALI pipeline, back in the user's notation.

``Pipeline.serialize()`` records ``types.Constant`` (and NumPy arrays or lists DALI made
constants) as a ``Constant`` operator, each arithmetic, comparison or logical operator on data as
an ``_ArithmeticGenericOp`` whose ``expression_desc`` says what it computes (``mul($0:float32
&0)``: the first input times a float32 number; ``clamp(&0 $0:int32 $1:int32)``: the function of
``nvidia.dali.math``), ``.shape()`` as ``_Shape`` and ``x[...]`` as ``_TensorSubscript`` (a
per-sample index as its argument input ``at_0``, ``lo_1``, ...). Constants become constant nodes; the rest become expression nodes, a
chain such as ``0.7 * a + 0.3 * b`` one node when nothing else reads its parts. Rebuilt with
Python's operators, they make the same DALI operators with the same numbers.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, NoReturn

from ..expressions import CONSTANT, EXPRESSION
from ..expressions.checks import CONSTANT_TYPES
from ..expressions.nodes import TEXT, parsed
from ..expressions.syntax import MATH, MATH_FUNCTIONS, MAX_DEPTH, MAX_PARTS, number_node
from ..spec import Node, Ref
from . import refusals
from .protobuf import OpRecord

EXPRESSION_SCHEMAS = frozenset(
    {"_ArithmeticGenericOp", "_Shape", "_TensorSubscript", "_SubscriptDimCheck"}
)
CONSTANT_SCHEMA = "Constant"
SCHEMAS = EXPRESSION_SCHEMAS | {CONSTANT_SCHEMA}

# DALI's names of the operators behind Python's operators on DataNodes
_BINARY = {
    "add": ast.Add,
    "sub": ast.Sub,
    "mul": ast.Mult,
    "fdiv": ast.Div,
    "div": ast.FloorDiv,
    "pow": ast.Pow,
    "mod": ast.Mod,
    "bitand": ast.BitAnd,
    "bitor": ast.BitOr,
    "bitxor": ast.BitXor,
    "lshift": ast.LShift,
    "rshift": ast.RShift,
}
_COMPARE = {
    "eq": ast.Eq,
    "neq": ast.NotEq,
    "lt": ast.Lt,
    "leq": ast.LtE,
    "gt": ast.Gt,
    "geq": ast.GtE,
}
_UNARY = {"minus": ast.USub, "plus": ast.UAdd, "bitnot": ast.Invert}
_TOKEN = re.compile(r"\s*(?:(\w+)\(|(\))|&(\d+)|\$(\d+):(\w+))")
# Python's numbers in arithmetic, as DALI types them: only these are written back as numbers.
_NUMBER_TYPES = {"float32": float, "int32": int}
_EXPRESSION_FIX = (
    "an expression node holds + - * / // ** % << >>, comparisons, & | ^ ~, the functions of "
    f"nvidia.dali.math ({', '.join(sorted(MATH_FUNCTIONS))}), .shape() and subscripts: compute "
    "it with those or with an operator (fn.cast, fn.normalize, fn.brightness_contrast, ...)"
)
# A subscript's per-sample indices, as DALI names the argument inputs that carry them.
_INDEX_ARGUMENT = re.compile(r"(at|lo|hi|step)_(\d+)")
_MAX_INLINE = MAX_PARTS // 2


class _Leaf:
    """A data input of an expression being rebuilt: a graph reference, named when written."""

    def __init__(self, ref: Ref) -> None:
        self.ref = ref


@dataclass
class _Pending:
    """An expression read only by the next expression: it is written inside that one."""

    tree: ast.expr
    leaves: dict[str, Ref]  # placeholder name -> reference


class ExpressionImport:
    """Turns the constant and expression operators of one serialized pipeline into nodes.

    `ops` and `outputs` are the whole pipeline's (to know who reads what); `resolve` gives the
    graph reference of a DALI output, `fresh_id` a new node name, `add` adds a node and records
    its outputs, `node_ids` the names taken so far.
    """

    def __init__(
        self,
        ops: Sequence[OpRecord],
        outputs: Sequence[str],
        resolve: Callable[[str, str], Ref],
        fresh_id: Callable[[str], str],
        add: Callable[[Node, OpRecord], None],
        node_ids: Callable[[], set[str]],
    ) -> None:
        self.resolve = resolve
        self.fresh_id = fresh_id
        self.add = add
        self.node_ids = node_ids
        self.pending: dict[str, _Pending] = {}
        readers: dict[str, list[tuple[OpRecord, bool]]] = {}
        for op in ops:
            for port in op.inputs:
                readers.setdefault(port.name, []).append((op, port.is_argument))
        for name in outputs:
            readers.setdefault(name, []).append((OpRecord("", [], [], {}, ""), False))
        self.readers = readers
        self.placeholders = 0

    @staticmethod
    def handles(op: OpRecord) -> bool:
        return op.schema in SCHEMAS

    def convert(self, op: OpRecord) -> None:
        if op.schema == CONSTANT_SCHEMA:
            self.add(Node(self.fresh_id("constant"), CONSTANT, args=constant_args(op)), op)
            return
        for port in op.inputs:
            if port.is_argument and not (
                op.schema == "_TensorSubscript" and _INDEX_ARGUMENT.fullmatch(port.argument)
            ):
                _refuse(
                    op,
                    f"data fed as its argument {port.argument!r}",
                    "index with whole numbers or data nodes (x[0], x[:, :, channel])",
                )
        leaves: dict[str, Ref] = {}
        operands = [
            self._operand(port.name, leaves, op) for port in op.inputs if not port.is_argument
        ]
        indices = {
            port.argument: self._operand(port.name, leaves, op)
            for port in op.inputs
            if port.is_argument
        }
        tree = self._tree(op, operands, indices)
        output = op.outputs[0].name
        readers = self.readers.get(output, [])
        inline = (
            len(readers) == 1
            and readers[0][0].schema in EXPRESSION_SCHEMAS
            and not readers[0][1]
            and _parts(tree) <= _MAX_INLINE
            and _depth(tree) <= MAX_DEPTH // 2
        )
        if inline:
            self.pending[output] = _Pending(tree, leaves)
            return
        self.add(self._node(tree, leaves), op)

    # ---- building the tree --------------------------------------------------------------------
    def _operand(self, name: str, leaves: dict[str, Ref], op: OpRecord) -> ast.expr:
        pending = self.pending.pop(name, None)
        if pending is not None:
            leaves.update(pending.leaves)
            return pending.tree
        ref = self.resolve(name, f"{_kind(op)}{refusals.where(op)}")
        for placeholder, known in leaves.items():
            if known == ref:
                return ast.Name(id=placeholder, ctx=ast.Load())
        self.placeholders += 1
        placeholder = f"_input_{self.placeholders}"
        leaves[placeholder] = ref
        return ast.Name(id=placeholder, ctx=ast.Load())

    def _tree(
        self, op: OpRecord, operands: list[ast.expr], indices: dict[str, ast.expr]
    ) -> ast.expr:
        if op.schema == "_Shape":
            extra = {k for k in op.args if not k.startswith("_")} - {
                "device",
                "preserve",
                "preserve_name",
            }
            if extra or _value(op, "device", "cpu") != "cpu":
                _refuse(
                    op,
                    "`.shape()` on the GPU (or with an argument other than dtype)",
                    "write .shape() or .shape(dtype=...) (shapes on the CPU), and convert with "
                    "fn.cast",
                )
            shape = ast.Attribute(value=operands[0], attr="shape", ctx=ast.Load())
            return ast.Call(func=shape, args=[], keywords=[])
        if op.schema in ("_TensorSubscript", "_SubscriptDimCheck"):
            return ast.Subscript(value=operands[0], slice=_subscript(op, indices), ctx=ast.Load())
        desc = str(_value(op, "expression_desc", ""))
        return _Description(desc, op, operands).parse()

    def _node(self, tree: ast.expr, leaves: dict[str, Ref]) -> Node:
        """An expression node computing `tree`, its names those of the nodes it reads."""
        taken = self.node_ids()
        names: dict[str, str] = {}
        by_ref: dict[Ref, str] = {}  # parts written apart may read the same output: one name
        for placeholder, ref in leaves.items():
            if ref not in by_ref:
                base = ref.node if ref.output == 0 else f"{ref.node}_{ref.output}"
                if base == MATH:  # `math` in the text is nvidia.dali.math
                    base = f"{MATH}_node"
                name, index = base, 2
                while name in by_ref.values() or (name != ref.node and name in taken):
                    name, index = f"{base}_{index}", index + 1
                by_ref[ref] = name
            names[placeholder] = by_ref[ref]

        class _Name(ast.NodeTransformer):
            def visit_Name(self, node: ast.Name) -> ast.Name:
                return ast.Name(id=names.get(node.id, node.id), ctx=ast.Load())  # or `math`

        text = ast.unparse(_Name().visit(tree))
        # the inputs in the order their names first appear, as the text binds them
        by_name = {name: ref for ref, name in by_ref.items()}
        inputs = tuple(by_name[name] for name in parsed(text).names)
        return Node(self.fresh_id(_stem(tree)), EXPRESSION, inputs=inputs, args={TEXT: text})


class _Description:
    """DALI's ``expression_desc``: ``name(operand ...)`` with operands ``&N`` (input N),
    ``$N:type`` (constant N of that type) or a nested description."""

    def __init__(self, text: str, op: OpRecord, operands: list[ast.expr]) -> None:
        self.tokens = _tokens(text, op)
        self.position = 0
        self.op = op
        self.operands = operands

    def parse(self) -> ast.expr:
        tree = self._call()
        if self.position != len(self.tokens):
            _unreadable(self.op)
        return tree

    def _next(self) -> tuple[str, ...]:
        if self.position >= len(self.tokens):
            _unreadable(self.op)
        token = self.tokens[self.position]
        self.position += 1
        return token

    def _call(self) -> ast.expr:
        kind, name = self._next()[:2]
        if kind != "call":
            _unreadable(self.op)
        arguments: list[ast.expr] = []
        while True:
            token = self._next()
            if token[0] == "end":
                break
            if token[0] == "call":
                self.position -= 1
                arguments.append(self._call())
            elif token[0] == "input":
                index = int(token[1])
                if index >= len(self.operands):
                    _unreadable(self.op)
                arguments.append(self.operands[index])
            else:
                arguments.append(self._number(int(token[1]), token[2]))
        return self._operation(name, arguments)

    def _number(self, index: int, dtype: str) -> ast.expr:
        if dtype == "bool":  # Python's True and False, as DALI types them (`mask ^ True`)
            flags = _value(self.op, "integer_constants", [])
            if not isinstance(flags, list) or index >= len(flags):
                _unreadable(self.op)
            return ast.Constant(bool(flags[index]))
        kind = _NUMBER_TYPES.get(dtype)
        if kind is None:
            _refuse(
                self.op,
                f"a {dtype} number in arithmetic (`types.Constant(x, dtype=...)`)",
                "write a plain Python number: DALI makes it float32 or int32, and the graph "
                "keeps it exactly",
            )
        values = _value(self.op, "real_constants" if kind is float else "integer_constants", [])
        if not isinstance(values, list) or index >= len(values):
            _unreadable(self.op)
        value = values[index]
        return number_node(_float32(value) if kind is float else int(value))

    def _operation(self, name: str, arguments: list[ast.expr]) -> ast.expr:
        if name in _BINARY and len(arguments) == 2:
            return ast.BinOp(left=arguments[0], op=_BINARY[name](), right=arguments[1])
        if name in _COMPARE and len(arguments) == 2:
            return ast.Compare(
                left=arguments[0], ops=[_COMPARE[name]()], comparators=[arguments[1]]
            )
        if name in _UNARY and len(arguments) == 1:
            return ast.UnaryOp(op=_UNARY[name](), operand=arguments[0])
        if MATH_FUNCTIONS.get(name) == len(arguments):
            function = ast.Attribute(
                value=ast.Name(id=MATH, ctx=ast.Load()), attr=name, ctx=ast.Load()
            )
            return ast.Call(func=function, args=arguments, keywords=[])
        _refuse(self.op, f"a math function (`nvidia.dali.math.{name}`)", _EXPRESSION_FIX)


def _tokens(text: str, op: OpRecord) -> list[tuple[str, ...]]:
    tokens: list[tuple[str, ...]] = []
    position = 0
    text = text.strip()
    while position < len(text):
        found = _TOKEN.match(text, position)
        if found is None:
            _unreadable(op)
        call, end, index, constant, dtype = found.groups()
        if call:
            tokens.append(("call", call))
        elif end:
            tokens.append(("end",))
        elif index is not None:
            tokens.append(("input", index))
        else:
            tokens.append(("number", constant, dtype))
        position = found.end()
    return tokens


def _subscript(op: OpRecord, data: dict[str, ast.expr]) -> ast.expr:
    """The index of ``x[...]``: whole numbers from the arguments, names where `data` (by
    argument name, ``at_2``) holds a per-sample index."""

    def part(name: str) -> ast.expr | None:
        if name in data:
            return data[name]
        value = _value(op, name, None)
        return None if value is None else number_node(int(value))

    count = int(_value(op, "num_subscripts", 0))
    indices: list[ast.expr] = []
    for i in range(count):
        at = part(f"at_{i}")
        if at is not None:
            indices.append(at)
            continue
        lower, upper, step = (part(f"{kind}_{i}") for kind in ("lo", "hi", "step"))
        indices.append(ast.Slice(lower=lower, upper=upper, step=step))
    if len(indices) == 1:
        return indices[0]
    return ast.Tuple(elts=indices, ctx=ast.Load())


def constant_args(op: OpRecord) -> dict[str, Any]:
    """A constant node's arguments from DALI's ``Constant`` operator, value for value."""
    from nvidia.dali import types

    code = _value(op, "dtype", None)
    try:
        dtype = "FLOAT" if code is None else types.DALIDataType(int(code)).name
    except ValueError:
        dtype = str(code)
    if dtype not in CONSTANT_TYPES:
        _refuse(op, f"a constant of type {dtype}", f"use one of {', '.join(CONSTANT_TYPES)}")
    floats, ints = _value(op, "fdata", None), _value(op, "idata", None)
    values: list[Any]
    if CONSTANT_TYPES[dtype] is None and dtype != "BOOL":
        values = [_float32(v) for v in (floats if floats is not None else ints or [])]
    else:
        raw = ints if ints is not None else floats or []
        values = [_unsigned(dtype, int(v)) for v in raw]
        if dtype == "BOOL":
            values = [bool(v) for v in values]
    shape = _value(op, "shape", [len(values)])
    args: dict[str, Any] = {"values": values, "dtype": dtype, "shape": list(shape)}
    layout = _value(op, "layout", "")
    if layout:
        args["layout"] = str(layout)
    return args


def _unsigned(dtype: str, value: int) -> int:
    # protobuf carries int64: a uint64 above 2**63 arrives negative
    return value + 2**64 if dtype == "UINT64" and value < 0 else value


def _float32(value: float) -> float:
    """The shortest decimal that gives the same float32 (DALI's numbers travel as float32)."""
    import numpy as np

    return float(str(np.float32(value)))


def _value(op: OpRecord, name: str, default: Any) -> Any:
    argument = op.args.get(name)
    return default if argument is None else argument.value()


def _parts(tree: ast.expr) -> int:
    return sum(1 for _ in ast.walk(tree))


def _depth(tree: ast.AST) -> int:
    children = [child for child in ast.iter_child_nodes(tree) if isinstance(child, ast.expr)]
    return 1 + max((_depth(child) for child in children), default=0)


def _stem(tree: ast.expr) -> str:
    if isinstance(tree, ast.Compare):
        return "compare"
    if isinstance(tree, ast.Subscript):
        return "subscript"
    if isinstance(tree, ast.Call):
        function = tree.func
        if isinstance(function, ast.Attribute) and isinstance(function.value, ast.Name):
            return function.attr  # math.clamp(...): "clamp"
        return "shape"
    return "expr"


def _kind(op: OpRecord) -> str:
    return {"_Shape": "`.shape()`", "_ArithmeticGenericOp": "arithmetic"}.get(
        op.schema, "a subscript"
    )


def _refuse(op: OpRecord, what: str, fix: str) -> NoReturn:
    from .serialized import ImportRefused  # raised as the importer's own error

    raise ImportRefused(refusals.refusal(refusals.Construct(what, fix), op))


def _unreadable(op: OpRecord) -> NoReturn:
    _refuse(
        op,
        f"{_kind(op)} DALI describes as {str(_value(op, 'expression_desc', '?'))!r:.60}, "
        "which this version of augexplorer does not read",
        "write it with + - * / // ** % << >>, comparisons, & | ^ ~ and math functions",
    )
