"""albumentations' HueSaturationValue as OpenCV computes it, in expression nodes.

DALI's ``hsv`` turns hue and scales saturation and value in YIQ space; albumentations converts
to OpenCV's 8-bit HSV (H 0-179), adds its shifts there and converts back. These nodes compute
that round trip as OpenCV 5 does for 8-bit images: RGB to HSV in OpenCV's fixed point (12-bit
tables, exact in float64), the shifts as albumentations applies them (hue through
``np.mod(h + shift, 180)`` truncated to 8 bits; saturation and value plus the shift truncated
toward zero, clipped, a grey pixel's saturation kept 0), HSV to RGB in float32, truncated.
Measured against albumentations 2.0.8 by ``tests/test_port_probe_round7_albumentations.py``.
"""

from __future__ import annotations

import re

from ...spec import Node, Ref
from .arguments import Args
from .nodes import expr as _expr
from .nodes import step, uniform_node
from .registry import IMAGE, Mapped, mapping

# OpenCV's sector table: for each sixth of the hue wheel, which of (v, p, q, t) each of
# red, green and blue takes (its sector_data read as r, g, b).
_SECTORS = {
    "r": ("v", "q", "p", "p", "t", "v"),
    "g": ("t", "v", "v", "q", "p", "p"),
    "b": ("p", "p", "t", "v", "v", "q"),
}
EXACT_NOTE = (
    "albumentations' round trip through OpenCV's 8-bit HSV computed as OpenCV computes it, "
    "its shifts added there as albumentations adds them (19 photos at hue 10, at saturation "
    "+20 with value -15, at the default limits' ends +-20, +-30, +-20 and at shifts of "
    "-7.6, 13.7, -3.3: max 1 grey level, mean 0.006-0.007, one value in 140 a level off "
    "where a float32 product falls next to a whole level); 8-bit images only"
)


def expr(node_id: str, text: str) -> Node:
    """An expression node whose inputs are the node names its text reads, in the order it
    first reads them (as the expression check asks)."""
    names = re.findall(r"(?<![\w.])(hsv_\w+|rgb_\w+|\w+_shift|image)(?![\w(])", text)
    return _expr(node_id, text, list(dict.fromkeys(names)))


def _truncated(name: str) -> str:
    """albumentations adds an 8-bit shift as an integer: the draw truncated toward zero."""
    return f"(({name} >= 0) * math.floor({name}) + ({name} < 0) * math.ceil({name}))"


def _to_hsv() -> list[Node]:
    """RGB to OpenCV's 8-bit HSV (RGB2HSV_b): integer tables of 12 fractional bits, here in
    float64, where every product is exact and no division lands on a tie."""
    r, g, b = (f"hsv_in[:, :, {c}]" for c in range(3))
    v, low = "hsv_v", "hsv_low"
    diff = f"({v} - {low})"
    sdiv = f"({v} > 0) * math.floor(1044480.0 / math.max({v}, 1.0) + 0.5)"  # (255 << 12) / v
    hdiv = f"({diff} > 0) * math.floor(122880.0 / math.max({diff}, 1.0) + 0.5)"  # 180 << 12 / 6d
    is_r, is_g = f"({r} == {v})", f"(({g} == {v}) & ({r} != {v}))"
    raw = (
        f"{is_r} * ({g} - {b}) + {is_g} * ({b} - {r} + 2.0 * {diff})"
        f" + (({r} != {v}) & ({g} != {v})) * ({r} - {g} + 4.0 * {diff})"
    )
    return [
        step("hsv_in", "cast", {"dtype": "FLOAT64"}),
        expr(v, f"math.max({r}, math.max({g}, {b}))"),
        expr(low, f"math.min({r}, math.min({g}, {b}))"),
        expr("hsv_s", f"math.floor(({diff} * {sdiv} + 2048.0) / 4096.0)"),
        expr("hsv_h_raw", f"math.floor(({raw}) * {hdiv} / 4096.0 + 0.5)"),
        expr("hsv_h", "hsv_h_raw + (hsv_h_raw < 0) * 180.0"),
    ]


