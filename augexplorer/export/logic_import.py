"""``and``, ``or`` and ``not`` of a serialized DALI pipeline, back as boolean expressions.

Under ``enable_conditionals=True`` DALI's autograph lowers ``a and b`` per sample with short
circuit: ``_conditional.validate_logical`` checks each side is a boolean, the values the right
side reads are split by the left side, and a ``_conditional.merge`` takes the right side where
the left holds and the left (false) elsewhere; ``a or b`` the other way round. ``not a`` is
``_conditional.not_``. DALI's logic takes booleans only, so on booleans ``&``, ``|`` and ``~``
give the same value on every sample: the right side computed on every sample changes nothing
where the left side decides. A combination becomes one expression node (``coin_flip & (angle <
0)``); ``not`` directly in an ``if`` becomes a clause that must not hold.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Callable, Sequence
from typing import Any

from ..expressions import EXPRESSION
from ..expressions.nodes import TEXT, parsed
from ..spec import Clause, Node, Ref
from .protobuf import OpRecord

VALIDATE = "_conditional.validate_logical"
NOT = "_conditional.not_"
SPLIT = "_conditional.split"
MERGE = "_conditional.merge"
_OPERATORS: dict[str, type[ast.operator]] = {"and": ast.BitAnd, "or": ast.BitOr}
_WORDS = {ast.BitAnd: "and", ast.BitOr: "or"}
_MAX_STEM = 40

Tree = tuple[ast.expr, dict[str, Ref]]  # an expression and the references its names stand for


class LogicRefused(Exception):
    """A logical operator in a form DALI's autograph does not make (the caller refuses it)."""


