"""Fixed parameter values for random transforms, so that one transform run alone gives one
output on both sides and its pixels can be compared: a range collapsed to one value
(``RandomRotation(30)`` -> ``degrees=(15, 15)``), on the library's class and, through the port
of that call, on the DALI nodes with the same constant.

Where the user's own range can be read, the value is taken inside it (``RandomRotation(10)``
is compared at 10, its range's end, not at 15, an angle it never draws)."""

from __future__ import annotations

import dataclasses
from collections.abc import Collection
from dataclasses import dataclass
from enum import Enum
from typing import Any

from ..spec import GraphSpec, Node
from .model import TransformCall


class Widened(Enum):
    """How a library reads a single number given for a range."""

    SYMMETRIC = "symmetric"  # v -> (-v, v): an angle
    AROUND_ONE = "around one"  # v -> (max(0, 1 - v), 1 + v): a brightness factor
    AS_GIVEN = "as given"  # v -> (v, v): a sigma
    ODD_FROM_THREE = "odd from three"  # v -> (3, v), odd sizes only: albumentations' blur_limit
    FROM_ZERO = "from zero"  # v -> (0, v): albumentations' GaussianBlur sigma_limit
    FROM_ONE = "from one"  # v -> (1, v): albumentations' RandomGamma gamma_limit
    # v -> (0, v), a size drawn even made the odd one above it, 0 a size from sigma:
    # albumentations' GaussianBlur blur_limit
    SIZE_FROM_ZERO = "size from zero"


@dataclass(frozen=True)
class Inside:
    """The pinned (v, v) of `name` is moved into the user's range, read as `widened`; `default`
    is the range the library uses where the call leaves the argument out."""

    name: str
    widened: Widened
    default: Any
    # a dict {'x': ..., 'y': ...} (albumentations' Affine) is pinned axis by axis, each inside
    # its own range; an axis the dict leaves out stays out (a fixed value already)
    per_axis: bool = False
    # the value that does nothing (gamma 100): where the range ends there, its other end is
    # taken, so that the pixels compare what the transform does
    identity: float | None = None


AXES = ("x", "y")
Taken = float | dict[str, float]


def user_range(value: Any, widened: Widened) -> tuple[float, float] | None:
    """The range a library draws from for `value`, or None where it cannot be read here."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        v = float(value)
        if widened is Widened.SYMMETRIC:
            return (-abs(v), abs(v))
        if widened is Widened.AROUND_ONE:
            return (max(0.0, 1.0 - v), 1.0 + v)
        if widened is Widened.ODD_FROM_THREE:
            return (3.0, v)
        if widened in (Widened.FROM_ZERO, Widened.SIZE_FROM_ZERO):
            return (0.0, v)
        if widened is Widened.FROM_ONE:
            return (1.0, v)
        return (v, v)
    if isinstance(value, (tuple, list)) and len(value) == 2:
        low, high = value
        if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (low, high)):
            return (float(low), float(high))
    return None


@dataclass(frozen=True)
class Pin:
    """`values`: (positional index or None, keyword) -> the fixed value; `label` says it, with
    ``{keyword}`` standing for the value taken (for `inside` ones).
    `if_given`: keywords pinned only where the call gives them, as something other than None
    (a translation left out is none, already fixed: pinning both of albumentations' ways of
    giving one would be refused). `inside`: values taken inside the user's range."""

    label: str
    values: tuple[tuple[int | None, str, Any], ...]
    if_given: frozenset[str] = frozenset()
    inside: tuple[Inside, ...] = ()
    # how each `if_given` keyword pinned is said, in the label's ``{given}`` (``, shear 5``):
    # one the call leaves out is not pinned, so not said
    given_labels: tuple[tuple[str, str], ...] = ()

    def apply(self, call: TransformCall) -> TransformCall:
        args, kwargs = list(call.args), dict(call.kwargs)
        taken = self._taken(call)
        for index, name, value in self.values:
            if name in self.if_given and not self._given(call, index, name):
                continue
            if name in taken:
                value = _pinned_value(taken[name], whole=isinstance(value[0], int))
            if index is not None and index < len(args) and name not in kwargs:
                args[index] = value
            else:
                kwargs[name] = value
        return dataclasses.replace(call, args=tuple(args), kwargs=kwargs)

    def describe(self, call: TransformCall) -> str:
        """The label for `call`: the values it is compared at."""
        places = {name: index for index, name, _ in self.values}
        taken = {name: _said(v) for name, v in self._taken(call).items()}
        given = "".join(
            f", {said.format(**taken)}"
            for name, said in self.given_labels
            if self._given(call, places[name], name)
        )
        said = self.label.format(**taken, given=given)
        # a label made only of the values given starts with the separator of the first
        return said.removeprefix(", ") or "the call's own values"

    @staticmethod
    def _given(call: TransformCall, index: int | None, name: str) -> bool:
        """Whether `call` gives `name` (by keyword, as something other than None, or by place)."""
        return call.kwargs.get(name) is not None or (index is not None and index < len(call.args))

    def _taken(self, call: TransformCall) -> dict[str, Taken]:
        """Each `inside` value: the pin's own where the user's range holds it, else the end of
        that range nearest to it; the pin's own where the range cannot be read. A dict given
        for a `per_axis` one gives a value per axis it names."""
        places = {name: index for index, name, _ in self.values}
        pinned = {name: value for _, name, value in self.values}
        taken: dict[str, Taken] = {}
        for rule in self.inside:
            index = places[rule.name]
            if rule.name in call.kwargs:
                given = call.kwargs[rule.name]
            elif index is not None and index < len(call.args):
                given = call.args[index]
            else:
                given = rule.default
            own = float(pinned[rule.name][0])
            if rule.per_axis and isinstance(given, dict):
                taken[rule.name] = {
                    axis: _inside(own, given[axis], rule) for axis in AXES if axis in given
                }
            else:
                taken[rule.name] = _inside(own, given, rule)
        return taken


