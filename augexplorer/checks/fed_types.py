"""An argument fed by a random draw of another type: DALI converts no argument input, so a
float argument fed whole numbers (``resize_x=fn.random.uniform(..., dtype=types.INT32)``) or a
whole-number one fed floats (``quality=fn.random.uniform(range=[30, 90])``), or either fed a
comparison's booleans (``horizontal=fn.random.uniform(range=[0, 1]) > 0.5``), fails when the
pipeline runs ("got int32 data where float is expected"). Checked here, where the node, the
argument and the draw can all be named."""

from __future__ import annotations

import ast

from ..catalog import ArgInfo
from ..expressions import EXPRESSION
from ..expressions.nodes import TEXT, parsed
from ..expressions.syntax import ExpressionError
from ..plan import Step
from .context import CheckContext

# The type a draw has when the node gives no dtype (DALI 2.4's documented defaults).
DRAWN_BY_DEFAULT = {
    "random.uniform": "FLOAT",
    "random.normal": "FLOAT",
    "random.beta": "FLOAT",
    "random.coin_flip": "INT32",
}
# Argument types a draw can feed; DALI takes only draws of exactly that type (measured on DALI
# 2.4: INT32, INT64, UINT8 and FLOAT64 draws into a FLOAT argument fail, and FLOAT and INT64
# draws into an INT32 one).
NUMBER_KINDS = frozenset({"FLOAT", "INT32", "INT64"})
_SAID = {"FLOAT": "floats", "INT32": "whole numbers (INT32)", "INT64": "whole numbers (INT64)"}


def drawn_type(feeder: Step) -> str | None:
    """The type `feeder`'s draws have, where it is a random node whose type is known."""
    if feeder.op not in DRAWN_BY_DEFAULT:
        return None
    given = feeder.args.get("dtype")
    if given is None:
        return DRAWN_BY_DEFAULT[feeder.op]
    return _type_name(given)


def _type_name(given: object) -> str:
    return str(given).upper().rsplit(".", 1)[-1]  # "INT32", "types.INT32", "int32"


def given_type(feeder: Step) -> str | None:
    """The type of what a cast or a comparison gives, where `feeder` is one: a draw compared
    (``fn.random.uniform(...) > 0.5``, written as a flip) gives booleans, a cast its dtype."""
    if feeder.op == "cast" and feeder.args.get("dtype") is not None:
        return _type_name(feeder.args["dtype"])
    if feeder.op != EXPRESSION:
        return None
    try:
        tree = parsed(feeder.args.get(TEXT)).tree
    except (ExpressionError, TypeError, ValueError):
        return None  # its own check names what is wrong with it
    return "BOOL" if _is_boolean(tree) else None


def _is_boolean(tree: ast.expr) -> bool:
    """A comparison, or comparisons joined by ``& | ^`` or negated by ``~`` (DALI types each
    bool)."""
    if isinstance(tree, ast.Compare):
        return True
    if isinstance(tree, ast.UnaryOp) and isinstance(tree.op, ast.Invert):
        return _is_boolean(tree.operand)
    if isinstance(tree, ast.BinOp) and isinstance(tree.op, ast.BitAnd | ast.BitOr | ast.BitXor):
        return _is_boolean(tree.left) and _is_boolean(tree.right)
    return False


def check_fed_type(ctx: CheckContext, node_id: str, arg: ArgInfo, feeder: Step) -> None:
    """A problem where `arg` of `node_id` is fed draws of a type DALI will not take there."""
    if arg.kind not in NUMBER_KINDS:
        return
    name = feeder.origin
    drawn = drawn_type(feeder)
    if drawn is None:
        given = given_type(feeder)
        if given is not None and given != arg.kind:
            what = "a cast" if feeder.op == "cast" else "a comparison"
            ctx.problem(
                f"{name!r} gives {given} values ({what}), and {arg.name} takes "
                f"{_SAID[arg.kind]}: DALI converts no argument input",
                node_id,
                arg.name,
                fix=f"cast it: fn.cast({name}, dtype=types.{arg.kind}), and feed {arg.name} that",
            )
        return
    if drawn == arg.kind:
        return
    default = DRAWN_BY_DEFAULT[feeder.op] == arg.kind
    ctx.problem(
        f"{name!r} draws {drawn} values, and {arg.name} takes {_SAID[arg.kind]}: DALI converts "
        "no argument input",
        node_id,
        arg.name,
        fix=(f"leave dtype out of {name!r}" if default else f"give {name!r} dtype={arg.kind}")
        + f", or cast the draw to {arg.kind}",
    )
