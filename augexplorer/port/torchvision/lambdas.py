"""torchvision's ``Lambda``: the two kinds DALI can do without running Python.

- ``Lambda(lambda img: img.convert('RGB'))``: the graph decodes every file to RGB already
  (:func:`.tensor.to_rgb_lambda`).
- Arithmetic on the float tensor ToTensor (or ToDtype to a float) makes, written with the
  lambda's one parameter and numbers: ``lambda t: (t * 2) - 1`` (diffusion models' [-1, 1]),
  ``lambda x: x * 255``, ``x.mul(2).sub(1)``, ``x.clamp(0, 1)``, ``x ** 0.5``: one expression
  node, the same arithmetic in float32, as torch computes it.

Any other body is Python code DALI cannot run: refused, the nearest operator python_function.
"""

from __future__ import annotations

import ast

from ..build import Grade, PortContext, Refuse
from ..model import TransformCall, Unknown
from .arguments import is_tensor
from .tensor import TO_RGB, to_rgb_lambda

# torch's operators written as methods, by the operator they are
_METHODS: dict[str, type[ast.operator]] = {
    "add": ast.Add,
    "sub": ast.Sub,
    "mul": ast.Mult,
    "div": ast.Div,
    "pow": ast.Pow,
}
_OPERATORS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow)
WHAT_IS_PORTED = (
    "arithmetic (+ - * / **, add, sub, mul, div, pow, clamp) of its parameter and numbers, on "
    "the float tensor ToTensor makes; or lambda img: img.convert('RGB')"
)
ARITHMETIC = (
    "The same arithmetic as one expression node on the float32 tensor, as torch computes it "
    "(19 photos: lambda t: (t * 2) - 1 after ToTensor; torch.clamp(x * 255, min=10, "
    "max=200) / 255, then Normalize, then t.mul(0.5).add(-0.25).clamp(-1, 1) ** 2: max "
    "difference 1.2e-7, float rounding)."
)


class _NotArithmetic(Exception):
    """A lambda body the port does not read as arithmetic; its text says which part."""


def lambda_transform(call: TransformCall, context: PortContext) -> Grade:
    """Lambda(lambd): lambda img: img.convert('RGB'), or arithmetic on the float tensor."""
    given = call.argument(0, "lambd")
    text = given.text if isinstance(given, Unknown) else ""
    if TO_RGB.fullmatch(text):
        return to_rgb_lambda(call, context)
    try:
        parameter, body = _arithmetic(text)
    except _NotArithmetic as error:
        raise Refuse(
            f"its body is Python code DALI cannot run ({error}); the nearest operator is "
            f"python_function (ported: {WHAT_IS_PORTED})"
        ) from None
    if isinstance(body, ast.Name):
        raise Refuse(
            f"Lambda({text}) returns its input as it is, which needs no node (fix: leave it "
            "out); for code that does more, the nearest operator is python_function"
        )
    if not is_tensor(context):
        raise Refuse(
            f"Lambda({text}) on a PIL image: torchvision fails on it (TypeError: a PIL image "
            "has no arithmetic); on the float tensor ToTensor makes it is one expression "
            "node, else the nearest operator is python_function (fix: put it after ToTensor())"
        )
    if context.state.get("layout", "HWC") != "CHW":
        raise Refuse(
            f"Lambda({text}) on a uint8 tensor is not ported: torch keeps uint8 there, "
            "wrapping around 256 (fix: put it after ToTensor(), or ToDtype(torch.float32, "
            "scale=True))"
        )
    if context.state.get("dtype", "FLOAT") != "FLOAT":
        raise Refuse(
            f"Lambda({text}) on a float16 tensor is not ported: DALI computes its arithmetic "
            "in float32 (fix: convert to torch.float32)"
        )
    image = context.image.node
    renamed = _Renamed(parameter, image).visit(body)
    context.add_expression(
        "lambda_arithmetic", ast.unparse(renamed), inputs=(context.image,), image=True
    )
    # a later Normalize normalizes the values as they are now, in a node of its own
    context.state.update(cmn=None)
    return Grade("exact", (ARITHMETIC,))