def _inside(own: float, given: Any, rule: Inside) -> float:
    """`own` where the range `given` (read as `rule` reads it) holds it, else that range's end
    nearest to it; `own` where the range cannot be read."""
    widened = rule.widened
    bounds = user_range(given, widened)
    if bounds is None:
        return own
    low, high = bounds
    if widened is not Widened.ODD_FROM_THREE:
        # a uniform draw over a reversed pair draws the same interval; albumentations' blur
        # sizes are the exception: a pair still reversed is its high end alone
        low, high = sorted(bounds)
    value = min(max(own, low), high)
    if value == rule.identity:
        value = max((low, high), key=lambda end: abs(end - value))
    if widened is Widened.ODD_FROM_THREE and value % 2 == 0:
        # an even end: the odd size next to it inside the range (albumentations draws odd
        # sizes only)
        value = value - 1 if value - 1 >= low else value + 1
    if widened is Widened.SIZE_FROM_ZERO and value > 0 and round(value) % 2 == 0:
        # GaussianBlur draws any whole size and makes an even one the odd size above it:
        # that size is what the range's even value gives
        value = float(round(value) + 1)
    return float(value) + 0.0  # a range of 0 read symmetric ends at -0.0: said as 0


def _pinned_value(value: Taken, *, whole: bool) -> Any:
    """A taken value as the class takes it pinned: (v, v), whole where the pin is (a kernel
    size, a shift in pixels); a dict of those per axis."""
    if isinstance(value, dict):
        return {axis: _pinned_value(v, whole=whole) for axis, v in value.items()}
    number = round(value) if whole else value
    return (number, number)


def _said(value: Taken) -> str:
    """A taken value in a label: ``1.1``, or per axis as the dict names them, ``x 1, y 1.1``."""
    if isinstance(value, dict):
        return ", ".join(f"{axis} {v:g}" for axis, v in value.items())
    return f"{value:g}"


class SigmaSizedPin(Pin):
    """albumentations' GaussianBlur: a blur_limit of 0 (its default) sizes the kernel from
    sigma, int(sigma * 3.5) * 2 + 1, as PIL does; the label says that size."""

    def describe(self, call: TransformCall) -> str:
        taken = self._taken(call)
        size, sigma = taken["blur_limit"], taken["sigma_limit"]
        assert isinstance(size, float) and isinstance(sigma, float)  # neither is per axis
        if round(size) == 0:
            return f"sigma {sigma:g}, size {int(sigma * 3.5) * 2 + 1} (from sigma)"
        return f"size {round(size)}, sigma {sigma:g}"


