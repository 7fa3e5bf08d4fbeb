"""DALI ``auto_aug`` policy calls of a serialized pipeline turned back into policy nodes.

``Pipeline.serialize()`` holds only what a policy call expanded into (hundreds of operators under
conditionals) and their seeds, not the call's arguments (``n=2, m=9``). DALI records for every
operator the Python frames that made it, so each operator of an expansion names the user's line
that called the policy. That line is read back from the user's source (a file, or a notebook
cell Python still holds), and the call's arguments are read from its syntax; nothing runs. The
call is then traced again with those arguments, and the node is made only when the trace gives
the same operators with the same arguments, wiring and seeds as the original expansion, so the
node draws the original's values. When that cannot be done the import is refused, saying which
policy, which line, and why.
"""

from __future__ import annotations

import ast
import copy
import functools
import inspect
import linecache
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..catalog.auto_aug import INDEPENDENT_DRAWS, node_for_function, takes_independent_draws
from ..engine.origin_stacks import without_origin_stacks
from . import refusals
from .alias_import import current_names
from .derived_seeds import takes_random_seed
from .protobuf import Argument, OpRecord, Port, read_pipeline

# The names of the traced call's stand-ins for the images and a `shape` fed from a node.
_IMAGES, _SHAPE = "__augexplorer_images", "__augexplorer_shape"
# Arguments read from the expansion itself, not from the call's text.
_FROM_EXPANSION = frozenset({"seed"})
# Operator arguments that tell where an operator was made or runs, not what it computes.
_NOT_COMPARED = ("_origin_stack_", "device")


class NotRecovered(Exception):
    """Why a policy call's arguments could not be read back (said to the user as is)."""


@dataclass
class PolicyCall:
    """One call of a policy function, as the serialized operators tell it."""

    function: str  # the nvidia.dali.auto_aug function the user called
    filename: str
    line: int
    ops: list[OpRecord] = field(default_factory=list)
    # called through augexplorer.policy_seeds.independent_draws (an exported module's call)
    independent: bool = False
    # its random operators seeded seed, seed + 1, ... (independent_draws, or the torchvision
    # policy, which calls it itself)
    seeded_apart: bool = False

    @property
    def op(self) -> str | None:
        """The catalog operator of the call (None for the apply_* functions)."""
        return node_for_function(self.function)

    def inputs(self) -> list[str]:
        """DALI outputs the expansion reads from outside itself, first use first."""
        made = {port.name for op in self.ops for port in op.outputs}
        found: list[str] = []
        for op in self.ops:
            for port in op.inputs:
                if port.name not in made and port.name not in found:
                    found.append(port.name)
        return found


@dataclass(frozen=True)
class PolicyNode:
    """What a policy node is made of: its catalog operator, constant arguments, seed, and the
    DALI outputs that feed its images and (when a node gives it) its `shape`."""

    op: str
    args: dict[str, Any]
    seed: int | None
    images: str
    shape: str | None


# The functions of an exported module that call DALI's policy code: independent_draws
# (augexplorer.policy_seeds) seeds a DALI policy's draws apart; torchvision_auto_augment
# (augexplorer.auto_aug_torchvision) calls it for torchvision's policies. Their frames sit
# between the user's line and DALI's.
_SEEDING = "independent_draws"
_CARRIED_POLICY = "torchvision_auto_augment"


def call_of(op: OpRecord) -> tuple[str | None, tuple[tuple[str, int], ...], bool, bool] | None:
    """The policy function that made `op` (None where `op`'s frames do not name it: DALI keeps
    no frame of its own for some operators a carried function's call makes), the user's frames
    of that call (file, line), whether the user called it through ``independent_draws``, and
    whether its draws were seeded apart; None when no policy made it."""
    frames = refusals.origin_frames(op)
    for index, (filename, _line, name, _code) in enumerate(frames):
        carried = name in (_SEEDING, _CARRIED_POLICY)
        if not (carried or refusals.in_auto_aug(filename)):
            continue
        if index == 0:
            return None  # DALI recorded no frame of the caller's
        caller = tuple((f, line) for f, line, _n, _c in frames[:index])
        if name == _CARRIED_POLICY:
            return name, caller, False, True
        if name == _SEEDING:
            inner = [n for f, _l, n, _c in frames[index + 1 :] if refusals.in_auto_aug(f)]
            return (inner[0] if inner else None), caller, True, True
        return name, caller, False, False
    return None


