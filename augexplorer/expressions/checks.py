"""Validation of expression and constant nodes: a plan step, or every problem, each naming the
node, the argument and the fix (as :mod:`augexplorer.validate` does for operators)."""

from __future__ import annotations

import ast
import math
from collections.abc import Container, Sequence
from typing import Any

from ..checks.probabilities import PROBABILITY_FIX, probability_refused
from ..errors import Problem
from ..plan import Step
from ..spec import Node
from ..spec.schema import SEED_MAX
from .nodes import (
    CONSTANT,
    CONSTANT_ARGS,
    TEXT,
    constant_arg,
    constant_index,
    parsed,
)
from .syntax import INT32, ExpressionError, Parsed, index_names, math_function

MAX_CONSTANT_VALUES = 1 << 16
MAX_RANK = 8
# The element types a constant can hold, with the range of each integer type.
CONSTANT_TYPES: dict[str, tuple[int, int] | None] = {
    "UINT8": (0, 2**8 - 1),
    "UINT16": (0, 2**16 - 1),
    "UINT32": (0, 2**32 - 1),
    "UINT64": (0, 2**64 - 1),
    "INT8": (-(2**7), 2**7 - 1),
    "INT16": (-(2**15), 2**15 - 1),
    "INT32": INT32,
    "INT64": (-(2**63), 2**63 - 1),
    "FLOAT16": None,
    "FLOAT": None,
    "FLOAT64": None,
    "BOOL": None,
}
_AUTO_DEVICE = "leave the device on auto: an expression runs where its inputs are"


def check_graph_node(
    node: Node, inputs: Sequence[Step | None], node_ids: Container[str], gpu: bool
) -> tuple[Step | None, list[Problem]]:
    """The step of an expression or constant node (None when it has problems) and its problems.

    `inputs`: the steps of the node's inputs (None for one with a problem of its own);
    `node_ids`: the ids of the graph's nodes; `gpu`: whether DALI sees a GPU.
    """
    problems: list[Problem] = []
    if node.probability is not None:
        _probability(node, problems)
    if node.seed is not None:
        problems.append(
            Problem(f"an {node.op} node draws nothing", node.id, "seed", fix="remove the seed")
        )
    if node.op == CONSTANT:
        args = _constant(node, problems)
        device = "cpu"
        if node.device not in (None, "cpu"):
            problems.append(
                Problem(
                    "a constant is made on the CPU (DALI moves it where it is read)",
                    node.id,
                    "device",
                    fix="leave the device on auto",
                )
            )
    else:
        args, device = _expression(node, inputs, node_ids, gpu, problems)
    if problems:
        return None, problems
    step = Step(
        id=node.id,
        op=node.op,
        device=device,
        role="node",
        origin=node.id,
        inputs=tuple(node.inputs),
        args=args,
    )
    return step, []


def _probability(node: Node, problems: list[Problem]) -> None:
    """An expression can be applied with a probability (where it is not, its first input
    passes through, as for an operator); a constant cannot."""
    probability = node.probability
    assert probability is not None
    p, seed = probability.p, probability.seed
    if node.op == CONSTANT or not node.inputs:
        message, fix = "only a node with an input can be applied with a probability", "remove it"
    elif refused := probability_refused(p):
        message, fix = refused, PROBABILITY_FIX
    elif seed is not None and (
        isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= SEED_MAX
    ):
        message, fix = f"seed {seed!r:.40} is not a whole number from 0 to {SEED_MAX}", "use 42"
    else:
        return
    problems.append(Problem(message, node.id, "probability", fix))


# ---- expressions --------------------------------------------------------------------------------