@dataclass(frozen=True)
class Factor:
    """One factor of a colour jitter: its place among the positional arguments, how a single
    number widens into its range, the range the library uses where it is left out, the value
    pinned where the user's range holds it, the value that does nothing, and the value that
    turns the factor off on the library's class."""

    name: str
    index: int | None
    widened: Widened
    default: Any
    own: float
    identity: float
    off: Any


@dataclass(frozen=True)
class FactorPin:
    """A transform of several independent factors (a colour jitter), compared one factor at a
    time: the first factor the call sets (its range holds more than the value that does
    nothing) pinned inside the user's range, every other turned off. Pinning one factor that
    the call leaves out would compare the identity, which tells nothing of what the transform
    does; the others set are compared by their draws."""

    factors: tuple[Factor, ...]

    def chosen(self, call: TransformCall) -> tuple[Factor, float] | None:
        """The factor compared and its value; None where the call sets none."""
        for factor, bounds in self._set(call):
            value = min(max(factor.own, bounds[0]), bounds[1])
            if value == factor.identity:  # the range ends at the identity: take its other end
                value = max(bounds, key=lambda end: abs(end - factor.identity))
            return factor, value
        return None

    def apply(self, call: TransformCall) -> TransformCall:
        chosen = self.chosen(call)
        args, kwargs = list(call.args), dict(call.kwargs)
        for factor in self.factors:
            value = (chosen[1], chosen[1]) if chosen and chosen[0] is factor else factor.off
            if factor.index is not None and factor.index < len(args) and factor.name not in kwargs:
                args[factor.index] = value
            else:
                kwargs[factor.name] = value
        return dataclasses.replace(call, args=tuple(args), kwargs=kwargs)

    def describe(self, call: TransformCall) -> str:
        chosen = self.chosen(call)
        if chosen is None:
            return "no factor set (the identity)"
        factor, value = chosen
        others = [f.name for f, _ in self._set(call) if f is not factor]
        also = f" ({', '.join(others)} also set: compared by their draws)" if others else ""
        return f"{factor.name} {value:g} alone{also}"

    def _set(self, call: TransformCall) -> list[tuple[Factor, tuple[float, float]]]:
        """The factors the call sets, with their ranges: those holding more than the value
        that does nothing (one that cannot be read is not pinned)."""
        found = []
        for factor in self.factors:
            given = _given(call, factor.name, factor.index, factor.default)
            bounds = user_range(given, factor.widened)
            if bounds is not None and not bounds[0] == bounds[1] == factor.identity:
                found.append((factor, bounds))
        return found


def _given(call: TransformCall, name: str, index: int | None, default: Any) -> Any:
    """What the call gives for argument `name` (by keyword or at `index`), else `default`."""
    if name in call.kwargs:
        return call.kwargs[name]
    if index is not None and index < len(call.args):
        return call.args[index]
    return default


def _jitter(default: tuple[Any, Any, Any, Any], off: tuple[Any, Any]) -> FactorPin:
    """A ColorJitter's four factors: `default` the library's ranges where left out, `off`
    what turns a scaling factor and the hue off on its class."""
    around_one = [
        Factor(name, index, Widened.AROUND_ONE, default[index], 1.2, 1.0, off[0])
        for index, name in enumerate(("brightness", "contrast", "saturation"))
    ]
    hue = Factor("hue", 3, Widened.SYMMETRIC, default[3], 0.05, 0.0, off[1])
    return FactorPin((*around_one, hue))


