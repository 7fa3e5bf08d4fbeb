"""A project's own Gaussian blur class, read from its source: MoCo v2's and SimCLR's

    class GaussianBlur(object):
        def __init__(self, sigma=[.1, 2.]):
            self.sigma = sigma

        def __call__(self, x):
            sigma = random.uniform(self.sigma[0], self.sigma[1])
            x = x.filter(ImageFilter.GaussianBlur(radius=sigma))
            return x

and DINO's, which blurs with probability ``p`` at a radius in ``radius_min..radius_max``. Such
a class is a PIL Gaussian blur at a radius drawn uniformly per image, applied with a
probability: :func:`own_pil_class` says so (:class:`OwnBlur`) where the class's ``__init__`` only
keeps its arguments and its ``__call__`` only draws, tests a coin and blurs or returns the
image; any other class is None (refused as a class of one's own). DINO's ``Solarization(p)``,
``ImageOps.solarize(img)`` under a coin of p, is read the same way (:class:`OwnSolarize`).
"""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

# How a call names the draws the class makes (the standard library's and numpy's)
_UNIFORM = {"random.uniform", "np.random.uniform", "numpy.random.uniform"}
_RANDOM = {"random.random", "np.random.rand", "np.random.random", "numpy.random.random"}
_BLUR = {"ImageFilter.GaussianBlur", "PIL.ImageFilter.GaussianBlur", "GaussianBlur"}
_SOLARIZE = {"ImageOps.solarize", "PIL.ImageOps.solarize", "solarize"}
# a block's outcomes: (probability, None for the image as it is, or what was done to it:
# ("blurred", low, high) or ("solarized", threshold))
_Outcomes = list[tuple[float, tuple[Any, ...] | None]]


@dataclass(frozen=True)
class OwnBlur:
    """A class of the project that blurs a PIL image with ``ImageFilter.GaussianBlur`` at a
    radius drawn uniformly in ``low..high``, with probability ``p``."""

    low: float
    high: float
    p: float = 1.0
    kind: str = "pil_gaussian_blur"
    # where the class is defined, where not in the file read ("moco/loader.py, line 9")
    defined_at: str = ""
    # the class's source, read again with other arguments where Compare pins its draws
    source: ast.ClassDef | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class OwnSolarize:
    """A class of the project that solarizes a PIL image with ``ImageOps.solarize`` (pixels
    at or above ``threshold`` inverted), with probability ``p`` (DINO's ``Solarization``)."""

    threshold: float
    p: float = 1.0
    kind: str = "pil_solarize"
    defined_at: str = ""
    source: ast.ClassDef | None = field(default=None, compare=False, repr=False)


OwnClass = OwnBlur | OwnSolarize


class _NotRead(Exception):
    """The class does something else than the blur or solarize shapes read here."""


def own_pil_class(
    tree: ast.Module, name: str, args: Sequence[Any], kwargs: Mapping[str, Any]
) -> OwnClass | None:
    """What the file's class `name`, called with `args` and `kwargs` (literals), does, where
    it is such a blur (or solarize); None where it is not, or not defined in the file."""
    found = [n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == name]
    if len(found) != 1:
        return None
    return own_class(found[0], args, kwargs)


def own_class(cls: ast.ClassDef, args: Sequence[Any], kwargs: Mapping[str, Any]) -> OwnClass | None:
    """What class `cls` does, called with `args` and `kwargs`, where it is such a blur or
    solarize; else None."""
    try:
        return dataclasses.replace(_read(cls, args, kwargs), source=cls)
    except (_NotRead, ValueError, TypeError, IndexError, KeyError, ZeroDivisionError):
        return None