def policy_calls(ops: Sequence[OpRecord]) -> dict[str, PolicyCall]:
    """Each operator a policy call made (by instance name) -> that call."""
    calls: dict[tuple[tuple[tuple[str, int], ...], bool], PolicyCall] = {}
    found: dict[str, PolicyCall] = {}
    for op in ops:
        key = call_of(op)
        if key is None:
            continue
        function, caller, independent, seeded_apart = key
        filename, line = caller[-1]
        call = calls.setdefault(
            (caller, independent),
            PolicyCall(
                function or "", filename, line, independent=independent, seeded_apart=seeded_apart
            ),
        )
        if function and not call.function:  # named by another of the call's operators
            call.function = function
        call.ops.append(op)
        found[op.instance] = call
    return found


def escaping(call: PolicyCall, ops: Sequence[OpRecord], outputs: Sequence[Port]) -> list[str]:
    """The outputs of the call's operators that anything else reads."""
    inside = {op.instance for op in call.ops}
    made = {port.name for op in call.ops for port in op.outputs}
    read = [port.name for op in ops if op.instance not in inside for port in op.inputs] + [
        port.name for port in outputs
    ]
    return list(dict.fromkeys(name for name in read if name in made))


def recover(call: PolicyCall, values: Mapping[str, Any] | None = None) -> PolicyNode:
    """The policy node equal to `call`; raises :class:`NotRecovered` saying why there is none.
    `values` are those the parameters of the pipeline function had when it was built: an
    argument written with them (``shape=[image_size, image_size]``) is read with their values
    where the call is in that function and the parameter is not assigned anew there."""
    if call.op is None:
        raise NotRecovered("it applies a suite of your own, which a policy node does not hold")
    expression, parameters = _call_expression(call)
    known = {name: values[name] for name in parameters if values and name in values}
    function = _dali_function(call.function)
    args, shape_is_node = _arguments(function, expression, call.function, known)
    seed = _seed(call)
    traced = _trace(function, args, seed, shape_is_node, call.independent)
    try:
        inputs = _match(call.ops, traced)
    except NotRecovered:
        if not shape_is_node:
            raise
        # read as a node's output, which it was not: a value the reader could not know
        written = next((k.value for k in expression.keywords if k.arg == "shape"), None)
        shown = f"shape={ast.unparse(written)}" if written is not None else "its shape"
        raise NotRecovered(
            f"its argument {shown} is not written as a constant or with the pipeline "
            "function's parameters, so its value cannot be read without running your code"
        ) from None
    images = inputs.get(_IMAGES)
    if images is None:
        raise NotRecovered("its operators do not read the images it was given")
    if call.function == "auto_augment_image_net":
        args = {"policy_name": "image_net", **args}
    if seed is not None and takes_independent_draws(call.op):
        # a plain DALI call with a seed ties its draws; the node keeps the call's own draws
        args[INDEPENDENT_DRAWS.name] = call.independent
    return PolicyNode(call.op, args, seed, images, inputs.get(_SHAPE))


# ---- the call's text --------------------------------------------------------------------------


def _call_expression(call: PolicyCall) -> tuple[ast.Call, set[str]]:
    """The call at the recorded line, and the parameters of the function it is in that the
    function never assigns anew (whose values are those the function was called with)."""
    linecache.checkcache(call.filename)  # a file changed since it ran would be read wrong
    source = "".join(linecache.getlines(call.filename))
    if not source:
        raise NotRecovered(
            "its source is not readable here, and the serialized pipeline holds only the "
            "operators the call made, not its arguments"
        )
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        raise NotRecovered("its source is not valid Python any more") from None
    found = [
        _through_seeding(node) if call.independent else node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and _callee(node.func) == (_SEEDING if call.independent else call.function)
        and node.lineno <= call.line <= (node.end_lineno or node.lineno)
    ]
    found = [node for node in found if _callee(node.func) == call.function]
    if not found:
        raise NotRecovered(f"line {call.line} holds no call of {call.function} now")
    expression = min(found, key=lambda node: (node.end_lineno or node.lineno) - node.lineno)
    return expression, _unchanged_parameters(tree, expression)


def _through_seeding(node: ast.Call) -> ast.Call:
    """``independent_draws(policy, images, ...)`` read as ``policy(images, ...)``."""
    if not node.args or isinstance(node.args[0], ast.Starred):
        return node
    call = ast.Call(func=node.args[0], args=node.args[1:], keywords=node.keywords)
    return ast.copy_location(call, node)  # its lines: where the user's call is


