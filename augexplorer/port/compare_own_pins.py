"""Fixed draws for a class of the project's own (MoCo's, DINO's GaussianBlur, DINO's
Solarization; :mod:`.own_blurs`), so that Compare measures its pixels as it does a library's
transform: the class built with arguments that make it blur at one radius, always
(``GaussianBlur([1.2, 1.2])``, DINO's ``GaussianBlur(p=1.0, radius_min=1.2, radius_max=1.2)``).

Which of its arguments give the radius and the probability is the class's own: they are found
by reading the class again (the reading that made its port) with other values, so the class the
original side builds and the port the DALI side runs are read from the same arguments."""

from __future__ import annotations

import ast
import dataclasses
import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from .compare_pins import Inside, Pin, Widened, _inside
from .model import TransformCall
from .own_blurs import OwnBlur, OwnClass, OwnSolarize, own_class

RADIUS = 1.2  # the radius pinned where the class's range holds it (torchvision's blur's too)
MAX_TRIED = 256  # argument sets read at most: a class of a few arguments needs far fewer


@dataclass(frozen=True)
class OwnPin(Pin):
    """A :class:`Pin` on the class's arguments that also carries what the class does with
    them (`own`), which its port reads in place of the arguments."""

    own: OwnClass | None = None

    def apply(self, call: TransformCall) -> TransformCall:
        pinned = super().apply(call)
        return dataclasses.replace(pinned, own=self.own) if self.own is not None else pinned


def own_pin(call: TransformCall) -> OwnPin | None:
    """The pin of a call of the project's own class whose draws can be fixed by its arguments;
    None where it draws nothing (one radius, always applied) or no arguments fix them."""
    own = call.own
    if own is None or own.source is None:
        return None
    wanted = _wanted(own)
    if wanted is None:
        return None
    names = _parameters(own)
    if names is None:
        return None
    given = _values(call, names, own)
    for changed in _changes(names, given, wanted):
        values = tuple((names.index(n), n, v) for n, v in changed.items())
        pin = OwnPin(_label(wanted, own), values)
        pinned = pin.apply(call)
        found = own_class(own.source, pinned.args, pinned.kwargs)
        if found is not None and _same(found, wanted):
            kept = dataclasses.replace(found, defined_at=own.defined_at)
            return dataclasses.replace(pin, own=kept)
    return None


def _wanted(own: OwnClass) -> OwnClass | None:
    """What the class does pinned: one radius inside its range, or its threshold, always."""
    if isinstance(own, OwnSolarize):
        return None if own.p == 1 else dataclasses.replace(own, p=1.0)
    if own.low == own.high and own.p == 1:
        return None
    radius = _inside(RADIUS, (own.low, own.high), Inside("radius", Widened.AS_GIVEN, None))
    return dataclasses.replace(own, low=radius, high=radius, p=1.0)


def _same(found: OwnClass, wanted: OwnClass) -> bool:
    if isinstance(found, OwnBlur) and isinstance(wanted, OwnBlur):
        return (found.low, found.high, found.p) == (wanted.low, wanted.high, wanted.p)
    if isinstance(found, OwnSolarize) and isinstance(wanted, OwnSolarize):
        return (found.threshold, found.p) == (wanted.threshold, wanted.p)
    return False


def _label(wanted: OwnClass, own: OwnClass) -> str:
    applied = ", always applied" if own.p < 1 else ""
    if isinstance(wanted, OwnBlur):
        return f"radius {wanted.low:g}{applied}"
    return f"threshold {wanted.threshold:g}{applied}"


def _init(own: OwnClass) -> ast.FunctionDef | None:
    source = own.source
    found = [n for n in source.body if isinstance(n, ast.FunctionDef)] if source else []
    return next((n for n in found if n.name == "__init__"), None)


def _parameters(own: OwnClass) -> list[str] | None:
    """The names ``__init__`` takes after self, in order; None where it has no ``__init__``."""
    init = _init(own)
    return None if init is None else [a.arg for a in init.args.args][1:]


def _values(call: TransformCall, names: Sequence[str], own: OwnClass) -> dict[str, Any]:
    """Each parameter's value in the call, else its default (literals only)."""
    init = _init(own)
    assert init is not None  # _parameters found it
    defaults = dict(
        zip(names[len(names) - len(init.args.defaults) :], init.args.defaults, strict=True)
    )
    values: dict[str, Any] = {}
    for index, name in enumerate(names):
        if name in call.kwargs:
            values[name] = call.kwargs[name]
        elif index < len(call.args):
            values[name] = call.args[index]
        elif name in defaults:
            try:
                values[name] = ast.literal_eval(defaults[name])
            except ValueError:
                continue
    return values


def _changes(
    names: Sequence[str], given: dict[str, Any], wanted: OwnClass
) -> Iterator[dict[str, Any]]:
    """Sets of changed arguments, fewest changes first: a number may become the radius or 1
    (a probability), a pair of numbers the radius twice."""
    radius = wanted.low if isinstance(wanted, OwnBlur) else None
    options: list[list[Any]] = []
    for name in names:
        value = given.get(name)
        choices: list[Any] = []
        if _number(value):
            choices = [v for v in (radius, 1.0) if v is not None and v != value]
        elif _pair(value) and radius is not None:
            # as written: a list stays a list (the class may index or unpack either)
            choices = [[radius, radius] if isinstance(value, list) else (radius, radius)]
        options.append([_KEEP, *choices])
    combos = sorted(
        itertools.product(*options), key=lambda combo: sum(c is not _KEEP for c in combo)
    )
    for combo in combos[:MAX_TRIED]:
        changed = {n: c for n, c in zip(names, combo, strict=True) if c is not _KEEP}
        if changed:
            yield changed


_KEEP = object()  # an argument left as the call gives it


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _pair(value: Any) -> bool:
    return isinstance(value, (list, tuple)) and len(value) == 2 and all(map(_number, value))


__all__ = ["OwnPin", "own_pin"]