def _arithmetic(text: str) -> tuple[str, ast.expr]:
    """(parameter, body) of `text`, a lambda of one parameter whose body is arithmetic of it
    and numbers, the methods written as operators; raises _NotArithmetic otherwise."""
    try:
        tree = ast.parse(text, mode="eval").body
    except SyntaxError:
        raise _NotArithmetic("not a lambda") from None
    if not isinstance(tree, ast.Lambda):
        raise _NotArithmetic("not a lambda")
    arguments = tree.args
    if len(arguments.args) != 1 or arguments.vararg or arguments.kwarg or arguments.kwonlyargs:
        raise _NotArithmetic("a lambda of one parameter is read")
    parameter = arguments.args[0].arg
    return parameter, _read(tree.body, parameter)


def _read(node: ast.expr, parameter: str) -> ast.expr:
    if isinstance(node, ast.Name):
        if node.id != parameter:
            raise _NotArithmetic(f"it reads {node.id}, known only when the file runs")
        return node
    if isinstance(node, ast.Constant):
        if isinstance(node.value, bool) or not isinstance(node.value, int | float):
            raise _NotArithmetic(f"{ast.unparse(node)} is not a number")
        return ast.Constant(float(node.value))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        return ast.UnaryOp(node.op, _read(node.operand, parameter))
    if isinstance(node, ast.BinOp) and isinstance(node.op, _OPERATORS):
        return ast.BinOp(_read(node.left, parameter), node.op, _read(node.right, parameter))
    if isinstance(node, ast.Call):
        return _method(node, parameter)
    raise _NotArithmetic(f"{ast.unparse(node)} is not arithmetic")


def _method(node: ast.Call, parameter: str) -> ast.expr:
    """``x.mul(2)``, ``torch.mul(x, 2)``, ``x.clamp(0, 1)``, ``torch.clamp(x, min=0, max=1)``."""
    func = node.func
    if not isinstance(func, ast.Attribute):
        raise _NotArithmetic(f"{ast.unparse(node)} is not arithmetic")
    name = func.attr.rstrip("_")
    operands = list(node.args)
    if isinstance(func.value, ast.Name) and func.value.id == "torch":
        pass  # torch.mul(x, 2): the tensor is the first argument
    else:
        operands.insert(0, func.value)  # x.mul(2)
    if name in _METHODS and len(operands) == 2 and not node.keywords:
        left, right = (_read(operand, parameter) for operand in operands)
        return ast.BinOp(left, _METHODS[name](), right)
    if name in ("clamp", "clip"):
        given = dict(zip(("input", "min", "max"), operands, strict=False))
        given.update({k.arg: k.value for k in node.keywords if k.arg})
        if set(given) != {"input", "min", "max"} or len(operands) + len(node.keywords) != 3:
            raise _NotArithmetic(f"{ast.unparse(node)}: both min and max are read")
        bounds = [_read(given[k], parameter) for k in ("min", "max")]
        if not all(isinstance(b, ast.Constant | ast.UnaryOp) for b in bounds):
            raise _NotArithmetic(f"{ast.unparse(node)}: its bounds are read as numbers")
        clamped = _read(given["input"], parameter)
        math_clamp = ast.Attribute(ast.Name("math"), "clamp")
        return ast.Call(math_clamp, [clamped, *bounds], [])
    raise _NotArithmetic(f"{ast.unparse(node)} is not arithmetic")


class _Renamed(ast.NodeTransformer):
    """The lambda's parameter renamed to the node holding the image."""

    def __init__(self, parameter: str, node_id: str) -> None:
        self.parameter, self.node_id = parameter, node_id

    def visit_Name(self, node: ast.Name) -> ast.Name:
        return ast.Name(self.node_id) if node.id == self.parameter else node


__all__ = ["ARITHMETIC", "WHAT_IS_PORTED", "lambda_transform"]