def _expression(
    node: Node,
    inputs: Sequence[Step | None],
    node_ids: Container[str],
    gpu: bool,
    problems: list[Problem],
) -> tuple[dict[str, Any], str]:
    def problem(message: str, argument: str | None, fix: str) -> None:
        problems.append(Problem(message, node.id, argument, fix))

    text = node.args.get(TEXT)
    if text is None:
        problem(
            "an expression node needs its text",
            TEXT,
            "set expression to e.g. '0.7 * a + 0.3 * b', naming its inputs",
        )
        return {}, "cpu"
    try:
        checked = parsed(text)
    except ExpressionError as error:
        problem(error.message, TEXT, error.fix)
        return {}, "cpu"
    except TypeError:  # unhashable: not text
        problem(f"the expression must be text, got {type(text).__name__}", TEXT, "write it as text")
        return {}, "cpu"
    _check_names(node, checked, node_ids, problem)
    args: dict[str, Any] = {TEXT: text}
    for name, value in node.args.items():
        if name == TEXT:
            continue
        index = constant_index(name)
        if index is None or index >= len(checked.constants):
            count = len(checked.constants)
            allowed = ", ".join(constant_arg(i) for i in range(count)) or "none"
            problem(
                f"an expression has no argument {name!r}",
                name,
                f"edit its numbers as c0..c{count - 1} ({allowed})"
                if count
                else "its text has no numbers to edit; change the text",
            )
            continue
        message = _number_problem(value)
        if message:
            problem(message, name, f"give a number, e.g. {checked.constants[index]!r}")
            continue
        args[name] = value
    device = _device(checked, node, inputs, gpu, problem)
    return args, device


def _check_names(node: Node, checked: Parsed, node_ids: Container[str], problem: Any) -> None:
    """Each name stands for the input at its position; a name that is another node's id
    must read that node, so the text never says one node and computes another."""
    names, inputs = checked.names, node.inputs
    for index, name in enumerate(names):
        if index >= len(inputs):
            problem(
                f"the expression reads {name!r}, but the node has {len(inputs)} input(s)",
                TEXT,
                f"connect {name!r} as input {index} (names are the inputs in the order they "
                "first appear)",
            )
        elif name in node_ids and inputs[index].node != name:
            problem(
                f"the expression names {name!r} where its input {index} reads "
                f"{str(inputs[index])!r}",
                TEXT,
                f"write {inputs[index].node!r} in the text, or connect input {index} to {name!r}",
            )
    for index in range(len(names), len(inputs)):
        problem(
            f"input {index} ({str(inputs[index])!r}) is not used in the expression",
            TEXT,
            "use it in the text, or remove the input",
        )


def _number_problem(value: Any) -> str | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return f"expected a number, got {type(value).__name__} {value!r:.40}"
    if isinstance(value, float) and not math.isfinite(value):
        return f"{value} is not a finite number"
    if isinstance(value, int) and not INT32[0] <= value <= INT32[1]:
        return f"{value} does not fit in int32, the type DALI gives a whole number in arithmetic"
    return None


def _device(
    checked: Parsed, node: Node, inputs: Sequence[Step | None], gpu: bool, problem: Any
) -> str:
    """Where the expression's result is: on the GPU when it computes on GPU data, on the CPU
    for `.shape()` (DALI returns shapes on the CPU) and CPU data. A per-sample subscript index
    is an argument to DALI, which reads those on the CPU only."""
    on = {
        name: "gpu" if step is not None and step.device in ("gpu", "mixed") else "cpu"
        for name, step in zip(checked.names, inputs, strict=False)
    }
    for name in sorted(index_names(checked.tree)):
        if on.get(name) == "gpu":
            problem(
                f"the index {name!r} is on the GPU; DALI reads a per-sample index on the CPU",
                TEXT,
                f"compute {name!r} on the CPU (set its node's device to cpu)",
            )

    def where(part: ast.expr) -> str | None:
        if isinstance(part, ast.Name):
            return on.get(part.id, "cpu")
        if isinstance(part, ast.Call) and math_function(part) is None:
            return "cpu"  # .shape()
        if isinstance(part, ast.Subscript):
            return where(part.value)  # its indices do not move it
        children = part.args if isinstance(part, ast.Call) else ast.iter_child_nodes(part)
        devices = {where(child) for child in children if isinstance(child, ast.expr)}
        if "gpu" in devices:
            return "gpu"
        return "cpu" if "cpu" in devices else None

    device = where(checked.tree) or "cpu"
    if node.device is not None and node.device != device:
        problem(f"this expression computes on the {device.upper()}", "device", _AUTO_DEVICE)
    if device == "gpu" and not gpu:
        problem(
            "device 'gpu' needs a GPU, and DALI sees none on this machine", "device", _AUTO_DEVICE
        )
    return device