class LogicImport:
    """Turns the logical operators of one serialized pipeline into expression nodes.

    `fn_name` names an operator, `resolve` gives the graph reference of a DALI output, `node`
    the node of an id, `fresh_id` a new node name, `add` adds a node made for an operator,
    `remove` drops a node and `alias` makes a split output stand for the value it split."""

    def __init__(
        self,
        ops: Sequence[OpRecord],
        outputs: Sequence[str],
        fn_name: Callable[[OpRecord], str],
        resolve: Callable[[str, str], Ref],
        node: Callable[[str], Any],
        fresh_id: Callable[[str], str],
        add: Callable[[Node, OpRecord], None],
        remove: Callable[[str], None],
        alias: Callable[[str, str], None],
    ) -> None:
        self.fn_name = fn_name
        self.resolve = resolve
        self.node = node
        self.fresh_id = fresh_id
        self.add = add
        self.remove = remove
        self.alias = alias
        # who reads each output: (operator name, read as an argument input); pipeline outputs
        # count as a reader that is no operator
        self.readers: dict[str, list[tuple[str, bool]]] = {}
        for op in ops:
            for port in op.inputs:
                self.readers.setdefault(port.name, []).append((fn_name(op), port.is_argument))
        for name in outputs:
            self.readers.setdefault(name, []).append(("", False))
        self.validated: dict[str, OpRecord] = {}  # validate_logical output -> its operator
        self.pending: dict[str, Tree] = {}  # logic read only by more logic: written inside it
        self.negated: dict[str, Ref] = {}  # `not x` read only as an if predicate -> x
        self.placeholders = 0

    # ---- which operators are logic ------------------------------------------------------------
    def handles(self, op: OpRecord) -> bool:
        name = self.fn_name(op)
        if name in (VALIDATE, NOT):
            return True
        return name in (SPLIT, MERGE) and self._left_side(_predicate(op)) is not None

    def _left_side(self, name: str) -> OpRecord | None:
        op = self.validated.get(name)
        return op if op is not None and _text(op, "expression_side") == "left" else None

    def clause(self, name: str) -> Clause:
        """The clause an ``if`` on DALI output `name` tests: ``not x`` is x not holding."""
        if name in self.negated:
            return Clause(self.negated[name], False)
        return Clause(self.resolve(name, "an if condition"))

    # ---- conversion ---------------------------------------------------------------------------
    def convert(self, op: OpRecord) -> None:
        name = self.fn_name(op)
        if name == VALIDATE:
            if len(op.inputs) != 1 or len(op.outputs) != 1:
                raise LogicRefused
            self.validated[op.outputs[0].name] = op
        elif name == NOT:
            self._not(op)
        elif name == SPLIT:
            self._split(op)
        else:
            self._merge(op)

    def _split(self, op: OpRecord) -> None:
        """A value the right side reads, split by the left side: each part stands for the
        value itself (the right side is computed on every sample)."""
        predicate = _predicate(op)
        data = [port.name for port in op.inputs if not port.is_argument]
        if len(data) != 1:
            raise LogicRefused
        if data[0] == predicate:  # the left side split by itself: read only by the merge
            return
        for port in op.outputs:
            self.alias(port.name, data[0])

    def _merge(self, op: OpRecord) -> None:
        left_op = self._left_side(_predicate(op))
        assert left_op is not None
        operator = _OPERATORS.get(_text(left_op, "expression_name"))
        sides = [port.name for port in op.inputs if not port.is_argument]
        if operator is None or len(sides) != 2:
            raise LogicRefused
        # `and`: the right side where the left holds; `or`: where it does not
        right = self.validated.get(sides[0] if operator is ast.BitAnd else sides[1])
        if right is None or _text(right, "expression_side") != "right":
            raise LogicRefused
        leaves: dict[str, Ref] = {}
        left_tree = self._operand(left_op.inputs[0].name, leaves)
        right_tree = self._operand(right.inputs[0].name, leaves)
        tree = ast.BinOp(left=left_tree, op=operator(), right=right_tree)
        self._result(op, (tree, leaves))

    def _not(self, op: OpRecord) -> None:
        if len(op.inputs) != 1 or len(op.outputs) != 1:
            raise LogicRefused
        output = op.outputs[0].name
        leaves: dict[str, Ref] = {}
        operand = self._operand(op.inputs[0].name, leaves)
        readers = self.readers.get(output, [])
        if readers and all(reader in (SPLIT, MERGE) and arg for reader, arg in readers):
            # `if not x:` reads best as x not holding
            self.negated[output] = self._reference((operand, leaves), op)
            return
        self._result(op, (ast.UnaryOp(op=ast.Invert(), operand=operand), leaves))

    def _result(self, op: OpRecord, tree: Tree) -> None:
        """A node for a logic result, or a part of the logic that reads it."""
        output = op.outputs[0].name
        readers = self.readers.get(output, [])
        if len(readers) == 1 and readers[0][0] in (VALIDATE, NOT):
            self.pending[output] = tree
            return
        self.add(self._expression(tree), op)

    # ---- trees --------------------------------------------------------------------------------
    def _operand(self, name: str, leaves: dict[str, Ref]) -> ast.expr:
        """The tree of DALI output `name` inside a logic expression, its names in `leaves`."""
        if name in self.validated:  # a side checked to be a boolean: the value itself
            return self._operand(self.validated[name].inputs[0].name, leaves)
        if name in self.pending:
            tree, its_leaves = self.pending.pop(name)
            leaves.update(its_leaves)
            return tree
        ref = self.resolve(name, "a logical operator")
        node = self.node(ref.node)
        if (
            isinstance(node, Node)
            and node.op == EXPRESSION
            and ref.output == 0
            and len(self.readers.get(name, [])) == 1
        ):  # a comparison made for this logic alone (`a and angle < 0`): written inside it
            self.remove(node.id)
            return self._inlined(node, leaves)
        return ast.Name(id=self._leaf(ref, leaves), ctx=ast.Load())

    def _leaf(self, ref: Ref, leaves: dict[str, Ref]) -> str:
        """The placeholder name standing for `ref` in `leaves` (added where it is new; unique
        across the pipeline, as trees written apart meet in one expression)."""
        for placeholder, known in leaves.items():
            if known == ref:
                return placeholder
        self.placeholders += 1
        placeholder = f"_logic_{self.placeholders}"
        leaves[placeholder] = ref
        return placeholder

    def _inlined(self, node: Node, leaves: dict[str, Ref]) -> ast.expr:
        """Expression node `node`'s tree with its names as placeholders of `leaves` (at import
        its numbers are those of its text)."""
        checked = parsed(str(node.args[TEXT]))
        names = {
            name: self._leaf(ref, leaves)
            for name, ref in zip(checked.names, node.inputs, strict=True)
        }
        return _renamed(checked.tree, names)

    def _reference(self, tree: Tree, op: OpRecord) -> Ref:
        """A reference to what `tree` computes: the node it names, or a new expression node."""
        expression, leaves = tree
        if isinstance(expression, ast.Name):
            return leaves[expression.id]
        node = self._expression(tree)
        self.add(node, OpRecord(op.schema, [], [], {}, ""))
        return Ref(node.id)

    def _expression(self, tree: Tree) -> Node:
        """An expression node computing `tree`, its names those of the nodes it reads."""
        expression, leaves = tree
        names: dict[str, str] = {}
        by_ref: dict[Ref, str] = {}
        for placeholder, ref in leaves.items():
            if ref not in by_ref:
                base = ref.node if ref.output == 0 else f"{ref.node}_{ref.output}"
                name, index = base, 2
                while name in by_ref.values():
                    name, index = f"{base}_{index}", index + 1
                by_ref[ref] = name
            names[placeholder] = by_ref[ref]
        text = ast.unparse(_renamed(expression, names))
        by_name = {name: ref for ref, name in by_ref.items()}
        inputs = tuple(by_name[name] for name in parsed(text).names)
        return Node(self.fresh_id(_stem(expression, names)), EXPRESSION, inputs, {TEXT: text})


def _renamed(tree: ast.expr, names: dict[str, str]) -> ast.expr:
    class _Rename(ast.NodeTransformer):
        def visit_Name(self, node: ast.Name) -> ast.Name:
            return ast.Name(id=names.get(node.id, node.id), ctx=ast.Load())

    renamed: ast.expr = _Rename().visit(copy.deepcopy(tree))
    return renamed


def _stem(tree: ast.expr, names: dict[str, str]) -> str:
    """A node name that reads as the logic: ``coin_flip_and_compare``, ``not_coin_flip``."""

    def words(part: ast.expr) -> str:
        if isinstance(part, ast.Name):
            return names.get(part.id, part.id)
        if isinstance(part, ast.BinOp) and type(part.op) in _WORDS:
            return f"{words(part.left)}_{_WORDS[type(part.op)]}_{words(part.right)}"
        if isinstance(part, ast.UnaryOp) and isinstance(part.op, ast.Invert):
            return f"not_{words(part.operand)}"
        return "compare" if isinstance(part, ast.Compare) else "expr"

    stem = words(tree)
    return stem if len(stem) <= _MAX_STEM else "condition"


def _predicate(op: OpRecord) -> str:
    return next((port.name for port in op.inputs if port.is_argument), "")


def _text(op: OpRecord, name: str) -> str:
    argument = op.args.get(name)
    return str(argument.value()) if argument is not None else ""