@dataclass(frozen=True)
class WindowPin:
    """A random crop's window fixed at the (padded) image's top-left corner on both sides: the
    library's own class with its window draw fixed there (the original side's ``window``), and
    the port's node `node`, which draws where the window starts as a fraction of the room
    left, drawing 0. Padding, its fill and mode, and the crop itself are compared as each side
    makes them; the call's arguments stay as written."""

    node: str

    def apply(self, call: TransformCall) -> TransformCall:
        return call  # no argument of the call places the window

    def describe(self, _call: TransformCall) -> str:
        return "the window at the padded image's top-left corner"

    def original(self) -> dict[str, Any]:
        """What the original side's call is given: its window draw fixed at the corner."""
        return {"window": "top-left"}

    def port(self, spec: GraphSpec, node_ids: Collection[str]) -> GraphSpec | None:
        """`spec` (the port alone) with its window's start drawn at 0; None where the
        transform's nodes have no such draw (an edited graph)."""
        if self.node not in node_ids or self.node not in spec:
            return None
        node = spec.node(self.node)
        if not isinstance(node, Node) or node.op != "random.uniform":
            return None
        # a range [0, 0] is refused by DALI ("end > start"): one value to draw from instead
        return spec.unset_arg(self.node, "range").set_arg(self.node, "values", [0.0])