def _unchanged_parameters(tree: ast.Module, call: ast.Call) -> set[str]:
    functions = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.lineno <= call.lineno <= (node.end_lineno or node.lineno)
    ]
    if not functions:
        return set()
    innermost = max(functions, key=lambda node: node.lineno)
    arguments = innermost.args
    names = {a.arg for a in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]}
    assigned = {
        target.id
        for node in ast.walk(innermost)
        for target in _targets(node)
        if isinstance(target, ast.Name)
    }
    return names - assigned


def _targets(node: ast.AST) -> list[ast.expr]:
    if isinstance(node, ast.Assign):
        return [t for target in node.targets for t in ast.walk(target) if isinstance(t, ast.expr)]
    if isinstance(node, ast.AugAssign | ast.AnnAssign | ast.NamedExpr):
        return [node.target]
    if isinstance(node, ast.For | ast.AsyncFor | ast.comprehension):
        return [t for t in ast.walk(node.target) if isinstance(t, ast.expr)]
    if isinstance(node, ast.With | ast.AsyncWith):
        return [
            t
            for item in node.items
            if item.optional_vars is not None
            for t in ast.walk(item.optional_vars)
            if isinstance(t, ast.expr)
        ]
    return []


def _callee(func: ast.expr) -> str:
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else ""


def _dali_function(name: str) -> Callable[..., Any]:
    from nvidia.dali.auto_aug import auto_augment, rand_augment, trivial_augment

    if name == _CARRIED_POLICY:
        from ..auto_aug_torchvision import torchvision_auto_augment

        return torchvision_auto_augment

    for module in (auto_augment, rand_augment, trivial_augment):
        function = getattr(module, name, None)
        if callable(function):
            return function
    raise NotRecovered(f"this DALI has no auto_aug function {name}")


def _arguments(
    function: Callable[..., Any], call: ast.Call, name: str, known: Mapping[str, Any]
) -> tuple[dict[str, Any], bool]:
    """The call's arguments as graph values (enum names for DALI enums), and whether `shape`
    is fed from a node."""
    if any(isinstance(arg, ast.Starred) for arg in call.args) or any(
        keyword.arg is None for keyword in call.keywords
    ):
        raise NotRecovered("its arguments are unpacked (*args or **kwargs)")
    try:
        bound = inspect.signature(function).bind(
            *call.args, **{keyword.arg: keyword.value for keyword in call.keywords if keyword.arg}
        )
    except TypeError as error:
        raise NotRecovered(f"its arguments do not fit {name}: {error}") from None
    data = next(iter(inspect.signature(function).parameters))
    args: dict[str, Any] = {}
    shape_is_node = False
    for argument, expression in bound.arguments.items():
        if argument == data or argument in _FROM_EXPANSION:
            continue
        assert isinstance(expression, ast.expr)
        value = _constant(expression, known)
        if value is _NOT_CONSTANT:
            if argument == "shape":
                shape_is_node = True
                continue
            raise NotRecovered(
                f"its argument {argument}={ast.unparse(expression)} is not written as a "
                "constant or with the pipeline function's parameters, so its value cannot be "
                "read without running your code"
            )
        if value is not None:
            args[argument] = value
    return args, shape_is_node


_NOT_CONSTANT = object()


def _constant(expression: ast.expr, known: Mapping[str, Any] | None = None) -> Any:
    """A literal (numbers, strings, lists, tuples, None) or a DALI enum written by name
    (``types.INTERP_NN``), names in `known` read as their values; _NOT_CONSTANT for anything
    else."""
    if isinstance(expression, ast.Attribute) and expression.attr.startswith("INTERP_"):
        return expression.attr  # types.INTERP_NN, types.DALIInterpType.INTERP_NN
    if known:
        expression = _WithValues(known).visit(copy.deepcopy(expression))
    try:
        value = ast.literal_eval(expression)
    except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
        return _NOT_CONSTANT
    return list(value) if isinstance(value, tuple) else value


class _WithValues(ast.NodeTransformer):
    """Names of known parameters replaced by their values (plain values and DALI's
    interpolation enums, by name), so the expression reads as a literal."""

    def __init__(self, known: Mapping[str, Any]) -> None:
        self.known = known

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if node.id not in self.known:
            return node
        value = self.known[node.id]
        name = getattr(value, "name", None)
        if isinstance(name, str) and name.startswith("INTERP_"):
            value = name
        if not _plain(value):
            return node
        return ast.copy_location(ast.parse(repr(value), mode="eval").body, node)


def _plain(value: Any) -> bool:
    if isinstance(value, list | tuple):
        return all(_plain(item) for item in value)
    return value is None or type(value) in (bool, int, float, str)


