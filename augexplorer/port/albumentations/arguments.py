"""A transform's arguments as a mapping reads them: by name or position, with albumentations'
defaults, and with the names older (1.4) and newer (AlbumentationsX) versions gave them.

Neither a Python file nor an older saved file says which names a version used, so each mapping
asks for the 2.x name and lists the others as aliases (``max_holes`` for ``num_holes_range``):
the names never collide across versions. Scalars that albumentations widens into ranges
(``brightness=0.2`` -> ``(0.8, 1.2)``) are widened here the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..model import Symbol, TransformCall, Unknown


class NotPorted(Exception):
    """Raised by a mapping for a call it cannot express: `reason` says why and what to use."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


# OpenCV's interpolation flags, as albumentations takes them, and DALI's nearest equivalents.
CV_INTERPOLATION = {
    0: "INTERP_NN",
    1: "INTERP_LINEAR",
    2: "INTERP_CUBIC",
    4: "INTERP_LANCZOS3",
    6: "INTERP_NN",
}
CV_INTERPOLATION_NAMES = {
    0: "NEAREST",
    1: "LINEAR",
    2: "CUBIC",
    3: "AREA",
    4: "LANCZOS4",
    6: "NEAREST_EXACT",
}
INTER_AREA = 3
# INTER_AREA ported as DALI's antialiased linear, measured on the bundled photos against
# albumentations 2.0.8 (tests/test_port_probe_albumentations.py)
AREA_DIFFERENCE = (
    "INTER_AREA as DALI's antialiased linear: where it shrinks OpenCV averages the pixels under "
    "each output pixel, DALI weighs them by a triangle twice as wide (19 photos to 120x90: mean "
    "1.49, max 41 grey levels, where INTER_LINEAR would be 3.1, max 130; to 64x64: mean 1.93, "
    "max 44; at exactly half the size, where OpenCV's average is its bilinear, DALI's is "
    "blurrier: up to mean 5.2 on one photo); where it enlarges OpenCV's INTER_AREA is sharper "
    "than bilinear, DALI's is bilinear (to 1024x1024: mean 2.29, max 119); LongestMaxSize(256), "
    "shrinking and enlarging: mean 0.96, max 60"
)
AREA_FOR_DOWNSCALE = (
    "with area_for_downscale, where the image shrinks albumentations resizes with INTER_AREA, "
    "the port with DALI's antialiased linear (19 photos to a shorter side of 100: mean 1.29, "
    "max 44 grey levels); where it grows, INTER_LINEAR as without it (within a grey level); "
    "LongestMaxSize(256), some photos shrinking and some growing: mean 0.63, max 43"
)
# cv2 constants by name, for calls read from source (``interpolation=cv2.INTER_NEAREST``)
CV_CONSTANTS = {
    "INTER_NEAREST": 0,
    "INTER_LINEAR": 1,
    "INTER_CUBIC": 2,
    "INTER_AREA": 3,
    "INTER_LANCZOS4": 4,
    "INTER_NEAREST_EXACT": 6,
    "BORDER_CONSTANT": 0,
    "BORDER_REPLICATE": 1,
    "BORDER_REFLECT": 2,
    "BORDER_WRAP": 3,
    "BORDER_REFLECT_101": 4,
    "BORDER_REFLECT101": 4,
    "BORDER_DEFAULT": 4,
}
# OpenCV's border modes by number (albumentations takes cv2.BORDER_*).
BORDER_CONSTANT = 0
BORDER_NAMES = {0: "CONSTANT", 1: "REPLICATE", 2: "REFLECT", 3: "WRAP", 4: "REFLECT_101"}