PINS: dict[tuple[str, str], Pin | FactorPin | WindowPin] = {
    # torchvision leaves a factor out as 0 (None on its class: no step); albumentations draws
    # every factor by default
    ("torchvision", "ColorJitter"): _jitter((0.0, 0.0, 0.0, 0.0), (0.0, 0.0)),
    ("albumentations", "ColorJitter"): _jitter(
        ((0.8, 1.2), (0.8, 1.2), (0.8, 1.2), (-0.5, 0.5)), ((1.0, 1.0), (0.0, 0.0))
    ),
    ("torchvision", "RandomRotation"): Pin(
        "angle {degrees}",
        ((0, "degrees", (15.0, 15.0)),),
        inside=(Inside("degrees", Widened.SYMMETRIC, None),),
    ),
    ("albumentations", "Rotate"): Pin(
        "angle {limit}",
        ((0, "limit", (15.0, 15.0)),),
        inside=(Inside("limit", Widened.SYMMETRIC, (-90.0, 90.0)),),
    ),
    ("albumentations", "SafeRotate"): Pin(
        "angle {limit}",
        ((0, "limit", (15.0, 15.0)),),
        inside=(Inside("limit", Widened.SYMMETRIC, (-90.0, 90.0)),),
    ),
    # the families below are graded exact for the same parameter values: pinned, their pixels
    # are measured against the library's (tests/test_port_compare_pins.py)
    ("torchvision", "GaussianBlur"): Pin(
        "sigma {sigma}",
        ((1, "sigma", (1.2, 1.2)),),
        inside=(Inside("sigma", Widened.AS_GIVEN, (0.1, 2.0)),),
    ),
    # approximate, pinned for its figure: a translation range cannot be pinned to a shift
    # (torchvision draws it symmetric about 0), so none is compared
    ("torchvision", "RandomAffine"): Pin(
        "angle {degrees}{given}, no translation",
        (
            (0, "degrees", (10.0, 10.0)),
            (1, "translate", None),
            (2, "scale", (1.1, 1.1)),
            (3, "shear", (5.0, 5.0)),
        ),
        frozenset({"scale", "shear"}),
        inside=(
            Inside("degrees", Widened.SYMMETRIC, None),
            Inside("scale", Widened.AS_GIVEN, None),
            Inside("shear", Widened.SYMMETRIC, None),
        ),
        given_labels=(("scale", "scale {scale}"), ("shear", "shear {shear}")),
    ),
    # each of Affine's parameters pinned only where the call gives it (left out, it is a fixed
    # value already: no rotation, scale 1), inside the user's range (a number is that value)
    ("albumentations", "Affine"): Pin(
        "{given}",
        (
            (None, "rotate", (10.0, 10.0)),
            (None, "scale", (1.1, 1.1)),
            (None, "shear", (5.0, 5.0)),
            (None, "translate_percent", (0.05, 0.05)),
            (None, "translate_px", (4, 4)),
        ),
        frozenset({"rotate", "scale", "shear", "translate_percent", "translate_px"}),
        inside=(
            Inside("rotate", Widened.AS_GIVEN, None),
            Inside("scale", Widened.AS_GIVEN, None, per_axis=True),
            Inside("shear", Widened.AS_GIVEN, None, per_axis=True),
            Inside("translate_percent", Widened.AS_GIVEN, None, per_axis=True),
            Inside("translate_px", Widened.AS_GIVEN, None, per_axis=True),
        ),
        given_labels=(
            ("rotate", "angle {rotate}"),
            ("scale", "scale {scale}"),
            ("shear", "shear {shear}"),
            ("translate_percent", "shift {translate_percent} of the side"),
            ("translate_px", "shift {translate_px} px"),
        ),
    ),
    ("albumentations", "ShiftScaleRotate"): Pin(
        "angle {rotate_limit}, scale 1 + {scale_limit}, shift {shift_limit}{given}",
        (
            (0, "shift_limit", (0.05, 0.05)),
            (1, "scale_limit", (0.1, 0.1)),
            (2, "rotate_limit", (10.0, 10.0)),
            (None, "shift_limit_x", (0.05, 0.05)),
            (None, "shift_limit_y", (0.05, 0.05)),
        ),
        frozenset({"shift_limit_x", "shift_limit_y"}),
        inside=(
            Inside("shift_limit", Widened.SYMMETRIC, (-0.0625, 0.0625)),
            Inside("scale_limit", Widened.SYMMETRIC, (-0.1, 0.1)),
            Inside("rotate_limit", Widened.SYMMETRIC, (-45.0, 45.0)),
            Inside("shift_limit_x", Widened.SYMMETRIC, None),
            Inside("shift_limit_y", Widened.SYMMETRIC, None),
        ),
        given_labels=(
            ("shift_limit_x", "shift {shift_limit_x} across"),
            ("shift_limit_y", "shift {shift_limit_y} down"),
        ),
    ),
    ("albumentations", "RandomScale"): Pin("scale 1.1", ((0, "scale_limit", (0.1, 0.1)),)),
    ("albumentations", "Blur"): Pin(
        "size {blur_limit}",
        ((0, "blur_limit", (5, 5)),),
        inside=(Inside("blur_limit", Widened.ODD_FROM_THREE, (3, 7)),),
    ),
    # left out, blur_limit is 0: the size follows sigma, so it is pinned to 0 too
    ("albumentations", "GaussianBlur"): SigmaSizedPin(
        "size {blur_limit}, sigma {sigma_limit}",
        ((0, "blur_limit", (5, 5)), (1, "sigma_limit", (1.2, 1.2))),
        inside=(
            Inside("blur_limit", Widened.SIZE_FROM_ZERO, 0),
            Inside("sigma_limit", Widened.FROM_ZERO, (0.5, 3.0)),
        ),
    ),
    ("albumentations", "Emboss"): Pin(
        "alpha {alpha}, strength {strength}",
        ((0, "alpha", (0.4, 0.4)), (1, "strength", (0.5, 0.5))),
        inside=(
            Inside("alpha", Widened.AS_GIVEN, (0.2, 0.5), identity=0.0),
            Inside("strength", Widened.AS_GIVEN, (0.2, 0.7)),
        ),
    ),
    ("albumentations", "Sharpen"): Pin(
        "alpha {alpha}, lightness {lightness}",
        ((0, "alpha", (0.3, 0.3)), (1, "lightness", (0.8, 0.8))),
        inside=(
            Inside("alpha", Widened.AS_GIVEN, (0.2, 0.5), identity=0.0),
            Inside("lightness", Widened.AS_GIVEN, (0.5, 1.0)),
        ),
    ),
    ("albumentations", "RandomBrightnessContrast"): Pin(
        "brightness {brightness_limit}, contrast {contrast_limit}",
        ((0, "brightness_limit", (0.1, 0.1)), (1, "contrast_limit", (0.2, 0.2))),
        inside=(
            Inside("brightness_limit", Widened.SYMMETRIC, (-0.2, 0.2)),
            Inside("contrast_limit", Widened.SYMMETRIC, (-0.2, 0.2)),
        ),
    ),
    ("albumentations", "RandomGamma"): Pin(
        "gamma {gamma_limit}",
        ((0, "gamma_limit", (120.0, 120.0)),),
        inside=(Inside("gamma_limit", Widened.FROM_ONE, (80.0, 120.0), identity=100.0),),
    ),
    ("albumentations", "RGBShift"): Pin(
        "shifts {r_shift_limit}, {g_shift_limit}, {b_shift_limit}",
        (
            (0, "r_shift_limit", (10, 10)),
            (1, "g_shift_limit", (-10, -10)),
            (2, "b_shift_limit", (5, 5)),
        ),
        inside=(
            Inside("r_shift_limit", Widened.SYMMETRIC, (-20, 20)),
            Inside("g_shift_limit", Widened.SYMMETRIC, (-20, 20)),
            Inside("b_shift_limit", Widened.SYMMETRIC, (-20, 20)),
        ),
    ),
    # OpenCV's HSV round trip, its shifts truncated as albumentations adds them: pinned for its
    # figure, each shift inside the user's range, all three at once as the pipeline draws them
    ("albumentations", "HueSaturationValue"): Pin(
        "hue {hue_shift_limit}, saturation {sat_shift_limit}, value {val_shift_limit}",
        (
            (0, "hue_shift_limit", (10.0, 10.0)),
            (1, "sat_shift_limit", (20.0, 20.0)),
            (2, "val_shift_limit", (-15.0, -15.0)),
        ),
        inside=(
            Inside("hue_shift_limit", Widened.SYMMETRIC, (-20.0, 20.0)),
            Inside("sat_shift_limit", Widened.SYMMETRIC, (-30.0, 30.0)),
            Inside("val_shift_limit", Widened.SYMMETRIC, (-20.0, 20.0)),
        ),
    ),
    # one clip limit: one clahe node, where a range is cut in parts drawn per image
    ("albumentations", "CLAHE"): Pin(
        "clip limit {clip_limit}",
        ((0, "clip_limit", (2.0, 2.0)),),
        inside=(Inside("clip_limit", Widened.FROM_ONE, (1.0, 4.0)),),
    ),
    # approximate (another JPEG encoder; OpenCV's sampling when shrinking): pinned for their
    # figures, inside the user's range
    ("albumentations", "ImageCompression"): Pin(
        "quality {quality_range}",
        ((None, "quality_range", (90, 90)),),
        inside=(Inside("quality_range", Widened.AS_GIVEN, (99, 100)),),
    ),
    ("albumentations", "Downscale"): Pin(
        "scale {scale_range}",
        ((0, "scale_range", (0.5, 0.5)),),
        inside=(Inside("scale_range", Widened.AS_GIVEN, (0.25, 0.25)),),
    ),
    # where torchvision's RandomCrop starts its window is drawn apart from every argument:
    # pinned at the padded image's corner, its padding and fill are compared pixel for pixel
    ("torchvision", "RandomCrop"): WindowPin("crop_draw"),
    ("albumentations", "MultiplicativeNoise"): Pin(
        "multiplier 1.1", ((0, "multiplier", (1.1, 1.1)),)
    ),
    # centred: a shift of 0 is inside the range allow_shifted=True draws from. At angle 0 and
    # size 3 the line's first point falls on a half (x = 0.5), which albumentations rounds to
    # even (0), as the port does
    ("albumentations", "MotionBlur"): Pin(
        "size {blur_limit}, angle {angle_range}, direction {direction_range}, centred",
        (
            (0, "blur_limit", (3, 3)),
            (1, "allow_shifted", False),
            (2, "angle_range", (0.0, 0.0)),
            (3, "direction_range", (0.5, 0.5)),
        ),
        inside=(
            Inside("blur_limit", Widened.ODD_FROM_THREE, (3, 7)),
            Inside("angle_range", Widened.AS_GIVEN, (0.0, 360.0)),
            Inside("direction_range", Widened.AS_GIVEN, (-1.0, 1.0)),
        ),
    ),
}


def pin_of(call: TransformCall) -> Pin | FactorPin | WindowPin | None:
    """The pin of `call`'s transform; None where it has none, or nothing to pin (a colour
    jitter that sets no factor: the identity, compared as it is)."""
    pin = PINS.get((call.library, call.name))
    if isinstance(pin, FactorPin) and pin.chosen(call) is None:
        return None
    return pin