def _seed(call: PolicyCall) -> int | None:
    """The one seed the policy gave all its random operators (through independent_draws, the
    first of seed, seed + 1, ...), None when it was given none."""
    seeds = [
        int(op.args["seed"].value()) if "seed" in op.args else None
        for op in call.ops
        if takes_random_seed(op.schema)
    ]
    if call.seeded_apart and seeds and None not in seeds:
        return seeds[0]  # the trace checks that the others follow from it
    if len(set(seeds)) > 1:
        raise NotRecovered("its random operators were given different seeds")
    return next(iter(seeds), None)


# ---- the call traced again --------------------------------------------------------------------


def _trace(
    function: Callable[..., Any],
    args: dict[str, Any],
    seed: int | None,
    shape_is_node: bool,
    independent: bool = False,
) -> list[OpRecord]:
    """The operators `function` makes with `args` (through independent_draws where the call
    was), fed from stand-ins (external sources)."""
    from nvidia.dali import fn, pipeline_def, types

    from ..policy_seeds import independent_draws

    if independent:
        function = functools.partial(independent_draws, function)

    kwargs = {name: _dali(value) for name, value in args.items()}
    if seed is not None:
        kwargs["seed"] = seed

    options: dict[str, Any] = {
        "batch_size": 1,
        "num_threads": 1,
        "device_id": None,
        "enable_conditionals": True,
    }

    @pipeline_def(**options)
    def traced() -> Any:
        uint8, int64 = types.DALIDataType.UINT8, types.DALIDataType.INT64
        images = fn.external_source(name=_IMAGES, dtype=uint8, ndim=3, layout="HWC")
        if shape_is_node:
            kwargs["shape"] = fn.external_source(name=_SHAPE, dtype=int64, ndim=1)
        return function(images, **kwargs)

    # DALI's policies call two operators through deprecated aliases: DALI's code, not the
    # user's. DALI shows those warnings whatever the filters say; recording them drops them.
    # DALI's recording of where each operator was made, off: a policy's ~230 operators spend a
    # third of the trace's time on it, and the trace is compared without it (_NOT_COMPARED)
    with warnings.catch_warnings(record=True), without_origin_stacks():
        try:
            data = traced().serialize()
        except Exception as error:  # DALI rejects the arguments as it would have in the pipeline
            raise NotRecovered(
                f"the arguments read from it do not make a policy here: {error}"
            ) from None
    # in the current names, as the pipeline's own operators are read (DALI's policies call
    # fn.experimental.equalize, an alias)
    ops = current_names(read_pipeline(data).ops)
    return [op for op in ops if op.instance not in (_IMAGES, _SHAPE)]


def _dali(value: Any) -> Any:
    from nvidia.dali import types

    if isinstance(value, str) and value.startswith("INTERP_"):
        return types.DALIInterpType.__members__.get(value, value)
    return value


def _match(original: Sequence[OpRecord], traced: Sequence[OpRecord]) -> dict[str, str]:
    """The original outputs the stand-ins stand for, when the two expansions are the same
    operators with the same arguments and wiring; raises NotRecovered otherwise."""
    differ = NotRecovered(
        "the operators it made differ from those the call at that line makes with the "
        "arguments written there (the file changed since, or the line runs more than once)"
    )
    if len(original) != len(traced):
        raise differ
    made_original = {
        p.name: (i, k) for i, op in enumerate(original) for k, p in enumerate(op.outputs)
    }
    made_traced = {p.name: (i, k) for i, op in enumerate(traced) for k, p in enumerate(op.outputs)}
    stand_ins: dict[str, str] = {}
    for mine, theirs in zip(original, traced, strict=True):
        if mine.schema != theirs.schema or _compared(mine.args) != _compared(theirs.args):
            raise differ
        if len(mine.inputs) != len(theirs.inputs) or len(mine.outputs) != len(theirs.outputs):
            raise differ
        for a, b in zip(mine.inputs, theirs.inputs, strict=True):
            if (a.is_argument, a.argument) != (b.is_argument, b.argument):
                raise differ
            if b.name in made_traced:
                if made_original.get(a.name) != made_traced[b.name]:
                    raise differ
            elif b.name.startswith((_IMAGES, _SHAPE)):
                role = _IMAGES if b.name.startswith(_IMAGES) else _SHAPE
                if stand_ins.setdefault(role, a.name) != a.name:
                    raise differ
            else:
                raise differ
    return stand_ins


def _compared(args: dict[str, Argument]) -> dict[str, Argument]:
    return {name: arg for name, arg in args.items() if not name.startswith(_NOT_COMPARED)}