def _read(cls: ast.ClassDef, args: Sequence[Any], kwargs: Mapping[str, Any]) -> OwnClass:
    methods = {n.name: n for n in cls.body if isinstance(n, ast.FunctionDef)}
    for statement in cls.body:
        if not (_is_docstring(statement) or isinstance(statement, ast.FunctionDef)):
            raise _NotRead
    if set(methods) - {"__init__", "__call__", "__repr__"} or "__call__" not in methods:
        raise _NotRead
    kept = _kept(methods.get("__init__"), args, kwargs)
    call = methods["__call__"]
    parameters = [a.arg for a in call.args.args]
    if len(parameters) != 2 or call.args.vararg or call.args.kwarg or call.decorator_list:
        raise _NotRead
    outcomes = _run(call.body, _Scope(kept, parameters[1]), 1.0)
    done = {effect for _, effect in outcomes if effect is not None}
    if len(done) != 1:
        raise _NotRead  # one effect, under one coin: two would be another transform
    (effect,) = done
    p = round(sum(share for share, effect in outcomes if effect is not None), 12)
    if effect[0] == "solarized":
        if not 0 <= effect[1] <= 256:
            raise _NotRead
        return OwnSolarize(float(effect[1]), p)
    _, low, high = effect
    if not 0 < low <= high:
        raise _NotRead
    return OwnBlur(low, high, p)


def _kept(
    init: ast.FunctionDef | None, args: Sequence[Any], kwargs: Mapping[str, Any]
) -> dict[str, Any]:
    """The attributes ``__init__`` keeps (``self.sigma = sigma``), given the call's values."""
    if init is None:
        if args or kwargs:
            raise _NotRead
        return {}
    spec = init.args
    names = [a.arg for a in spec.args][1:]
    if spec.vararg or spec.kwarg or spec.kwonlyargs or len(args) > len(names):
        raise _NotRead
    defaults = dict(zip(names[len(names) - len(spec.defaults) :], spec.defaults, strict=True))
    values = {n: ast.literal_eval(d) for n, d in defaults.items()}
    values.update(zip(names, args, strict=False))
    if set(kwargs) - set(names):
        raise _NotRead
    values.update(kwargs)
    if set(names) - set(values):
        raise _NotRead
    kept: dict[str, Any] = {}
    for statement in init.body:
        if _is_docstring(statement) or _is_super_init(statement):
            continue
        if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1):
            raise _NotRead
        target = statement.targets[0]
        if not (isinstance(target, ast.Attribute) and _is_name(target.value, "self")):
            raise _NotRead
        value = statement.value
        kept[target.attr] = (
            values[value.id] if isinstance(value, ast.Name) else ast.literal_eval(value)
        )
    return kept


@dataclass
class _Scope:
    """What ``__call__`` reads: the kept attributes, the image's name, the names it binds
    (a drawn radius range, a coin's probability)."""

    kept: Mapping[str, Any]
    image: str
    bound: dict[str, Any] = field(default_factory=dict)

    def names(self) -> dict[str, Any]:
        return self.bound


def _run(block: Sequence[ast.stmt], scope: _Scope, share: float) -> _Outcomes:
    """The outcomes of running `block` (reached with probability `share`)."""
    for index, statement in enumerate(block):
        rest = block[index + 1 :]
        if _is_docstring(statement):
            continue
        if isinstance(statement, ast.Return):
            if statement.value is None:
                raise _NotRead
            return [(share, _result(statement.value, scope))]
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
            target = statement.targets[0]
            if not isinstance(target, ast.Name):
                raise _NotRead
            scope.names()[target.id] = _value(statement.value, scope)
            continue
        if isinstance(statement, ast.If):
            held, negated = _coin(statement.test, scope)
            q = 1.0 - held if negated else held
            taken = _run([*statement.body, *rest], _copy(scope), share * q)
            other = _run([*statement.orelse, *rest], _copy(scope), share * (1.0 - q))
            return taken + other
        raise _NotRead
    raise _NotRead  # fell off the end: returns None, no image


def _copy(scope: _Scope) -> _Scope:
    return _Scope(scope.kept, scope.image, dict(scope.names()))


def _result(node: ast.expr, scope: _Scope) -> tuple[Any, ...] | None:
    """None for the image as it is, ("blurred", low, high) or ("solarized", threshold)."""
    value = _value(node, scope)
    if value == ("image",):
        return None
    if isinstance(value, tuple) and value[0] in ("blurred", "solarized"):
        return value
    raise _NotRead