# ---- constants ----------------------------------------------------------------------------------


def _constant(node: Node, problems: list[Problem]) -> dict[str, Any]:
    def problem(message: str, argument: str | None, fix: str) -> None:
        problems.append(Problem(message, node.id, argument, fix))

    if node.inputs:
        problem("a constant reads no input", None, "remove its inputs")
    for name in node.args:
        if name not in CONSTANT_ARGS:
            problem(
                f"a constant has no argument {name!r}",
                name,
                f"use {', '.join(CONSTANT_ARGS)}",
            )
    dtype = node.args.get("dtype", "FLOAT")
    values = node.args.get("values")
    if dtype not in CONSTANT_TYPES:
        problem(
            f"{dtype!r:.40} is not a type a constant can hold",
            "dtype",
            f"use one of {', '.join(CONSTANT_TYPES)}",
        )
        return {}
    if not isinstance(values, (list, tuple)) or not values:
        problem("a constant needs its values", "values", "give a list of numbers, e.g. [1.0, 2.0]")
        return {}
    if len(values) > MAX_CONSTANT_VALUES:
        problem(
            f"a constant of {len(values):,} values is too large (at most {MAX_CONSTANT_VALUES:,})",
            "values",
            "read large data from files instead",
        )
        return {}
    for index, value in enumerate(values):
        message = _element_problem(dtype, value)
        if message:
            problem(f"element {index}: {message}", "values", f"give {dtype.lower()} values")
            return {}
    shape = node.args.get("shape", [len(values)])
    if (
        not isinstance(shape, (list, tuple))
        or len(shape) > MAX_RANK
        or any(isinstance(s, bool) or not isinstance(s, int) or s < 0 for s in shape)
    ):
        problem(
            f"shape {shape!r:.60} is not a list of at most {MAX_RANK} sizes",
            "shape",
            f"give the sizes, e.g. [{len(values)}]",
        )
        return {}
    if math.prod(shape) != len(values):
        problem(
            f"shape {list(shape)} holds {math.prod(shape)} values, but there are {len(values)}",
            "shape",
            f"make the sizes multiply to {len(values)}, e.g. [{len(values)}]",
        )
        return {}
    # typed as the dtype says, so equal constants have equal steps (and JSON)
    kind = bool if dtype == "BOOL" else float if CONSTANT_TYPES[dtype] is None else int
    typed = [kind(value) for value in values]
    args: dict[str, Any] = {"values": typed, "dtype": dtype, "shape": list(shape)}
    layout = node.args.get("layout")
    if layout is not None:
        if not isinstance(layout, str) or (layout and len(layout) != len(shape)):
            problem(
                f"layout {layout!r:.20} does not name the {len(shape)} dimension(s)",
                "layout",
                f"give one letter per dimension ({len(shape)}), or remove the layout",
            )
            return {}
        if layout:
            args["layout"] = layout
    return args


def _element_problem(dtype: str, value: Any) -> str | None:
    if dtype == "BOOL":
        return None if isinstance(value, bool) else f"expected true or false, got {value!r:.40}"
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return f"expected a number, got {type(value).__name__} {value!r:.40}"
    limits = CONSTANT_TYPES[dtype]
    if limits is None:
        return None if math.isfinite(value) else f"{value} is not a finite number"
    if isinstance(value, float) and not value.is_integer():
        return f"expected a whole number, got {value}"
    if not limits[0] <= value <= limits[1]:
        return f"{value} does not fit in {dtype.lower()} ({limits[0]}..{limits[1]})"
    return None