def _shifted(
    hue: tuple[float, float], sat: tuple[float, float], val: tuple[float, float]
) -> list[Node]:
    """The three shifts drawn per image and applied as albumentations' shift_hsv does."""
    turned = "(hsv_h + hue_shift)"
    return [
        uniform_node("hue_shift", *hue),
        uniform_node("sat_shift", *sat),
        uniform_node("val_shift", *val),
        expr(
            "hsv_h2",
            f"math.floor({turned} - math.floor({turned} / 180.0) * 180.0)",
        ),
        expr(
            "hsv_s2",
            f"(hsv_s > 0) * math.clamp(hsv_s + {_truncated('sat_shift')}, 0.0, 255.0)",
        ),
        expr(
            "hsv_v2",
            f"math.clamp(hsv_v + {_truncated('val_shift')}, 0.0, 255.0)",
        ),
    ]


def _to_rgb() -> list[Node]:
    """OpenCV's 8-bit HSV to RGB (HSV2RGB_b): S and V over 255 and H over 30 in float32, the
    sector's v, p, q, t, each channel's value times 255 truncated."""
    nodes: list[Node] = [
        Node(f"{name}_f", "cast", inputs=(Ref(name),), args={"dtype": "FLOAT"})
        for name in ("hsv_h2", "hsv_s2", "hsv_v2")
    ]
    # float32 constants, as OpenCV's: 1/255 and 6/180
    s, v = "(hsv_s2_f * 0.003921568859368563)", "(hsv_v2_f * 0.003921568859368563)"
    nodes.append(expr("hsv_h6", "hsv_h2_f * 0.03333333507180214"))
    nodes.append(expr("hsv_sector", "math.floor(hsv_h6)"))
    frac = "(hsv_h6 - hsv_sector)"
    values = {
        "v": v,
        "p": f"{v} * (1.0 - {s})",
        "q": f"{v} * (1.0 - {s} * {frac})",
        "t": f"{v} * (1.0 - {s} * (1.0 - {frac}))",
    }
    for name, text in values.items():
        nodes.append(expr(f"rgb_{name}", f"math.floor(({text}) * 255.0)"))
    for channel, picks in _SECTORS.items():
        text = " + ".join(f"(hsv_sector == {k}) * rgb_{pick}" for k, pick in enumerate(picks))
        nodes.append(expr(f"hsv_{channel}", text))
    nodes.append(
        Node(
            "hsv_rgb", "stack", inputs=(Ref("hsv_r"), Ref("hsv_g"), Ref("hsv_b")), args={"axis": 2}
        )
    )
    return nodes


@mapping("HueSaturationValue", positional=("hue_shift_limit", "sat_shift_limit", "val_shift_limit"))
def hue_saturation_value(args: Args) -> Mapped:
    hue = args.pair("hue_shift_limit", (-20.0, 20.0), symmetric=True)
    sat = args.pair("sat_shift_limit", (-30.0, 30.0), symmetric=True)
    val = args.pair("val_shift_limit", (-20.0, 20.0), symmetric=True)
    if hue == sat == val == (0.0, 0.0):  # albumentations returns the image as it is
        return Mapped((), "exact", ("no shift: the image as it is",))
    helpers = [*_to_hsv(), *_shifted(hue, sat, val), *_to_rgb()]
    # the two steps that carry the image: the first reads it (where the transform's coin
    # says no, it passes through), the values are the round trip's
    nodes = (
        *helpers,
        expr("hsv_out", f"0 * {IMAGE} + hsv_rgb"),
        Node("hue_saturation_value", "cast", inputs=(Ref("hsv_out"),), args={"dtype": "UINT8"}),
    )
    return Mapped(nodes, "exact", (EXACT_NOTE,), frozenset(node.id for node in helpers))