class Args:
    """The arguments of one call: `positional` names the class's parameters in order (for
    ``A.Resize(256, 256)``), `p` is its default probability."""

    def __init__(self, call: TransformCall, positional: Sequence[str] = (), p: float = 0.5):
        self.call = call
        self.values: dict[str, Any] = dict(call.kwargs)
        if len(call.args) > len(positional):
            raise NotPorted(
                f"{call.name} takes at most {len(positional)} positional arguments "
                f"({', '.join(positional) or 'none'}); {len(call.args)} were given"
            )
        for name, value in zip(positional, call.args, strict=False):
            self.values[name] = value
        self.default_p = p
        # whether the image is float where the call runs (after Normalize or ToFloat): a port
        # that truncates to 8 bits as albumentations' tables do keeps float arithmetic there
        self.float_image = False

    def has(self, name: str, *aliases: str) -> bool:
        return any(key in self.values for key in (name, *aliases))

    def get(self, name: str, default: Any = None, *aliases: str) -> Any:
        """The value given as `name` (or one of its `aliases`), else `default`."""
        for key in (name, *aliases):
            if key in self.values:
                value = self.values[key]
                if isinstance(value, Unknown):
                    raise NotPorted(value.explain(key, with_line=False))
                if isinstance(value, Symbol):
                    if value.last not in CV_CONSTANTS:
                        raise NotPorted(f"{key}={value.text} is not a constant the port knows")
                    return CV_CONSTANTS[value.last]
                return value
        return default

    def number(self, name: str, default: float | None = None, *aliases: str) -> float:
        value = self.get(name, default, *aliases)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise NotPorted(f"{self.call.name}: {name}={value!r} is not a number")
        return float(value)

    def pair(
        self,
        name: str,
        default: Any,
        *aliases: str,
        around: float | None = None,
        symmetric: bool = False,
        least: float | None = None,
    ) -> tuple[float, float]:
        """A ``(low, high)`` range. A single number `v` becomes ``(around - v, around + v)``
        when `around` is given (ColorJitter's brightness), ``(-v, v)`` when `symmetric`
        (Rotate's limit), ``(least, v)`` when `least` is given (a blur's kernel size: up to
        v), else ``(v, v)``."""
        value = self.get(name, default, *aliases)
        if isinstance(value, bool):
            raise NotPorted(f"{self.call.name}: {name}={value!r} is not a number or a range")
        if isinstance(value, (int, float)):
            if around is not None:
                return (around - value, around + value)
            if symmetric:
                return (-abs(value), abs(value))
            if least is not None:
                return (float(least), float(value))
            return (float(value), float(value))
        if isinstance(value, (tuple, list)) and len(value) == 2:
            low, high = value
            if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (low, high)):
                return (float(low), float(high))
        raise NotPorted(f"{self.call.name}: {name}={value!r} is not a number or a (low, high) pair")

    @property
    def p(self) -> float:
        """The probability the transform applies with. ``always_apply`` is not read: 2.x
        ignores it (a 1.x saved file's always_apply=True is p=1 when it is read)."""
        return self.number("p", self.default_p)

    def interpolation(self, name: str = "interpolation", default: int = 1) -> str:
        """DALI's interp_type for an OpenCV flag; INTER_AREA has none outside resizes (see
        :meth:`resize_interpolation`)."""
        flag = self.get(name, default)
        if flag not in CV_INTERPOLATION:
            label = CV_INTERPOLATION_NAMES.get(flag, flag)
            raise NotPorted(
                f"{name}={label} has no DALI equivalent; use INTER_LINEAR (1) or INTER_NEAREST "
                "(0), or DALI's antialiased INTERP_LINEAR by hand"
            )
        return CV_INTERPOLATION[flag]

    def warp_interpolation(self, name: str = "interpolation", default: int = 1) -> str:
        """DALI's interp_type for an OpenCV affine warp: warpAffine reads INTER_AREA as
        INTER_LINEAR (measured: the same pixels), so it is linear here."""
        if self.get(name, default) == INTER_AREA:
            return CV_INTERPOLATION[1]
        return self.interpolation(name, default)

    def resize_interpolation(self, name: str = "interpolation", default: int = 1) -> dict[str, Any]:
        """DALI's resize arguments for an OpenCV flag. OpenCV's resizes do not antialias and
        scale by the ratio of whole-pixel sizes; INTER_AREA (averaging the source pixels under
        each output pixel where it shrinks) is DALI's antialiased INTERP_LINEAR, its nearest
        (graded by :func:`area_differences`)."""
        if self.get(name, default) == INTER_AREA or area_when_shrinking(self, name):
            return {"interp_type": "INTERP_LINEAR", "antialias": True, "subpixel_scale": False}
        interp_type = self.interpolation(name, default)
        return {"interp_type": interp_type, "antialias": False, "subpixel_scale": False}

    def interpolation_name(self, name: str = "interpolation", default: int = 1) -> str:
        flag = self.get(name, default)
        return CV_INTERPOLATION_NAMES.get(flag, str(flag))

    def size(self, default: Any = None) -> tuple[int, int]:
        """``(height, width)``: 2.x's ``size=(h, w)``, or 1.x's ``height`` and ``width``."""
        if self.has("size"):
            size = self.get("size")
            if isinstance(size, (tuple, list)) and len(size) == 2:
                return (int(size[0]), int(size[1]))
            if isinstance(size, int) and not isinstance(size, bool):
                return (size, size)
            raise NotPorted(f"{self.call.name}: size={size!r} is not (height, width)")
        if self.has("height") and self.has("width"):
            return (int(self.number("height")), int(self.number("width")))
        if default is not None:
            return default
        raise NotPorted(f"{self.call.name} needs size=(height, width) (1.x: height=, width=)")

    def fill(self, default: float = 0.0) -> float | list[float]:
        """The border/hole fill: 2.x ``fill``, 1.x ``value``/``fill_value``/``cval``."""
        value = self.get("fill", None, "fill_value", "value", "cval")
        if value is None:
            return default
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
        if isinstance(value, (tuple, list)) and all(isinstance(v, (int, float)) for v in value):
            return [float(v) for v in value]
        if value in ("random", "random_uniform", "inpaint_telea", "inpaint_ns"):
            # 2.x's drawn or inpainted fills: DALI's erase and warps fill with constants
            raise NotPorted(
                f"{self.call.name}: fill={value!r} fills each region with values albumentations "
                "draws or inpaints per pixel, where DALI fills with a constant (fix: fill=0, or "
                "a value per channel)"
            )
        raise NotPorted(f"{self.call.name}: fill={value!r} is not a number or one per channel")