def _value(node: ast.expr, scope: _Scope) -> Any:
    """A value ``__call__`` computes: a number, ("uniform", low, high), ("coin", p, negated),
    ("image",), ("blurred", low, high) or ("solarized", threshold)."""
    if isinstance(node, ast.Name):
        if node.id in scope.names():  # `x = x.filter(...)` binds the image's name anew
            return scope.names()[node.id]
        if node.id == scope.image:
            return ("image",)
        raise _NotRead
    if isinstance(node, ast.Attribute) and _is_name(node.value, "self"):
        return scope.kept[node.attr]
    if isinstance(node, ast.Subscript):
        return _value(node.value, scope)[ast.literal_eval(node.slice)]
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        return float(node.value)
    if isinstance(node, ast.Compare):
        return ("coin", *_coin(node, scope))
    if not isinstance(node, ast.Call):
        raise _NotRead
    called = _dotted(node.func)
    if called in _UNIFORM and len(node.args) == 2 and not node.keywords:
        low, high = (float(_value(a, scope)) for a in node.args)
        return ("uniform", low, high)
    if isinstance(node.func, ast.Attribute) and node.func.attr == "filter":
        if _value(node.func.value, scope) != ("image",) or len(node.args) != 1:
            raise _NotRead
        low, high = _radius(node.args[0], scope)
        return ("blurred", low, high)
    if called in _SOLARIZE:
        return ("solarized", _threshold(node, scope))
    raise _NotRead


def _threshold(node: ast.Call, scope: _Scope) -> float:
    """``ImageOps.solarize(img)``'s threshold (PIL's default 128, or the one given)."""
    names = ["image", "threshold"]
    given = dict(zip(names, node.args, strict=False))
    given.update((k.arg, k.value) for k in node.keywords if k.arg)
    if len(node.args) > 2 or set(given) - set(names) or "image" not in given:
        raise _NotRead
    if _value(given["image"], scope) != ("image",):
        raise _NotRead
    threshold = _value(given["threshold"], scope) if "threshold" in given else 128.0
    if not isinstance(threshold, int | float) or isinstance(threshold, bool):
        raise _NotRead
    return float(threshold)


def _radius(node: ast.expr, scope: _Scope) -> tuple[float, float]:
    """``ImageFilter.GaussianBlur(radius=R)``'s range of R (one number: (R, R))."""
    if not (isinstance(node, ast.Call) and _dotted(node.func) in _BLUR):
        raise _NotRead
    given = [*node.args, *(k.value for k in node.keywords if k.arg == "radius")]
    if len(given) != 1 or len(node.args) + len(node.keywords) != 1:
        raise _NotRead
    radius = _value(given[0], scope)
    if isinstance(radius, int | float) and not isinstance(radius, bool):
        return (float(radius), float(radius))
    if isinstance(radius, tuple) and radius[0] == "uniform":
        return (min(radius[1:]), max(radius[1:]))
    raise _NotRead


def _coin(node: ast.expr, scope: _Scope) -> tuple[float, bool]:
    """(probability the test holds, negated) of ``random.random() <= p``, ``not do_it``, a
    name bound to such a test, or ``random.random() > p``."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        held, negated = _coin(node.operand, scope)
        return held, not negated
    if isinstance(node, ast.Name):
        value = _value(node, scope)
        if isinstance(value, tuple) and value[0] == "coin":
            return value[1], value[2]
        raise _NotRead
    if not (isinstance(node, ast.Compare) and len(node.ops) == 1):
        raise _NotRead
    left, right = node.left, node.comparators[0]
    if not (isinstance(left, ast.Call) and _dotted(left.func) in _RANDOM and not left.args):
        raise _NotRead
    p = min(max(float(_value(right, scope)), 0.0), 1.0)
    if isinstance(node.ops[0], ast.Lt | ast.LtE):
        return p, False
    if isinstance(node.ops[0], ast.Gt | ast.GtE):
        return p, True  # holds with 1 - p
    raise _NotRead


def _dotted(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    return ""


def _is_name(node: ast.expr, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _is_docstring(statement: ast.stmt) -> bool:
    return isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant)


def _is_super_init(statement: ast.stmt) -> bool:
    """``super().__init__()`` (or ``super(GaussianBlur, self).__init__()``), no arguments."""
    if not (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)):
        return False
    call = statement.value
    return (
        isinstance(call.func, ast.Attribute)
        and call.func.attr == "__init__"
        and isinstance(call.func.value, ast.Call)
        and _is_name(call.func.value.func, "super")
        and not call.args
        and not call.keywords
    )


__all__ = ["OwnBlur", "OwnClass", "OwnSolarize", "own_class", "own_pil_class"]