def one_fill(args: Args, operator: str) -> float:
    """The call's fill as the one value DALI's `operator` takes; a fill per channel that is not
    one value is refused (its first channel filled every channel, graded exact)."""
    fill = args.fill()
    if isinstance(fill, float):
        return fill
    if len(set(fill)) == 1:
        return fill[0]
    shown = ", ".join(f"{v:g}" for v in fill)
    raise NotPorted(
        f"fill=({shown}): DALI's {operator} fills with one value for every channel (fix: one "
        "fill value)"
    )


def area_differences(args: Args, name: str = "interpolation", default: int = 1) -> tuple[str, ...]:
    """What a resize given INTER_AREA, or area_for_downscale, differs by (nothing else)."""
    if args.get(name, default) == INTER_AREA:
        return (AREA_DIFFERENCE,)
    return (AREA_FOR_DOWNSCALE,) if area_when_shrinking(args, name) else ()


# The resizes that scale both sides by one factor: albumentations' area_for_downscale picks
# INTER_AREA where that factor is below 1, i.e. where both sides shrink, as DALI antialiases
# (other resizes pick it where either side shrinks, for both: refused)
UNIFORM_SCALES = frozenset({"LongestMaxSize", "SmallestMaxSize", "RandomScale"})


def area_when_shrinking(args: Args, name: str = "interpolation") -> bool:
    """Whether the call resizes with INTER_AREA where it shrinks and INTER_LINEAR where it
    grows (area_for_downscale with the default interpolation): DALI's antialiased linear."""
    return (
        name == "interpolation"
        and args.call.name in UNIFORM_SCALES
        and args.get("area_for_downscale") in ("image", "image_mask")
        and args.get(name, 1) == 1
    )
